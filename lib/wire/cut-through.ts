// Cut-through framing for forwarders (DESIGN.md "Forwarding at wire speed"): a line up to
// HOLD_BYTES is held whole and handed over as one, like ByteLineSplitter does; a longer one is
// offered to the caller when its first HOLD_BYTES are in, with what a streaming scanner read of its
// top-level keys so far. The caller either takes it as a stream (the held bytes, then every piece as
// it arrives, then its end) or has it held whole, up to the message cap. A streamed line is never
// buffered here, so only the reader's backpressure bounds it.
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  decodeJsonNumber,
  decodeJsonString,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from "./json-scan.ts";
import type { JsonRpcId } from "./jsonrpc.ts";
import { ByteLineSplitter, type LineError, MAX_LINE_BYTES } from "./lines.ts";

/** Lines up to this long are held whole and checked before any of their bytes go on. */
export const HOLD_BYTES = 64 * 1024;

/** What the scanner read of a message's top-level keys (and a tool call's params.name). */
export interface MessageHead {
  id?: JsonRpcId;
  method?: string;
  /** Which of params/result/error has started. */
  body?: "params" | "result" | "error";
  toolName?: string;
  /** The bytes so far are the start of a JSON object. */
  valid: boolean;
  /** The top-level object closed. */
  complete: boolean;
}

/** Where a streamed line's bytes go. */
export interface LineStream {
  data(piece: Uint8Array): void;
  /**
   * The line ended; `head` now holds what came late (an id written after the result). `tail` is its
   * last bytes with the newline (at least the newline), to go out in one write: a newline written
   * on its own costs the reader a wake-up of its own, per message.
   */
  end(head: MessageHead, tail: Uint8Array): void;
  /** The input ended in the middle of the line. */
  abort(head: MessageHead): void;
}

export interface CutThroughOptions {
  /** A whole line: at most HOLD_BYTES, or a held one up to the cap. */
  online(line: Uint8Array): void;
  /** A line passed HOLD_BYTES unfinished: a stream to take it, or undefined to hold it whole. */
  onlong(head: MessageHead): LineStream | undefined;
  onerror?: (error: LineError) => void;
  maxLineBytes?: number;
}

const LF = 0x0a;
const LONE_NEWLINE = new Uint8Array([LF]);

export class CutThroughSplitter {
  readonly #options: CutThroughOptions;
  readonly #whole: ByteLineSplitter;
  /** Bytes of the current line while it is at most HOLD_BYTES long and not yet decided. */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** The line is being held to the cap: whole-line framing decides its fate. */
  #holding = false;
  #stream?: LineStream;
  #scanner?: HeadScanner;

