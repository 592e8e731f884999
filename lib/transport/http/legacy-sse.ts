// The deprecated HTTP+SSE transport of 2024-11-05, which a Streamable HTTP channel falls back to:
// a GET opens the event stream, whose first event names the endpoint every message is POSTed to;
// every answer comes on the stream.
import { HttpStatusError, readBodyHead } from "../../io/fetch.ts";
import { type JsonRpcMessage, parseMessage } from "../../wire/jsonrpc.ts";
import { MAX_ERROR_BODY_BYTES } from "../../wire/limits.ts";
import { pumpSse, SseParser } from "../../wire/sse.ts";

/** How long to wait for the `endpoint` event of a legacy HTTP+SSE server. */
export const SSE_ENDPOINT_TIMEOUT_MS = 10_000;

export interface LegacySseOptions {
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  signal: AbortSignal;
  deliver: (message: JsonRpcMessage, raw: string) => void;
  onerror: (error: Error) => void;
  /** The stream ended: the connection is over. */
  onclose: (reason: string) => void;
  /** Awaited before each read (backpressure). */
  whenReading: () => Promise<void> | undefined;
}

export class LegacySseSession {
  readonly #options: LegacySseOptions;
  #endpoint?: string;

  constructor(options: LegacySseOptions) {
    this.#options = options;
  }

  /** Opens the stream and waits for the endpoint; refuses one on another origin. */
  async open(): Promise<void> {
    const { url, headers, signal } = this.#options;
    const response = await this.#options.fetch(url, { method: "GET", headers: { ...headers, Accept: "text/event-stream" }, signal });
    if (!response.ok || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      await response.body?.cancel().catch(() => {});
      throw new HttpStatusError(response.status, "not an HTTP+SSE endpoint", url);
    }
    const endpoint = Promise.withResolvers<string>();
    const timer = setTimeout(() => endpoint.reject(new Error("no endpoint event from the SSE server")), SSE_ENDPOINT_TIMEOUT_MS);
    const parser = new SseParser((event) => {
      if (event.event === "endpoint") {
        endpoint.resolve(new URL(event.data.trim(), url).href);
        return;
      }
      if (event.event !== "message") return;
      const parsed = parseMessage(event.data);
      if (parsed.ok) this.#options.deliver(parsed.value, event.data);
      else this.#options.onerror(new Error(`skipped an SSE event that is not JSON-RPC (${parsed.error})`));
    });
    void (async () => {
      try {
        await pumpSse(response, parser, undefined, this.#options.whenReading);
      } catch {
        // Reported below as the stream's end.
      }
      endpoint.reject(new Error("the SSE stream ended before the endpoint event"));
      this.#options.onclose("the server closed the SSE stream");
    })();
    try {
      this.#endpoint = await endpoint.promise;
    } finally {
      clearTimeout(timer);
    }
    if (new URL(this.#endpoint).origin !== new URL(url).origin) {
      throw new Error(`the SSE server named an endpoint on another origin (${this.#endpoint})`);
    }
  }

  /** POSTs one message to the endpoint; its answer comes on the stream. */
  async post(body: string): Promise<void> {
    const endpoint = this.#endpoint!;
    const response = await this.#options.fetch(endpoint, {
      method: "POST",
      headers: { ...this.#options.headers, "Content-Type": "application/json" },
      body,
      signal: this.#options.signal,
    });
    const reply = await readBodyHead(response, MAX_ERROR_BODY_BYTES);
    if (!response.ok) throw new HttpStatusError(response.status, reply, endpoint);
  }
}
