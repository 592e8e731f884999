// Server-Sent Events, as the HTML standard's "event stream interpretation" defines it: lines end
// in CRLF, LF or CR (a CR at the end of one chunk may pair with an LF at the start of the next), a
// leading BOM is dropped once, ':' lines are comments, a blank line dispatches the event, and an
// event cut off by the end of the stream is discarded. Used by Streamable HTTP and legacy HTTP+SSE.

import { MAX_MESSAGE_BYTES } from "./limits.ts";

/** An event's data larger than this is dropped with an error rather than buffered without end. */
export const MAX_EVENT_BYTES = MAX_MESSAGE_BYTES;

export interface SseEvent {
  /** "message" unless the stream named another type. */
  event: string;
  data: string;
  /** The last event id seen on the stream, as the standard carries it forward. */
  id: string;
  retry?: number;
}

export interface SseParserOptions {
  maxEventBytes?: number;
  onerror?: (error: { kind: "oversize"; bytes: number }) => void;
}

export class SseParser {
  readonly #maxEventBytes: number;
  readonly #onerror: (error: { kind: "oversize"; bytes: number }) => void;
  readonly #decoder = new TextDecoder("utf-8");
  #lineParts: string[] = [];
  #lineLength = 0;
  #afterCR = false;
  #sawFirstChunk = false;
  #eventType = "";
  #data: string[] = [];
  #dataLength = 0;
  #oversize = false;
  /** The current event's oversize was reported (at once, not when the event finally ends). */
  #reported = false;
  #lastEventId = "";
  #retry: number | undefined;

  constructor(
    readonly onevent: (event: SseEvent) => void,
    options: SseParserOptions = {},
  ) {
    this.#maxEventBytes = options.maxEventBytes ?? MAX_EVENT_BYTES;
    this.#onerror = options.onerror ?? (() => {});
  }

  /** The last event id the stream gave (an empty string for none): where a resumption starts. */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** The reconnection delay the stream asked for, if it did. */
  get retry(): number | undefined {
    return this.#retry;
  }

  push(chunk: Uint8Array | string): void {
    let text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (!this.#sawFirstChunk && text.length > 0) {
      this.#sawFirstChunk = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length === 0) return;
    let start = 0;
    if (this.#afterCR && text.charCodeAt(0) === 10) start = 1;
    this.#afterCR = false;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      this.#appendToLine(text.slice(start, i));
      this.#finishLine();
      if (code === 13) {
        if (i + 1 === text.length) this.#afterCR = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#appendToLine(text.slice(start));
  }

  /** The stream ended: an incomplete event is discarded, as the standard says. */
  end(): void {
    const tail = this.#decoder.decode();
    if (tail) this.push(tail);
    this.#lineParts = [];
    this.#lineLength = 0;
    this.#resetEvent();
  }

  #appendToLine(piece: string): void {
    if (piece.length === 0) return;
    this.#lineLength += piece.length;
    if (this.#lineLength > this.#maxEventBytes) {
      // Keep counting but stop buffering: the line, and so its event, will be dropped. It is
      // reported now: a line that never ends must not leave its reader waiting for its end.
      this.#lineParts = [];
      this.#report(this.#lineLength);
      return;
    }
    this.#lineParts.push(piece);
  }

  #finishLine(): void {
    const tooLong = this.#lineLength > this.#maxEventBytes;
    const line = this.#lineParts.length === 1 ? this.#lineParts[0]! : this.#lineParts.join("");
    this.#lineParts = [];
    this.#lineLength = 0;
    if (tooLong) {
      this.#oversize = true;
      this.#data = [];
      return;
    }
    if (line.length === 0) return this.#dispatch();
    if (line.charCodeAt(0) === 58 /* ':' */) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.#field(field, value);
  }

  #field(field: string, value: string): void {
    switch (field) {
      case "event":
        this.#eventType = value;
        return;
      case "data":
        if (this.#oversize) return;
        this.#dataLength += value.length + 1;
        if (this.#dataLength > this.#maxEventBytes) {
          this.#oversize = true;
          this.#data = [];
          this.#report(this.#dataLength);
          return;
        }
        this.#data.push(value);
        return;
      case "id":
        if (!value.includes("\0")) this.#lastEventId = value;
        return;
      case "retry":
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        return;
    }
  }

  #dispatch(): void {
    if (this.#oversize) {
      this.#report(this.#dataLength);
    } else if (this.#data.length > 0) {
      const event: SseEvent = {
        event: this.#eventType || "message",
        data: this.#data.join("\n"),
        id: this.#lastEventId,
      };
      if (this.#retry !== undefined) event.retry = this.#retry;
      this.onevent(event);
    }
    this.#resetEvent();
  }

  #report(bytes: number): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#onerror({ kind: "oversize", bytes });
  }

  #resetEvent(): void {
    this.#reported = false;
    this.#eventType = "";
    this.#data = [];
    this.#dataLength = 0;
    this.#oversize = false;
  }
}

/**
 * Feeds a response body to a parser until it ends, or until `enough` says so (then cancels it);
 * `wait` holds each read back while the consumer downstream is slow.
 */
export async function pumpSse(
  response: Response,
  parser: SseParser,
  enough: () => boolean = () => false,
  wait?: () => Promise<void> | undefined,
): Promise<void> {
  const reader = response.body!.getReader();
  for (;;) {
    await wait?.();
    const { done, value } = await reader.read();
    if (done) break;
    parser.push(value);
    if (enough()) {
      await reader.cancel().catch(() => {});
      return;
    }
  }
  parser.end();
}
