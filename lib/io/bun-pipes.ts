// Bun's own pipes behind the node-stream surfaces lib/ reads and writes (lib/io/runtime.ts and
// lib/io/spawn.ts pick them on Bun): a FileSink as a LineSink, a web byte stream as a readable. No
// node:stream layer per chunk: at 1 KB a message, that layer was most of a forwarder's cost.
import type { LineSink } from "../wire/line-writer.ts";

/** A sink that also says when its reader went away for good. */
export interface FailingSink extends LineSink {
  /** The reader went away (EPIPE): nothing more can reach it. */
  onfailure?: () => void;
}

export interface BunFileSink {
  write(chunk: string | Uint8Array): number | boolean | Promise<number>;
  /**
   * A number when all is written; a promise while the pipe is full; undefined once the pipe is closed.
   * Bun 1.4 also answers `true` at times (seen with stdout a regular file), which its types do not say.
   */
  flush(): number | boolean | Promise<number> | undefined;
  end(): unknown;
}

/**
 * Listeners that each hear their event once, for the node-style surfaces built on Bun's pipes and
 * processes. Not node:events: loading it costs a compiled binary's start-up about 1 ms.
 */
export class OnceListeners<Event extends string> {
  readonly #listeners = new Map<Event, ((...args: any[]) => void)[]>();

  /** A listener added twice is called twice, as node's is. */
  add(event: Event, listener: (...args: any[]) => void): void {
    let listeners = this.#listeners.get(event);
    if (!listeners) this.#listeners.set(event, (listeners = []));
    listeners.push(listener);
  }

  /** Removes one registration of the listener. */
  delete(event: Event, listener: (...args: any[]) => void): void {
    const listeners = this.#listeners.get(event);
    const at = listeners?.indexOf(listener) ?? -1;
    if (at !== -1) listeners!.splice(at, 1);
  }

  count(event: Event): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  /** Calls, and forgets, every listener of the event (one that throws ends the emit, as node's does). */
  emit(event: Event, ...args: unknown[]): void {
    const listeners = this.#listeners.get(event);
    if (!listeners) return;
    this.#listeners.delete(event);
    for (const listener of listeners) listener(...args);
  }
}

/** A pending write or flush (a promise), as opposed to one that is done (a number, or Bun's undocumented boolean). */
function isPending(value: unknown): value is Promise<number> {
  return typeof (value as Promise<number> | undefined)?.then === "function";
}

/** A FileSink as a LineSink: a write the pipe cannot take now is pending until its flush settles ("drain"). */
export class FileSinkOutput implements FailingSink {
  onfailure?: () => void;
  readonly #sink: BunFileSink;
  readonly #listeners = new OnceListeners<"drain" | "close">();
  #waiting = false;
  #failed = false;

  constructor(sink: BunFileSink) {
    this.#sink = sink;
  }

