// What serve holds of the POST bodies whose answers have not gone out yet: each costs its size (and
// its parsed form) until its response is written, or, for an event stream, until the stream ends. A
// server that never reads, never starts or never answers would otherwise let clients fill serve's
// memory one request at a time; past MAX_WAITING_BODY_BYTES a POST is refused with 503 instead.
// Each 2025 session counts its own (a stuck one refuses no other), the shared 2026-07-28 server one.
import { MAX_WAITING_BODY_BYTES } from "../../lib/wire/limits.ts";
import type { ClientInput } from "../core.ts";
import { pulledAsRead } from "./unread.ts";

/**
 * Whether a server takes what it is sent: its proxy pauses this (as mcp-proxy on stdio stops reading
 * its client) while the server's pipe is full or a restart's queue is. A notification sent while it
 * is paused has its 202 wait for the server, so its body counts as waiting: a server that reads
 * nothing can no longer have notifications poured into serve's memory (200 of 1 MB took a 2025
 * session's serve 346 MB up). As on stdio, the message that fills the pipe is taken at once.
 */
export class ServerIntake implements ClientInput {
  readonly #holds = new Set<string>();
  #waiters: (() => void)[] = [];

  pause(reason = "server"): void {
    this.#holds.add(reason);
  }

  resume(reason = "server"): void {
    this.#holds.delete(reason);
    if (this.#holds.size === 0) for (const taken of this.#waiters.splice(0)) taken();
  }

  /**
   * Sends at once (in order with everything else the client sent), then settles at once if the server
   * was taking input, else once it takes input again.
   */
  async pass(send: () => void): Promise<void> {
    const held = this.#holds.size > 0;
    send();
    if (held && this.#holds.size > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** The server is gone (its session closed): nobody waits for it any more. */
  release(): void {
    this.#holds.clear();
    for (const taken of this.#waiters.splice(0)) taken();
  }
}

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
