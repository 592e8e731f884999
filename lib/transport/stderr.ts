// A server's stderr, read the one way every tool reads it: split into lines (a character cut
// across chunks is never decoded half-way), stripped of control sequences, each line capped, and
// the last STDERR_TAIL_BYTES kept for error reports. What the tool does with a line is its own
// business (prefix it on our stderr, log it, show it in the chat); nothing here piles up.

import { stripControl } from "../io/text.ts";
import { MAX_STDERR_LINE_BYTES, STDERR_TAIL_BYTES } from "../wire/limits.ts";
import { ByteLineSplitter } from "../wire/lines.ts";

export class ServerStderr {
  readonly #splitter: ByteLineSplitter;
  readonly #decoder = new TextDecoder();
  readonly #online?: (line: string) => void;
  #tail: string[] = [];
  #tailBytes = 0;

  constructor(online?: (line: string) => void) {
    this.#online = online;
    this.#splitter = new ByteLineSplitter((line) => this.#line(this.#decoder.decode(line)), {
      maxLineBytes: MAX_STDERR_LINE_BYTES,
      validateUtf8: false,
      onerror: (error) => {
        if (error.kind === "oversize") this.#line(`${error.head}… [a ${error.bytes}-byte line, cut]`);
      },
    });
  }

  push(chunk: Uint8Array): void {
    this.#splitter.push(chunk);
  }

  end(): void {
    this.#splitter.end();
  }

  /** The last lines the server wrote (up to STDERR_TAIL_BYTES), already stripped. */
  get tail(): string {
    return this.#tail.join("\n");
  }

  #line(raw: string): void {
    const line = stripControl(raw);
    if (line.trim() === "") return;
    this.#tail.push(line);
    this.#tailBytes += line.length + 1;
    while (this.#tailBytes > STDERR_TAIL_BYTES && this.#tail.length > 1) this.#tailBytes -= this.#tail.shift()!.length + 1;
    this.#online?.(line);
  }
}
