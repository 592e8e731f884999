// The native-I/O seam (DESIGN.md "Forwarding at wire speed"): the hot path of a forwarder writes
// through the runtime's own pipes where it runs on Bun (a FileSink: no node:stream layer per write),
// and through node:stream elsewhere (Deno runs this fallback). Everything else in lib/ stays
// runtime-neutral.
import type { LineSink } from "../wire/line-writer.ts";

/** A sink for our stdout: a LineSink, which also says when the reader went away for good. */
export interface OutputSink extends LineSink {
  /** The reader went away (EPIPE): nothing more can reach it. */
  onfailure?: () => void;
}

interface BunFileSink {
  write(chunk: string | Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
}

interface BunGlobal {
  stdout: { writer(options?: { highWaterMark?: number }): BunFileSink };
}

const bun = (globalThis as { Bun?: BunGlobal }).Bun;

/** Our stdout, for protocol lines: Bun's FileSink when on Bun, process.stdout otherwise. */
export function stdoutSink(): OutputSink {
  return bun ? new FileSinkOutput(bun.stdout.writer()) : nodeOutput();
}

function nodeOutput(): OutputSink {
  const sink: OutputSink = {
    write: (chunk) => process.stdout.write(chunk),
    once: (event, listener) => process.stdout.once(event, listener),
    off: (event, listener) => process.stdout.off(event, listener),
  };
  process.stdout.on("error", () => sink.onfailure?.());
  return sink;
}

/** A FileSink as a LineSink: a write the pipe cannot take now is pending until its flush settles ("drain"). */
class FileSinkOutput implements OutputSink {
  onfailure?: () => void;
  readonly #sink: BunFileSink;
  readonly #listeners = { drain: new Set<() => void>(), close: new Set<() => void>() };
  #waiting = false;
  #failed = false;

  constructor(sink: BunFileSink) {
    this.#sink = sink;
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.#failed) return false;
    try {
      this.#sink.write(chunk);
      if (this.#waiting) return false;
      const flushed = this.#sink.flush();
      if (typeof flushed === "number") return true;
      this.#wait(flushed);
      return false;
    } catch {
      this.#fail();
      return false;
    }
  }

  once(event: "drain" | "close", listener: () => void): void {
    this.#listeners[event].add(listener);
  }

  off(event: "drain" | "close", listener: () => void): void {
    this.#listeners[event].delete(listener);
  }

  /** Waits for a pending flush, flushing again while bytes written meanwhile are still buffered. */
  #wait(flushed: Promise<number>): void {
    this.#waiting = true;
    flushed.then(
      () => {
        let again: number | Promise<number>;
        try {
          again = this.#sink.flush();
        } catch {
          return this.#fail();
        }
        if (typeof again !== "number") return this.#wait(again);
        this.#waiting = false;
        this.#emit("drain");
      },
      () => this.#fail(),
    );
  }

  #fail(): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#waiting = false;
    this.#emit("close");
    this.onfailure?.();
  }

  #emit(event: "drain" | "close"): void {
    const listeners = [...this.#listeners[event]];
    this.#listeners[event].clear();
    for (const listener of listeners) listener();
  }
}
