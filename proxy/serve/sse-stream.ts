// One SSE response body of a 2025 session (a POST's stream, the GET stream, a resumed one): events
// in the format of the Streamable HTTP transport, with a comment now and then so that a front
// (nginx, a load balancer) does not end a stream that is quiet because the server is.

/** How often a quiet stream says something (as the SDK's transport does). */
export const KEEPALIVE_MS = 15_000;

const encoder = new TextEncoder();

export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  /** The client went away (its connection closed): nothing more can be written. */
  oncancel?: () => void;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #keepAlive: ReturnType<typeof setInterval>;
  #closed = false;
  #said = false;

  constructor() {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#end();
        this.oncancel?.();
      },
    });
    this.#keepAlive = setInterval(() => this.#write(": keepalive\n\n"), KEEPALIVE_MS);
    this.#keepAlive.unref?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A comment, unless something was written already: Bun.serve sends a streamed response's headers
   * with its first bytes, and a client (or a front) waiting for the headers of a quiet stream would
   * wait until the first keep-alive.
   */
  open(): void {
    if (!this.#said) this.#write(": open\n\n");
  }

  /** An event with no data: it only gives the stream an id to resume from. */
  prime(id: string): void {
    this.#write(`id: ${id}\ndata: \n\n`);
  }

  /** One JSON-RPC message (`data` is one line of JSON). */
  event(id: string, data: string): void {
    this.#write(`event: message\nid: ${id}\ndata: ${data}\n\n`);
  }

  close(): void {
    if (this.#closed) return;
    this.#end();
    try {
      this.#controller.close();
    } catch {
      // Cancelled by the client meanwhile.
    }
  }

  #write(text: string): void {
    if (this.#closed) return;
    this.#said = true;
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch {
      this.#end();
    }
  }

  #end(): void {
    this.#closed = true;
    clearInterval(this.#keepAlive);
  }
}
