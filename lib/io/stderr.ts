// Our stderr, bounded: every log line and server stderr line goes here, and a client that started us
// and never reads our stderr costs a bounded amount of memory. Apart from the logger (lib/io/log.ts)
// so that a command that only writes lines here loads neither consola nor node:fs.

import { LOG_BUFFER_BYTES } from "../wire/limits.ts";
import type { LineSink } from "../wire/line-writer.ts";

/**
 * Lines for a stream nobody may be reading (our stderr, when the client that started us never
 * reads it): past LOG_BUFFER_BYTES queued, lines are dropped and counted, and once the stream
 * drains, one line says how many were lost. Memory stays bounded whoever is at the other end.
 */
export class DroppingLineWriter {
  readonly #sink: LineSink;
  readonly #bound: number;
  #queued = 0;
  #waiting = false;
  #dropped = 0;

  constructor(sink: LineSink, bufferBytes = LOG_BUFFER_BYTES) {
    this.#sink = sink;
    this.#bound = bufferBytes;
  }

  /** How many lines were dropped since the stream last drained. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Writes at once (a line logged just before exit is not lost), or drops when the bound is reached. */
  write(text: string): boolean {
    if (this.#queued >= this.#bound) {
      this.#dropped++;
      return false;
    }
    const accepted = this.#sink.write(text);
    if (accepted && !this.#waiting) return true;
    this.#queued += text.length;
    if (!this.#waiting) {
      this.#waiting = true;
      this.#sink.once("drain", () => this.#drained());
    }
    return true;
  }

  #drained(): void {
    this.#waiting = false;
    this.#queued = 0;
    if (this.#dropped === 0) return;
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.write(`[mcpkit] ${dropped} line(s) dropped while nothing read this stream\n`);
  }
}

let stderrLines: DroppingLineWriter | undefined;
/** Our stderr, bounded (see DroppingLineWriter); every log line and server stderr line goes here. */
export function ownStderr(): DroppingLineWriter {
  stderrLines ??= new DroppingLineWriter(stderrSink);
  return stderrLines;
}

/** process.stderr, reached only when a line is written: building its stream costs a few ms of start-up that a quiet run never needs. */
const stderrSink: LineSink = {
  write: (chunk) => process.stderr.write(chunk),
  once: (event, listener) => process.stderr.once(event, listener),
  off: (event, listener) => process.stderr.off(event, listener),
};
