// Newline-delimited framing for stdio MCP ("messages are delimited by newlines, and MUST NOT
// contain embedded newlines"). Splitting happens on bytes, so a UTF-8 character cut across two
// chunks is never decoded half-way, and a line is decoded once, when it is complete: one giant
// line costs linear time. A line over the cap is dropped with an error, and the stream goes on.
import { isUtf8 } from "node:buffer";
import { MAX_MESSAGE_BYTES } from "./limits.ts";

/** Large enough for a 20 MB tool result; a larger line is dropped, not buffered without end. */
export const MAX_LINE_BYTES = MAX_MESSAGE_BYTES;

const LF = 0x0a;
const CR = 0x0d;

export type LineError =
  /** `head`/`tail`: the line's first and last bytes, decoded leniently, so a caller can still name its JSON-RPC id. */
  { kind: "oversize"; bytes: number; head: string; tail: string } | { kind: "invalid-utf8"; bytes: number };

/** How much of a dropped line is kept for its error report. */
export const DROPPED_HEAD_BYTES = 1024;

export interface LineSplitterOptions {
  maxLineBytes?: number;
  /** Called for each dropped line; never throws into the stream. */
  onerror?: (error: LineError) => void;
}

export interface ByteLineSplitterOptions extends LineSplitterOptions {
  /** Check each line is valid UTF-8 (a bad one is dropped with an error); default true. */
  validateUtf8?: boolean;
  /**
   * The caller hands each chunk over and never writes to it again (true of node and web streams):
   * lines and the parts of unfinished lines are then views into the chunks, never copies.
   */
  chunksAreOwned?: boolean;
}

/**
 * Push-based core on bytes: feed chunks, receive whole lines (without the LF or a trailing CR) as
 * bytes, checked to be UTF-8. For forwarders, which pass on the bytes that arrived: a line that fits
 * in one chunk is a view into it, a longer one is joined once.
 */
export class ByteLineSplitter {
  readonly #maxLineBytes: number;
  readonly #onerror: (error: LineError) => void;
  readonly #validate: boolean;
  readonly #owned: boolean;
  #parts: Uint8Array[] = [];
  #pendingBytes = 0;
  #discarding = false;
  #head = "";
  #tail: Uint8Array = new Uint8Array(0);

  constructor(
    readonly online: (line: Uint8Array) => void,
    options: ByteLineSplitterOptions = {},
  ) {
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#onerror = options.onerror ?? (() => {});
    this.#validate = options.validateUtf8 ?? true;
    this.#owned = options.chunksAreOwned ?? false;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      if (newline === -1) {
        this.#append(chunk.subarray(start));
        return;
      }
      this.pushLine(chunk, start, newline);
      start = newline + 1;
    }
  }

  /** The line in `chunk` from `start` to its newline at `newline` (what push does with each, for a caller that found the newline). */
  pushLine(chunk: Uint8Array, start: number, newline: number): void {
    if (this.#pendingBytes === 0 && !this.#discarding && newline - start <= this.#maxLineBytes) {
      // The whole line is inside this chunk: no copy.
      this.#emit(chunk.subarray(start, newline));
    } else {
      this.#append(chunk.subarray(start, newline));
      this.#finishLine();
    }
  }

  /** Flushes a last line that had no trailing newline. */
  end(): void {
    if (this.#pendingBytes > 0 || this.#discarding) this.#finishLine();
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#discarding) {
      this.#pendingBytes += bytes.length;
      this.#tail = tailOf(this.#tail, bytes);
      return;
    }
    if (this.#pendingBytes + bytes.length > this.#maxLineBytes) {
      this.#discarding = true;
      this.#head = headOf([...this.#parts, bytes]);
      this.#tail = tailOf(new Uint8Array(0), bytes);
      this.#parts = [];
      this.#pendingBytes += bytes.length;
      return;
    }
    // Copy unless the chunk is ours to keep: the caller may reuse its buffer after push returns.
    this.#parts.push(this.#owned ? bytes : bytes.slice());
    this.#pendingBytes += bytes.length;
  }

  #finishLine(): void {
    const bytes = this.#pendingBytes;
    const parts = this.#parts;
    const wasDiscarding = this.#discarding;
    this.#parts = [];
    this.#pendingBytes = 0;
    this.#discarding = false;
    if (wasDiscarding) {
      this.#onerror({ kind: "oversize", bytes, head: this.#head, tail: new TextDecoder().decode(this.#tail) });
      this.#head = "";
      this.#tail = new Uint8Array(0);
      return;
    }
    this.#emit(parts.length === 1 ? parts[0]! : concat(parts, bytes));
  }

  #emit(bytes: Uint8Array): void {
    const size = bytes.length;
    const line = size > 0 && bytes[size - 1] === CR ? bytes.subarray(0, size - 1) : bytes;
    if (this.#validate && !isUtf8(line)) {
      this.#onerror({ kind: "invalid-utf8", bytes: size });
      return;
    }
    this.online(line);
  }
}

/** Push-based core: feed chunks, receive whole lines (without the LF or a trailing CR) as text. */
export class LineSplitter {
  readonly #bytes: ByteLineSplitter;
  readonly #onerror: (error: LineError) => void;
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });

  constructor(
    readonly online: (line: string) => void,
    options: LineSplitterOptions = {},
  ) {
    this.#onerror = options.onerror ?? (() => {});
    // A line is decoded once, when it is complete; the decoder is what checks it is UTF-8.
    this.#bytes = new ByteLineSplitter((line) => this.#emit(line), { ...options, validateUtf8: false });
  }

  push(chunk: Uint8Array): void {
    this.#bytes.push(chunk);
  }

  /** Flushes a last line that had no trailing newline. */
  end(): void {
    this.#bytes.end();
  }

  #emit(line: Uint8Array): void {
    let text: string;
    try {
      text = this.#decoder.decode(line);
    } catch {
      this.#onerror({ kind: "invalid-utf8", bytes: line.length });
      return;
    }
    this.online(text);
  }
}

/** The first DROPPED_HEAD_BYTES of the parts, decoded without failing on a cut character. */
function headOf(parts: Uint8Array[]): string {
  const taken: Uint8Array[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= DROPPED_HEAD_BYTES) break;
    const piece = part.subarray(0, DROPPED_HEAD_BYTES - size);
    taken.push(piece);
    size += piece.length;
  }
  return new TextDecoder().decode(concat(taken, size));
}

/** The last DROPPED_HEAD_BYTES of what was kept and what came next. */
function tailOf(kept: Uint8Array, next: Uint8Array): Uint8Array {
  if (next.length >= DROPPED_HEAD_BYTES) return next.slice(next.length - DROPPED_HEAD_BYTES);
  const joined = concat([kept, next], kept.length + next.length);
  return joined.slice(Math.max(0, joined.length - DROPPED_HEAD_BYTES));
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