  constructor(options: CutThroughOptions) {
    this.#options = options;
    this.#whole = new ByteLineSplitter(options.online, {
      maxLineBytes: options.maxLineBytes ?? MAX_LINE_BYTES,
      onerror: options.onerror,
      chunksAreOwned: true,
      validateUtf8: false,
    });
  }

  /** Chunks are handed over and never written to again (true of node and web streams). */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.#stream) {
        const piece = chunk.subarray(start, end);
        if (this.#scanner!.wanted) this.#scanner!.scan(piece);
        if (newline !== -1) this.#endStream(chunk.subarray(start, newline + 1));
        else if (piece.length > 0) this.#stream.data(piece);
      } else if (this.#holding) {
        this.#whole.push(chunk.subarray(start, newline === -1 ? end : newline + 1));
        if (newline !== -1) this.#holding = false;
      } else if (newline !== -1 && this.#heldBytes + end - start <= HOLD_BYTES) {
        // The usual case: the whole line is here (or completes what was held).
        if (this.#heldBytes === 0) this.#whole.pushLine(chunk, start, newline);
        else this.#flushHeld(chunk.subarray(start, newline + 1));
      } else if (this.#heldBytes + end - start <= HOLD_BYTES) {
        this.#held.push(chunk.subarray(start, end));
        this.#heldBytes += end - start;
      } else {
        this.#decide(chunk.subarray(start, end), newline === -1 ? undefined : chunk.subarray(start, newline + 1));
      }
      if (newline === -1) return;
      start = newline + 1;
    }
  }

  /** The input ended: a last line without a newline is handed over, a streamed one aborted (or ended, if complete). */
  end(): void {
    if (this.#stream) {
      const stream = this.#stream;
      const head = this.#scanner!.head;
      this.#stream = undefined;
      // A complete line the input did not end with a newline is given one, as a held line is.
      if (head.complete) stream.end(head, LONE_NEWLINE);
      else stream.abort(head);
      return;
    }
    if (this.#heldBytes > 0) this.#flushHeld(new Uint8Array(0));
    this.#whole.end();
    this.#holding = false;
  }

  #flushHeld(last: Uint8Array): void {
    for (const part of this.#held) this.#whole.push(part);
    this.#whole.push(last);
    this.#held = [];
    this.#heldBytes = 0;
  }

  /**
   * The line is past HOLD_BYTES: scan what came, and ask whether to stream it. `tail` is the piece
   * with its newline, when the line ends in this chunk.
   */
  #decide(piece: Uint8Array, tail: Uint8Array | undefined): void {
    const scanner = new HeadScanner();
    for (const part of this.#held) scanner.scan(part);
    scanner.scan(piece);
    const stream = scanner.head.valid && scanner.head.body !== undefined ? this.#options.onlong(scanner.head) : undefined;
    if (!stream) {
      this.#holding = tail === undefined;
      this.#flushHeld(tail ?? piece);
      return;
    }
    this.#scanner = scanner;
    this.#stream = stream;
    for (const part of this.#held) stream.data(part);
    this.#held = [];
    this.#heldBytes = 0;
    if (tail) this.#endStream(tail);
    else if (piece.length > 0) stream.data(piece);
  }

  #endStream(tail: Uint8Array): void {
    const stream = this.#stream!;
    this.#stream = undefined;
    stream.end(this.#scanner!.head, tail);
    this.#scanner = undefined;
  }
}

/** Top-level values the scanner keeps (id, method, a tool's name) are small; a longer one is not read. */
const MAX_CAPTURE_BYTES = 1024;

/** What each open container is: an array, or an object whose next string is a key or a value. */
const ARRAY = 0;
const KEY = 1;
const VALUE = 2;

/**
 * Reads a JSON object's top-level keys as its bytes pass, piece by piece, jumping over strings with
 * indexOf: the id and method when they come, which body started, and params.name. It checks
 * structure only as far as routing needs (the first byte, brackets and strings), not every value.
 */
export class HeadScanner {
  readonly head: MessageHead = { valid: true, complete: false };
  readonly #open: number[] = [];
  #inString = false;
  #escaped = false;
  /** The top-level key being read or whose value comes; inside params, "params.name" while its name comes. */
  #key = "";
  #capture?: number[];
  #capturingKey = false;

  /** Whether more bytes can tell anything: a late id, or where the object closes (an input cut short is told from an ended one). */
  get wanted(): boolean {
    return this.head.valid && !this.head.complete;
  }

  scan(bytes: Uint8Array): void {
    let i = 0;
    const length = bytes.length;
    while (i < length && this.head.valid && !this.head.complete) {
      if (this.#inString) {
        i = this.#stringPart(bytes, i);
        continue;
      }
      const byte = bytes[i++]!;
      const depth = this.#open.length;
      if (depth === 0) {
        if (byte === OPEN_BRACE) this.#open.push(KEY);
        else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) this.head.valid = false;
        continue;
      }
      const container = this.#open[depth - 1]!;
      if (byte === QUOTE) {
        this.#inString = true;
        const isKey = container === KEY;
        this.#capturingKey = isKey && (depth === 1 || (depth === 2 && this.#key.startsWith("params")));
        const keptValue = !isKey && ((depth === 1 && this.#wantsValue()) || (depth === 2 && this.#key === "params.name"));
        this.#capture = this.#capturingKey || keptValue ? [] : undefined;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        this.#open.push(byte === OPEN_BRACE ? KEY : ARRAY);
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.#endPrimitive();
        this.#open.pop();
        if (depth === 1) this.head.complete = true;
      } else if (byte === COLON) {
        if (container === KEY) this.#open[depth - 1] = VALUE;
        if (depth === 1) this.#startBody();
      } else if (byte === COMMA) {
        this.#endPrimitive();
        if (container === VALUE) this.#open[depth - 1] = KEY;
      } else if (depth === 1 && container === VALUE && this.#wantsValue() && byte > 0x20) {
        // A number (an id) or a literal, read up to the next comma or brace.
        this.#capture ??= [];
        if (this.#capture.length < MAX_CAPTURE_BYTES) this.#capture.push(byte);
      }
    }
  }

  /** The top-level key just read is one whose value the scanner keeps. */
  #wantsValue(): boolean {
    return this.#key === "id" || this.#key === "method";
  }

  /** A top-level value starts: which body it is, if it is one. */
  #startBody(): void {
    if (this.head.body === undefined && (this.#key === "params" || this.#key === "result" || this.#key === "error"))
      this.head.body = this.#key;
  }

  /** Inside a string from `from`: returns where scanning goes on. */
  #stringPart(bytes: Uint8Array, from: number): number {
    let i = from;
    if (this.#escaped) {
      // The byte after a backslash that ended the last piece.
      this.#escaped = false;
      this.#keep(bytes[i]!);
      i++;
    }
    if (this.#capture) return this.#capturedPart(bytes, i);
    const floor = i;
    for (;;) {
      const quote = bytes.indexOf(QUOTE, i);
      if (quote === -1) {
        this.#escaped = bytes.length > floor && oddBackslashesBefore(bytes, bytes.length, floor);
        return bytes.length;
      }
      if (!oddBackslashesBefore(bytes, quote, floor)) return this.#endString(quote + 1);
      i = quote + 1;
    }
  }

  /** A string the scanner keeps (short ones: keys, the id, the method, the tool's name), byte by byte. */
  #capturedPart(bytes: Uint8Array, from: number): number {
    for (let i = from; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (byte === QUOTE) return this.#endString(i + 1);
      this.#keep(byte);
      if (byte === BACKSLASH) {
        if (i + 1 === bytes.length) {
          this.#escaped = true;
          return bytes.length;
        }
        this.#keep(bytes[++i]!);
      }
      // Too long to be routed by: the rest of the string is skipped like any other.
      if (!this.#capture) return this.#stringPart(bytes, i + 1);
    }
    return bytes.length;
  }

  #keep(byte: number): void {
    if (!this.#capture) return;
    if (this.#capture.length >= MAX_CAPTURE_BYTES) this.#capture = undefined;
    else this.#capture.push(byte);
  }

  #endString(next: number): number {
    this.#inString = false;
    const captured = this.#capture;
    const wasKey = this.#capturingKey;
    this.#capture = undefined;
    this.#capturingKey = false;
    const text = captured ? (wasKey ? routingKey(captured) : decodeJsonString(captured)) : undefined;
    if (wasKey) {
      if (this.#open.length === 1) this.#key = text ?? "";
      else this.#key = text === "name" ? "params.name" : "params";
    } else if (text !== undefined) {
      if (this.#key === "params.name") this.head.toolName = text;
      else if (this.#key === "method") this.head.method = text;
      else if (this.#key === "id") this.head.id = text;
    }
    return next;
  }

  /** A primitive top-level value (a number id) ends at a comma or brace. */
  #endPrimitive(): void {
    const captured = this.#capture;
    if (!captured || this.#open.length !== 1) return;
    this.#capture = undefined;
    if (this.#key === "id") {
      const id = decodeJsonNumber(captured);
      if (id !== undefined) this.head.id = id;
    }
  }
}

/** Whether the byte at `at` follows an odd run of backslashes (it is escaped); `floor` bounds the look back. */
function oddBackslashesBefore(bytes: Uint8Array, at: number, floor: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= floor && bytes[i] === BACKSLASH; i--) count++;
  return count % 2 === 1;
}

/** The keys the scanner routes by; any other key is read as "" (it is not decoded). */
const ROUTING_KEYS = ["id", "method", "params", "result", "error", "name"];
const ROUTING_KEY_BYTES = ROUTING_KEYS.map((key) => Array.from(key, (char) => char.charCodeAt(0)));

/** Which routing key a key's bytes spell, matched byte for byte (decoded first only when it has escapes, `"\u0069d"`). */
function routingKey(bytes: number[]): string {
  if (bytes.includes(BACKSLASH)) {
    const text = decodeJsonString(bytes);
    return text !== undefined && ROUTING_KEYS.includes(text) ? text : "";
  }
  for (let k = 0; k < ROUTING_KEY_BYTES.length; k++) {
    const candidate = ROUTING_KEY_BYTES[k]!;
    if (candidate.length !== bytes.length) continue;
    let same = true;
    for (let i = 0; i < bytes.length && same; i++) same = candidate[i] === bytes[i];
    if (same) return ROUTING_KEYS[k]!;
  }
  return "";
}