  get failed(): boolean {
    return this.#failed;
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.#failed) return false;
    try {
      // Past its buffer a FileSink's write returns a promise, which rejects when the pipe breaks.
      const written = this.#sink.write(chunk);
      if (isPending(written)) written.catch(() => this.#fail());
      if (this.#waiting) return false;
      return this.#flushed(this.#sink.flush());
    } catch {
      this.#fail();
      return false;
    }
  }

  once(event: "drain" | "close", listener: () => void): void {
    this.#listeners.add(event, listener);
  }

  off(event: "drain" | "close", listener: () => void): void {
    this.#listeners.delete(event, listener);
  }

  /** Sends what is buffered, then closes the pipe. */
  end(): void {
    if (this.#failed) return;
    try {
      const ended = this.#sink.end();
      if (ended instanceof Promise) ended.catch(() => {});
    } catch {
      // Already closed.
    }
  }

  #flushed(flushed: ReturnType<BunFileSink["flush"]>): boolean {
    if (flushed === undefined) {
      this.#fail();
      return false;
    }
    if (!isPending(flushed)) return true;
    this.#wait(flushed);
    return false;
  }

  /** Waits for a pending flush, flushing again while bytes written meanwhile are still buffered. */
  #wait(flushed: Promise<number>): void {
    this.#waiting = true;
    flushed.then(
      () => {
        let again: ReturnType<BunFileSink["flush"]>;
        try {
          again = this.#sink.flush();
        } catch {
          return this.#fail();
        }
        if (again === undefined) return this.#fail();
        if (isPending(again)) return this.#wait(again);
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
    this.#listeners.emit(event);
  }
}

type SourceEvent = "data" | "end" | "close" | "error";
type ReadMany = { done: boolean; value: Uint8Array[] };
/** Bun's readMany answers at once when chunks are buffered, and with a promise when it must wait. */
type Reader = ReadableStreamDefaultReader<Uint8Array> & { readMany?: () => ReadMany | Promise<ReadMany> };

/**
 * A web byte stream behind the node-stream surface readChunks reads. Every chunk already buffered
 * is taken at once (Bun's readMany); while paused, a chunk that came is kept and handed over on resume.
 */
export class WebStreamSource {
  readonly #reader: Reader;
  readonly #listeners: { [event in SourceEvent]: ((argument?: any) => void)[] } = { data: [], end: [], close: [], error: [] };
  #paused = false;
  #reading = false;
  #done = false;
  #kept: Uint8Array[] = [];
  #held = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
    // The first read waits for the caller's listeners.
    queueMicrotask(() => void this.#pump());
  }

  /**
   * Reads nothing until a "data" listener (or a resume) comes, as a node stream waits for its reader:
   * for a child spawned before the code that reads it has loaded (lib/io/spawn.ts's EarlySpawn).
   * Asked for before the first read, in the turn the source was made.
   */
  hold(): this {
    this.#held = true;
    return this;
  }

  on(event: SourceEvent, listener: (argument?: any) => void): this {
    this.#listeners[event].push(listener);
    if (event === "data" && this.#held) {
      // As at construction, the first read waits a microtask for the reader's other listeners (or a pause).
      this.#held = false;
      queueMicrotask(() => void this.#pump());
    }
    return this;
  }

  once(event: SourceEvent, listener: (argument?: any) => void): this {
    const once = (argument?: unknown) => {
      this.#listeners[event] = this.#listeners[event].filter((entry) => entry !== once);
      listener(argument);
    };
    return this.on(event, once);
  }

  pause(): this {
    this.#paused = true;
    return this;
  }

  resume(): this {
    this.#paused = false;
    this.#held = false;
    while (this.#kept.length > 0 && !this.#paused) this.#emit("data", this.#kept.shift());
    if (!this.#paused) void this.#pump();
    return this;
  }

  destroy(): void {
    if (this.#done) return;
    this.#finish();
    this.#reader.cancel().catch(() => {});
  }

  async #pump(): Promise<void> {
    if (this.#reading || this.#done || this.#held) return;
    this.#reading = true;
    try {
      while (!this.#paused && !this.#done) {
        const many = this.#reader.readMany ? this.#reader.readMany() : this.#readOne();
        const read = many instanceof Promise ? await many : many;
        if (this.#done) return;
        for (const chunk of read.value) {
          if (this.#paused) this.#kept.push(chunk);
          else this.#emit("data", chunk);
        }
        if (read.done) {
          this.#emit("end");
          this.#finish();
        }
      }
    } catch (error) {
      if (this.#done) return;
      this.#emit("error", error);
      this.#finish();
    } finally {
      this.#reading = false;
    }
  }

  async #readOne(): Promise<ReadMany> {
    const { done, value } = await this.#reader.read();
    return { done, value: value ? [value] : [] };
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#emit("close");
  }

  #emit(event: SourceEvent, argument?: unknown): void {
    for (const listener of [...this.#listeners[event]]) listener(argument);
  }
}
