// What serve has written to an HTTP client's SSE streams that the client has not read yet. The
// SDK's transport queues every event in its stream at once, whatever the socket takes, so a client
// that never reads would let a flooding server fill serve's memory. Each SSE response is passed on
// through a stream that pulls only when the socket wants more, counting what it passes: bytes sent
// minus bytes pulled is what waits. A session past CHANNEL_BUFFER_BYTES has no room, and its
// server is held back until the client reads (or the stream ends, and what it held goes with it).
import { CHANNEL_BUFFER_BYTES } from "../../lib/wire/limits.ts";

/** Room again once the waiting bytes fall to this share of the cap (so it does not flap). */
const ROOM_AGAIN_SHARE = 0.5;

/** One SSE response on its way: the bytes given to it and not yet pulled by the client. */
export class StreamMeter {
  waiting = 0;
  closed = false;
}

/**
 * The response with its body passed on only as the client reads it (nothing read ahead: a chunk leaves
 * the stream below only when the socket asks for one). `onchunk` sees each chunk as it goes; `onend`
 * runs once, when the stream ends, fails (then it ends) or is cancelled (the client went away).
 */
export function pulledAsRead(response: Response, hooks: { onchunk?(chunk: Uint8Array): void; onend(): void }): Response {
  const reader = response.body!.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    hooks.onend();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done || value === undefined) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(value);
        hooks.onchunk?.(value);
      },
      cancel: async (reason) => {
        end();
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export class UnreadBytes {
  readonly #meters = new Map<unknown, StreamMeter>();
  #full = false;
  /** Called once there is room again after there was none. */
  onroom?: () => void;

  /** SSE responses still open: a client waiting on one is not idle. */
  get openStreams(): number {
    return new Set(this.#meters.values()).size;
  }

  get hasRoom(): boolean {
    return !this.#full;
  }

  /** Bytes about to be written to the stream that `key` (a request id, or "standalone") is on. */
  sent(key: unknown, bytes: number): void {
    const meter = this.#meters.get(key);
    if (!meter || meter.closed) return;
    meter.waiting += bytes;
    if (this.#total() > CHANNEL_BUFFER_BYTES) this.#full = true;
  }

  /**
   * The response passed on instead of `response`: an SSE body is pulled only as the client reads,
   * counted against `keys` (what the stream carries). Other responses pass untouched.
   */
  metered(response: Response, keys: unknown[]): Response {
    if (!response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    const meter = new StreamMeter();
    for (const key of keys) this.#meters.set(key, meter);
    return pulledAsRead(response, {
      onchunk: (chunk) => {
        meter.waiting = Math.max(0, meter.waiting - chunk.byteLength);
        this.#check();
      },
      onend: () => {
        meter.closed = true;
        for (const key of keys) if (this.#meters.get(key) === meter) this.#meters.delete(key);
        this.#check();
      },
    });
  }

  #total(): number {
    let total = 0;
    for (const meter of new Set(this.#meters.values())) total += meter.waiting;
    return total;
  }

  #check(): void {
    if (this.#full && this.#total() <= CHANNEL_BUFFER_BYTES * ROOM_AGAIN_SHARE) {
      this.#full = false;
      this.onroom?.();
    }
  }
}
