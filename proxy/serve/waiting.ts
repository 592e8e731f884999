// What serve holds of the POST bodies whose answers have not gone out yet: each costs its size (and
// its parsed form) until its response is written, or, for an event stream, until the stream ends. A
// server that never reads, never starts or never answers would otherwise let clients fill serve's
// memory one request at a time; past MAX_WAITING_BODY_BYTES a POST is refused with 503 instead.
// Each 2025 session counts its own (a stuck one refuses no other), the shared 2026-07-28 server one.
import { MAX_WAITING_BODY_BYTES } from "../../lib/wire/limits.ts";
import { pulledAsRead } from "./unread.ts";

export class WaitingBodies {
  #bytes = 0;

  get bytes(): number {
    return this.#bytes;
  }

  /** Whether a body of this size may wait now: always when none waits, so one message up to the cap always goes. */
  admits(size: number): boolean {
    return this.#bytes === 0 || this.#bytes + size <= MAX_WAITING_BODY_BYTES;
  }

  /** Counts `size` while `answer` is under way, and then until its response is out (an event stream: until it ends). */
  async hold(size: number, answer: () => Promise<Response>): Promise<Response> {
    this.#bytes += size;
    // Once on each path: a failed answer, a body of its own, or an event stream's end (pulledAsRead ends once).
    const release = () => {
      this.#bytes -= size;
    };
    let response: Response;
    try {
      response = await answer();
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      release();
      return response;
    }
    return pulledAsRead(response, { onend: release });
  }
}
