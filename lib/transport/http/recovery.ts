// What happens when a request's response stream ends before its response. 2025-era Streamable
// HTTP resumes it: a GET with Last-Event-ID after the server's `retry:` delay, when the stream
// gave an event id. 2026-07-28 has no resumption: "A broken response stream loses the in-flight
// request; clients MUST re-issue it as a new request with a new request ID" (changelog, SEP-2575).
// We re-issue only requests that change nothing on the server; a tools/call (or anything else)
// may already have run, so it is answered with an error instead of being run twice. A server that
// keeps breaking its streams gets a bounded number of tries. StreamRecovery runs that loop for an
// HTTP channel, and keeps which new id answers for which caller's id.
import { waitMs } from "../../io/reading.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from "../../wire/jsonrpc.ts";
import { FIRST_MODERN_REVISION } from "../../wire/protocol.ts";

/** Resumptions or re-issues one request may take before it is answered with an error. */
export const MAX_STREAM_RECOVERIES = 3;
/** The wait before a resumption when the server named none (`retry:`), as browsers' EventSource default. */
export const DEFAULT_RESUME_DELAY_MS = 1_000;
/** A server's `retry:` is honoured up to this: a huge value must not hold the request for hours. */
export const MAX_RESUME_DELAY_MS = 30_000;
/** The wait before the n-th re-issue: n times this (a stream that just broke may break again at once). */
export const REISSUE_BACKOFF_MS = 100;
/** Ids we give re-issued requests: disjoint from any a client of ours uses. */
export const REISSUE_ID_PREFIX = "mcpkit-reissue-";

export function resumeDelayMs(retry: number | undefined): number {
  return Math.min(retry ?? DEFAULT_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS);
}

/** Why a request was not sent again after its stream broke. */
export function notReissuedReason(method: string, why: string): string {
  return (
    `${why} before the response; ${method} was not sent again, since the server may already have run it (send it again if that is ` +
    `safe)`
  );
}

/** What reading one SSE stream of a request came to. */
export interface StreamRead {
  answered: boolean;
  /** Messages delivered from it. */
  delivered: number;
  lastEventId: string;
  retry?: number;
  failure?: string;
}

/** What recovery needs of the channel it works for. */
export interface RecoveryHost {
  readSse(response: Response, id: JsonRpcId): Promise<StreamRead>;
  /** The GET that resumes a 2025-era stream after `lastEventId`. */
  resume(lastEventId: string, signal: AbortSignal): Promise<Response>;
  /** POSTs a request again (its stream is followed by a fresh recovery). */
  post(request: JsonRpcRequest, body: string, attempt: number): Promise<void>;
  /** The one answer a request gets when the server's never comes. */
  answerMissing(id: JsonRpcId, why: string): void;
  /** The revision a request in flight was sent under. */
  versionOf(id: JsonRpcId): string | undefined;
  /** The request's own abort signal (cancelled by the caller), joined with the channel's (closed). */
  signalOf(id: JsonRpcId): AbortSignal;
  /** The channel closed, or the caller cancelled this request: nobody wants its answer. */
  abandoned(id: JsonRpcId): boolean;
}

export class StreamRecovery {
  readonly #host: RecoveryHost;
  /** Re-issued requests: our new id → the caller's id, and back. */
  readonly #reissuedFrom = new Map<JsonRpcId, JsonRpcId>();
  readonly #reissuedAs = new Map<JsonRpcId, JsonRpcId>();
  #reissues = 0;

  constructor(host: RecoveryHost) {
    this.#host = host;
  }

  /** The id a caller's request travels under now (its re-issue's, once there is one). */
  currentId(id: JsonRpcId): JsonRpcId {
    return this.#reissuedAs.get(id) ?? id;
  }

  /** A response to a re-issued request, under the id its caller gave it (the same message otherwise). */
  answered(message: JsonRpcMessage): JsonRpcMessage {
    if (!("id" in message) || "method" in message) return message;
    const original = this.#reissuedFrom.get(message.id as JsonRpcId);
    if (original === undefined) return message;
    this.#reissuedFrom.delete(message.id as JsonRpcId);
    this.#reissuedAs.delete(original);
    return { ...message, id: original } as JsonRpcMessage;
  }

  /** A re-issued request given up (cancelled, closed) leaves no alias behind to misroute a later id. */
  forget(id: JsonRpcId): void {
    const original = this.#reissuedFrom.get(id);
    if (original === undefined) return;
    this.#reissuedFrom.delete(id);
    if (this.#reissuedAs.get(original) === id) this.#reissuedAs.delete(original);
  }

  /**
   * A request's response stream, until its response. When it ends first: resumed on 2025-era
   * servers, re-issued (if `body` was kept: it changes nothing) on 2026-07-28 ones, a bounded
   * number of times; else the request is answered with an error saying why.
   */
  async follow(first: Response, request: JsonRpcRequest, body: string | undefined, signal: AbortSignal, attempt: number): Promise<void> {
    const host = this.#host;
    const id = request.id;
    let response = first;
    let lastEventId = "";
    let retry: number | undefined; // as EventSource keeps it: a later stream that names none changes nothing
    for (; ; attempt++) {
      const read = await host.readSse(response, id);
      if (read.answered || host.abandoned(id)) return;
      lastEventId = read.lastEventId || lastEventId;
      retry = read.retry ?? retry;
      // A subscription that carried messages before it ended was working: one that a proxy closes
      // now and then keeps its tries (any other request counts every break).
      if (request.method === "subscriptions/listen" && read.delivered > 0) attempt = 1;
      const why = read.failure ? `the server's SSE stream failed (${read.failure})` : "the server's SSE stream ended";
      if (attempt > MAX_STREAM_RECOVERIES)
        return host.answerMissing(id, `${why} before the response, ${attempt} times; the request was not tried again`);
      const version = host.versionOf(id);
      if (version && version >= FIRST_MODERN_REVISION) return this.#reissue(request, body, why, attempt);
      if (!lastEventId) return host.answerMissing(id, `${why} before the response arrived`);
      try {
        await waitMs(resumeDelayMs(retry), signal);
        signal.throwIfAborted();
        response = await host.resume(lastEventId, signal);
      } catch (error) {
        if (host.abandoned(id)) return;
        return host.answerMissing(id, `${why} before the response, and resuming it failed: ${(error as Error).message}`);
      }
    }
  }

  /** 2026-07-28: a broken stream lost the request; one that changes nothing goes again, under a new id. */
  async #reissue(request: JsonRpcRequest, body: string | undefined, why: string, attempt: number): Promise<void> {
    const host = this.#host;
    if (body === undefined) return host.answerMissing(request.id, notReissuedReason(request.method, why));
    const signal = host.signalOf(request.id);
    await waitMs(REISSUE_BACKOFF_MS * attempt, signal);
    if (signal.aborted) return; // cancelled, or closed, while waiting: nobody wants the answer
    // Only now the new id answers for the caller's: a cancel during the wait found the old one.
    const original = this.#reissuedFrom.get(request.id) ?? request.id;
    const id = `${REISSUE_ID_PREFIX}${++this.#reissues}`;
    this.#reissuedFrom.delete(request.id);
    this.#reissuedFrom.set(id, original);
    this.#reissuedAs.set(original, id);
    const again = { ...(JSON.parse(body) as JsonRpcRequest), id };
    try {
      await host.post(again, JSON.stringify(again), attempt + 1);
    } catch (error) {
      if (!host.abandoned(id))
        host.answerMissing(id, `${why} before the response, and sending it again failed: ${(error as Error).message}`);
    }
  }
}
