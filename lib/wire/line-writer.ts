// Newline-delimited writing with a bound: lines written in the same turn of the event loop go out
// in one write (one syscall instead of one per message, which is what costs under load), and once
// its bound (CHANNEL_BUFFER_BYTES unless its owner gives another) is queued behind a sink that has
// not drained, `hasRoom` turns false until it does. Whoever feeds the writer pauses its own source
// meanwhile: nothing piles up without end.
// A forwarder may also write one line in pieces as they come (cut-through, lib/wire/cut-through.ts);
// whole lines written meanwhile wait for it to end, so no line is ever cut by another.
import { Buffer } from "node:buffer";
import { type RawMessage, rawText } from "./jsonrpc.ts";
import { CHANNEL_BUFFER_BYTES } from "./limits.ts";

export interface LineSink {
  write(chunk: string | Uint8Array): boolean;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** One line written in pieces: its bytes as they come, then its end (the newline). */
export interface PieceWriter {
  write(piece: Uint8Array): void;
  /** `tail`: the line's last bytes, ending in its newline, written as one; without it, the newline alone. */
  end(tail?: Uint8Array): void;
}

/**
 * What write() returns while the writer has room: settled, and it never rejects, so a caller that
 * would only catch a failure may skip it (a handler per small message is measurable in a forwarder).
 */
export const ROOM: Promise<void> = Promise.resolve();

/** Lines this long are written on their own rather than joined into a batch. */
export const BATCH_LINE_LIMIT = 64 * 1024;
const NEWLINE = new Uint8Array([0x0a]);

export class LineWriter {
  /** Called each time room returns after the writer was full. */
  onroom?: () => void;
  readonly #sink: LineSink;
  readonly #bound: number;
  #pending: RawMessage[] = [];
  #pendingBytes = 0;
  #hasText = false;
  #scheduled = false;
  /** Bytes handed to the sink since it last refused a write and has not drained since. */
  #queued = 0;
  #waitingForDrain = false;
  #closed = false;
  #room?: PromiseWithResolvers<void>;
  /** A line is being written in pieces: whole lines wait here until it ends. */
  #open = false;
  #waiting: RawMessage[] = [];
  #waitingBytes = 0;

  constructor(sink: LineSink, options: { bufferBytes?: number } = {}) {
    this.#sink = sink;
    this.#bound = options.bufferBytes ?? CHANNEL_BUFFER_BYTES;
  }

  /** False while the bound is reached and the sink has not drained. */
  get hasRoom(): boolean {
    return this.bufferedBytes < this.#bound;
  }

  /** Bytes waiting: queued behind the sink, and not yet handed to it. */
  get bufferedBytes(): number {
    return this.#queued + this.#pendingBytes + this.#waitingBytes;
  }

  /** Queues one line; the promise settles when there is room again (at once, usually). */
  write(line: RawMessage): Promise<void> {
    if (this.#open) {
      this.#waiting.push(line);
      this.#waitingBytes += line.length + 1;
    } else if (line.length > BATCH_LINE_LIMIT) {
      this.#flush();
      if (typeof line === "string") this.#put(`${line}\n`);
      else {
        // No copy of a large line: its bytes, then the newline.
        this.#put(line);
        this.#put(NEWLINE);
      }
    } else {
      this.#pending.push(line);
      this.#pendingBytes += line.length + 1;
      if (typeof line === "string") this.#hasText = true;
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flush());
      }
    }
    return this.whenRoom();
  }

  /**
   * Starts one line written in pieces (the pieces are the caller's to hand over: never written to
   * again). Undefined while another is open: the caller holds its line whole instead.
   */
  openLine(): PieceWriter | undefined {
    if (this.#open || this.#closed) return undefined;
    this.#flush();
    this.#open = true;
    let ended = false;
    return {
      write: (piece) => {
        if (!ended) this.#put(piece);
      },
      end: (tail) => {
        if (ended) return;
        ended = true;
        this.#put(tail ?? NEWLINE);
        this.#open = false;
        const waiting = this.#waiting;
        this.#waiting = [];
        this.#waitingBytes = 0;
        for (const line of waiting) void this.write(line);
      },
    };
  }

  /** Settles once the writer has room (at once when it has: then it is ROOM). */
  whenRoom(): Promise<void> {
    if (this.hasRoom || this.#closed) return ROOM;
    this.#room ??= Promise.withResolvers<void>();
    return this.#room.promise;
  }

  /** Settles when everything written has been handed to the sink and the sink has drained. */
  async flushed(): Promise<void> {
    this.#flush();
    while (this.#waitingForDrain && !this.#closed) {
      this.#room ??= Promise.withResolvers<void>();
      await this.#room.promise;
    }
  }

  #flush(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    const bytes = this.#pendingBytes;
    const hasText = this.#hasText;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#hasText = false;
    if (!hasText) {
      // Lines forwarded untouched are often views into one chunk that came in, each followed there by
      // its newline: then the batch is that run of the chunk, written without a copy.
      const run = contiguousRun(pending as Uint8Array[], bytes);
      if (run) return this.#put(run);
      // Otherwise one buffer for the whole batch: the lines' bytes, each with its newline.
      // A Buffer, not a plain Uint8Array: the stream would convert one into the other on every write.
      const out = Buffer.allocUnsafe(bytes);
      let offset = 0;
      for (const line of pending as Uint8Array[]) {
        out.set(line, offset);
        offset += line.length;
        out[offset++] = 0x0a;
      }
      this.#put(out);
    } else if (pending.length === 1) {
      this.#put(`${pending[0]}\n`);
    } else {
      this.#put(`${pending.map((line) => (typeof line === "string" ? line : rawText(line))).join("\n")}\n`);
    }
  }

  #put(chunk: string | Uint8Array): void {
    if (this.#closed) return;
    const accepted = this.#sink.write(chunk);
    if (accepted && !this.#waitingForDrain) return;
    this.#queued += chunk.length;
    if (this.#waitingForDrain) return;
    this.#waitingForDrain = true;
    const drained = (closed: boolean) => {
      this.#sink.off("drain", onDrain);
      this.#sink.off("close", onClose);
      this.#waitingForDrain = false;
      this.#queued = 0;
      if (closed) this.#closed = true;
      const room = this.#room;
      this.#room = undefined;
      room?.resolve();
      this.onroom?.();
    };
    const onDrain = () => drained(false);
    const onClose = () => drained(true);
    this.#sink.once("drain", onDrain);
    this.#sink.once("close", onClose);
  }
}

/**
 * The lines with their newlines as one view, when they lie one after another in one buffer, each
 * followed there by exactly one newline byte (the bytes that went out are then the same as a copy's).
 */
function contiguousRun(lines: Uint8Array[], bytes: number): Buffer | undefined {
  const first = lines[0]!;
  if (first.byteOffset + bytes > first.buffer.byteLength) return undefined;
  const whole = new Uint8Array(first.buffer, first.byteOffset, bytes);
  let offset = 0;
  for (const line of lines) {
    if (line.buffer !== first.buffer || line.byteOffset !== first.byteOffset + offset) return undefined;
    offset += line.length;
    if (whole[offset++] !== 0x0a) return undefined;
  }
  return Buffer.from(first.buffer, first.byteOffset, bytes);
}
