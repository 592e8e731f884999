// A remote MCP server as a message channel over Streamable HTTP, on both protocol eras, with the
// deprecated HTTP+SSE transport (lib/transport/http/legacy-sse.ts) as a fallback. Every request POSTed gets
// exactly one answer through onmessage (the server's, or one made here when the stream ends
// without it), so callers never wait on a reply that cannot come. Bodies are read with a cap and
// held back while the consumer is slow.

import {
  authorizedFetch,
  fetchWithinOrigin,
  type HttpAuth,
  HttpStatusError,
  readBodyCapped,
  readBodyHead,
  SessionExpiredError,
} from "../../io/fetch.ts";
import { waitMs } from "../../io/reading.ts";
import type { HttpTransportChoice } from "../../targets/target.ts";
import {
  ErrorCode,
  errorResponse,
  isRequest,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  parseMessage,
  type RawMessage,
  rawText,
  TRANSPORT_ERROR_DATA,
  validateMessage,
} from "../../wire/jsonrpc.ts";
import { CHANNEL_BUFFER_BYTES, MAX_ERROR_BODY_BYTES, MAX_MESSAGE_BYTES } from "../../wire/limits.ts";
import { FIRST_MODERN_REVISION, SAFE_TO_REPEAT_METHODS } from "../../wire/protocol.ts";
import { pumpSse, SseParser } from "../../wire/sse.ts";
import type { CloseOptions, MessageChannel } from "../channel.ts";
import { McpHeaders, requestRevision } from "./headers.ts";
import { LegacySseSession } from "./legacy-sse.ts";
import { MAX_STREAM_RECOVERIES, notReissuedReason, REISSUE_BACKOFF_MS, REISSUE_ID_PREFIX, resumeDelayMs } from "./recovery.ts";

export { HttpStatusError };
/** How long a DELETE of the session may take on close before we stop waiting. */
export const SESSION_DELETE_TIMEOUT_MS = 2_000;
/** JSON-RPC errors a 2026-07-28 server sends with a 4xx: they prove a modern server. */
export const MODERN_ERROR_CODES = new Set<number>([
  ErrorCode.UnsupportedProtocolVersion,
  ErrorCode.MissingClientCapability,
  ErrorCode.HeaderMismatch,
  ErrorCode.MethodNotFound,
]);
/** What a Streamable HTTP endpoint of 2025 (or an HTTP+SSE one) answers to a POST it does not take. */
const LEGACY_REFUSALS = [400, 404, 405];

export interface HttpChannelOptions {
  url: string;
  headers?: Record<string, string>;
  transport?: HttpTransportChoice;
  /** 2025 era: open the session's GET stream after `notifications/initialized`, for server-initiated messages. */
  listen?: boolean;
  fetch?: typeof fetch;
  /** OAuth (lib/auth): credentials on every request, and sign-in, refresh and step-up on a refusal. */
  auth?: HttpAuth;
}

export class HttpChannel implements MessageChannel {
  onmessage?: (message: JsonRpcMessage, raw?: RawMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: string) => void;
  ondrain?: () => void;
  /** The 2025 revision an initialize answer negotiated (2026 requests name theirs in _meta). */
  protocolVersion?: string;
  sessionId?: string;

  readonly #options: HttpChannelOptions;
  readonly #fetch: typeof fetch;
  /** Without the OAuth layer: for the DELETE at close. */
  readonly #plainFetch: typeof fetch;
  readonly #aborter = new AbortController();
  readonly #mcpHeaders = new McpHeaders();
  #legacy?: LegacySseSession;
  #closed = false;
  readonly #initializeIds = new Set<JsonRpcId | null>();
  /** One abort switch per request in flight: on 2026-07-28 HTTP, closing the stream is the cancellation. */
  readonly #requestAborters = new Map<JsonRpcId, { aborter: AbortController; version?: string }>();
  readonly #cancelled = new Set<JsonRpcId>();
  readonly #streaming = new Set<JsonRpcId>();
  /** Re-issued requests (2026-07-28, a broken stream): our new id → the caller's id, and back. */
  readonly #reissuedFrom = new Map<JsonRpcId, JsonRpcId>();
  readonly #reissuedAs = new Map<JsonRpcId, JsonRpcId>();
  #reissues = 0;
  /** Bytes of request bodies on their way to the server (backpressure for whoever feeds us). */
  #sending = 0;
  /** While set, no response body is read further: the consumer downstream is slow. */
  #paused?: PromiseWithResolvers<void>;

  constructor(options: HttpChannelOptions) {
    this.#options = options;
    const fetchImpl = options.fetch ?? fetch;
    const withinOrigin = ((url: string | URL, init?: RequestInit) => fetchWithinOrigin(url, init, fetchImpl)) as typeof fetch;
    this.#plainFetch = withinOrigin;
    this.#fetch = options.auth ? authorizedFetch(withinOrigin, options.auth) : withinOrigin;
  }

  get transport(): "streamable-http" | "sse" {
    return this.#legacy ? "sse" : "streamable-http";
  }

  get hasRoom(): boolean {
    return this.#sending < CHANNEL_BUFFER_BYTES;
  }

  pause(): void {
    this.#paused ??= Promise.withResolvers<void>();
  }

  resume(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    paused?.resolve();
  }

  /** Awaited before each read of a response body. */
  readonly #whenReading = (): Promise<void> | undefined => this.#paused?.promise;

  async start(): Promise<void> {
    if (this.#options.transport === "sse") await this.#openLegacy();
  }

  async send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    if (this.#closed) throw new Error("the HTTP channel is closed");
    const body = raw === undefined ? JSON.stringify(message) : rawText(raw);
    this.#sending += body.length;
    try {
      await this.#sendBody(message, body);
    } finally {
      const wasFull = !this.hasRoom;
      this.#sending -= body.length;
      if (wasFull && this.hasRoom) this.ondrain?.();
    }
  }

  async #sendBody(message: JsonRpcMessage, body: string): Promise<void> {
    if (isRequest(message) && message.method === "initialize") this.#initializeIds.add(message.id);
    this.#mcpHeaders.sent(message, this.#versionOf(message));
    if (this.#legacy) return this.#legacy.post(body);
    try {
      await this.#post(message, body);
      if (this.#options.listen && this.sessionId && "method" in message && message.method === "notifications/initialized") {
        void this.#listen(this.sessionId);
      }
    } catch (error) {
      // A server that answers initialize with 400/404/405 and no modern error may be a
      // 2024-11-05 HTTP+SSE server: try that transport before giving up (spec: backward compatibility).
      const fallback =
        this.#options.transport !== "streamable-http" &&
        error instanceof HttpStatusError &&
        LEGACY_REFUSALS.includes(error.status) &&
        isRequest(message) &&
        message.method === "initialize";
      if (!fallback) throw error;
      try {
        await this.#openLegacy();
      } catch {
        throw error;
      }
      await this.#legacy!.post(body);
    }
  }

  /**
   * 2026-07-28 requests are cancelled by closing their stream. Earlier ones need a notification
   * (false), but their stream is closed too: nobody waits for that answer any more.
   */
  cancel(id: JsonRpcId): boolean {
    id = this.#reissuedAs.get(id) ?? id;
    const request = this.#requestAborters.get(id);
    if (!request) return false;
    this.#cancelled.add(id);
    request.aborter.abort();
    return Boolean(request.version && request.version >= FIRST_MODERN_REVISION);
  }

  async close(_options?: CloseOptions): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#aborter.abort();
    this.resume();
    if (this.sessionId && !this.#legacy) {
      // With the credentials as they stand: closing must never start a refresh or a sign-in.
      const timeout = AbortSignal.timeout(SESSION_DELETE_TIMEOUT_MS);
      const authorization = this.#options.auth?.current?.();
      const headers = { ...this.#headers(), ...(authorization ? { Authorization: authorization } : {}) };
      await this.#plainFetch(this.#options.url, { method: "DELETE", headers, signal: timeout }).catch(() => {});
    }
    this.onclose?.("the HTTP channel was closed");
  }

  async #openLegacy(): Promise<void> {
    const legacy = new LegacySseSession({
      url: this.#options.url,
      headers: this.#options.headers ?? {},
      fetch: this.#fetch,
      signal: this.#aborter.signal,
      deliver: (message, raw) => this.#deliver(message, raw),
      onerror: (error) => this.onerror?.(error),
      onclose: (reason) => {
        if (this.#closed) return;
        this.#closed = true;
        this.onclose?.(reason);
      },
      whenReading: this.#whenReading,
    });
    await legacy.open();
    this.#legacy = legacy;
  }

  /** Hands a message on, noting the revision an initialize answer negotiated (for the headers). */
  #deliver(message: JsonRpcMessage, raw?: string): void {
    if ("result" in message && this.#initializeIds.delete(message.id)) {
      const version = message.result.protocolVersion;
      if (typeof version === "string") this.protocolVersion = version;
    }
    const kept = this.#mcpHeaders.toolsToKeep(message, (error) => this.onerror?.(error));
    if (kept && "result" in message) {
      message = { ...message, result: { ...message.result, tools: kept } };
      raw = undefined;
    }
    // The answer to a re-issued request goes out under the id its caller gave it.
    const answered = isResponse(message) ? (message.id as JsonRpcId) : undefined;
    const original = answered === undefined ? undefined : this.#reissuedFrom.get(answered);
    if (original !== undefined) {
      this.#reissuedFrom.delete(answered!);
      this.#reissuedAs.delete(original);
      message = { ...message, id: original } as JsonRpcMessage;
      raw = undefined;
    }
    this.onmessage?.(message, raw);
  }

  #versionOf(message?: JsonRpcMessage): string | undefined {
    return requestRevision(message) ?? this.protocolVersion;
  }

  #headers(message?: JsonRpcMessage): Record<string, string> {
    return { ...this.#options.headers, ...this.#mcpHeaders.headers(message, this.#versionOf(message), this.sessionId) };
  }

  async #post(message: JsonRpcMessage, body: string, attempt = 1): Promise<void> {
    const requestId = isRequest(message) ? message.id : undefined;
    let signal = this.#aborter.signal;
    if (requestId !== undefined) {
      const aborter = new AbortController();
      this.#requestAborters.set(requestId, { aborter, version: this.#versionOf(message) });
      signal = AbortSignal.any([signal, aborter.signal]);
    }
    try {
      await this.#exchange(message, body, requestId, signal, attempt);
    } catch (error) {
      if (requestId !== undefined && this.#cancelled.has(requestId)) return;
      throw error;
    } finally {
      if (requestId !== undefined && !this.#streaming.has(requestId)) this.#forget(requestId);
    }
  }

  #forget(id: JsonRpcId): void {
    this.#requestAborters.delete(id);
    // A re-issued request given up (cancelled, closed) leaves no alias behind to misroute a later id.
    if (this.#cancelled.delete(id)) this.#dropAlias(id);
    this.#streaming.delete(id);
  }

  #dropAlias(id: JsonRpcId): void {
    const original = this.#reissuedFrom.get(id);
    if (original === undefined) return;
    this.#reissuedFrom.delete(id);
    if (this.#reissuedAs.get(original) === id) this.#reissuedAs.delete(original);
  }

  async #exchange(
    message: JsonRpcMessage,
    body: string,
    requestId: JsonRpcId | undefined,
    signal: AbortSignal,
    attempt: number,
  ): Promise<void> {
    const sentSession = this.sessionId;
    const response = await this.#fetch(this.#options.url, {
      method: "POST",
      headers: { ...this.#headers(message), "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body,
      signal,
    });
    const session = response.headers.get("mcp-session-id");
    if (session && isRequest(message) && message.method === "initialize") this.sessionId = session;

    if (!response.ok) {
      const reply = await readBodyHead(response, MAX_ERROR_BODY_BYTES);
      const rpc = jsonRpcErrorIn(reply);
      if (requestId !== undefined && rpc && (rpc.id === requestId || MODERN_ERROR_CODES.has(rpc.error.code))) {
        this.#deliver({ ...rpc, id: requestId });
        return;
      }
      // A 4xx without a modern error to server/discover is a 2025-era server: it is answered as a
      // stdio one would (method not found), so every client falls back to initialize, on our
      // transport or, past another 4xx there, on HTTP+SSE.
      if (
        requestId !== undefined &&
        isRequest(message) &&
        message.method === "server/discover" &&
        LEGACY_REFUSALS.includes(response.status) &&
        !sentSession
      ) {
        this.#deliver(
          errorResponse(
            requestId,
            ErrorCode.MethodNotFound,
            `server/discover is not known here (HTTP ${response.status}): a 2025-era server`,
          ),
        );
        return;
      }
      // Every request sent under the lost session learns it, not only the first to hear the 404.
      if (response.status === 404 && sentSession) {
        if (this.sessionId === sentSession) this.sessionId = undefined;
        throw new SessionExpiredError(sentSession, reply, this.#options.url);
      }
      if (response.status === 401 && hasAuthorization(this.#options.headers)) {
        const why =
          `${new URL(this.#options.url).origin} rejected the configured Authorization header with HTTP 401 (fix the header, ` +
          `or remove it to sign in with OAuth)`;
        throw new HttpStatusError(401, reply, this.#options.url, why);
      }
      throw new HttpStatusError(response.status, reply, this.#options.url);
    }
    if (requestId === undefined || response.status === 202) {
      await response.body?.cancel().catch(() => {});
      if (requestId !== undefined) this.#answerMissing(requestId, "the server accepted the request but sent no response");
      return;
    }
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream")) {
      // Read in the background: progress and logging arrive before the response.
      this.#streaming.add(requestId);
      // Only a request that may be sent again keeps its body for the stream's life.
      const kept = isRequest(message) && SAFE_TO_REPEAT_METHODS.has(message.method) ? body : undefined;
      void this.#followStream(response, message as JsonRpcRequest, kept, signal, attempt).finally(() => this.#forget(requestId));
      return;
    }
    const reply = await readBodyCapped(response, MAX_MESSAGE_BYTES, this.#whenReading);
    if (!reply.ok) {
      this.#answerMissing(requestId, `the server's answer was over the ${MAX_MESSAGE_BYTES}-byte limit; it was not read further`);
      return;
    }
    if (!this.#deliverJson(reply.value)) {
      this.#answerMissing(requestId, `the server answered with ${type || "no content type"} that holds no JSON-RPC response`);
    }
  }

  /** Delivers a JSON body (one message or a batch); false when nothing in it was usable. */
  #deliverJson(body: string): boolean {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return false;
    }
    let delivered = false;
    const single = !Array.isArray(value);
    for (const item of single ? [value] : (value as unknown[])) {
      const checked = validateMessage(item);
      if (checked.ok) {
        this.#deliver(checked.value, single ? body : undefined);
        delivered = true;
      } else {
        this.onerror?.(new Error(`skipped a message from the server that is not JSON-RPC (${checked.error})`));
      }
    }
    return delivered;
  }

  /**
   * A request's response stream, until its response. When it ends first: resumed on 2025-era
   * servers, re-issued (if it changes nothing) on 2026-07-28 ones, a bounded number of times;
   * else the request is answered with an error saying why.
   */
  async #followStream(
    first: Response,
    request: JsonRpcRequest,
    body: string | undefined,
    signal: AbortSignal,
    attempt: number,
  ): Promise<void> {
    const id = request.id;
    let response = first;
    let lastEventId = "";
    let retry: number | undefined; // as EventSource keeps it: a later stream that names none changes nothing
    for (; ; attempt++) {
      const read = await this.#readSse(response, id);
      if (read.answered || this.#closed || this.#cancelled.has(id)) return;
      lastEventId = read.lastEventId || lastEventId;
      retry = read.retry ?? retry;
      // A subscription that carried messages before it ended was working: one that a proxy closes
      // now and then keeps its tries (any other request counts every break).
      if (request.method === "subscriptions/listen" && read.delivered > 0) attempt = 1;
      const why = read.failure ? `the server's SSE stream failed (${read.failure})` : "the server's SSE stream ended";
      if (attempt > MAX_STREAM_RECOVERIES)
        return this.#answerMissing(id, `${why} before the response, ${attempt} times; the request was not tried again`);
      const version = this.#requestAborters.get(id)?.version;
      if (version && version >= FIRST_MODERN_REVISION) return this.#reissue(request, body, why, attempt);
      if (!lastEventId) return this.#answerMissing(id, `${why} before the response arrived`);
      try {
        await waitMs(resumeDelayMs(retry), signal);
        signal.throwIfAborted();
        response = await this.#resume(lastEventId, signal);
      } catch (error) {
        if (this.#closed || this.#cancelled.has(id)) return;
        return this.#answerMissing(id, `${why} before the response, and resuming it failed: ${(error as Error).message}`);
      }
    }
  }

  /** 2025-era resumption: the events after `lastEventId`, on a GET the server may answer on. */
  async #resume(lastEventId: string, signal: AbortSignal): Promise<Response> {
    const response = await this.#fetch(this.#options.url, {
      method: "GET",
      headers: { ...this.#headers(), Accept: "text/event-stream", "Last-Event-ID": lastEventId },
      signal,
    });
    if (response.ok && (response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    await response.body?.cancel().catch(() => {});
    throw new Error(`HTTP ${response.status}${response.ok ? ` with ${response.headers.get("content-type") || "no content type"}` : ""}`);
  }

  /** 2026-07-28: a broken stream lost the request; one that changes nothing goes again, under a new id. */
  async #reissue(request: JsonRpcRequest, body: string | undefined, why: string, attempt: number): Promise<void> {
    if (body === undefined) return this.#answerMissing(request.id, notReissuedReason(request.method, why));
    const signal = this.#requestAborters.get(request.id)?.aborter.signal ?? this.#aborter.signal;
    try {
      const either = AbortSignal.any([signal, this.#aborter.signal]);
      await waitMs(REISSUE_BACKOFF_MS * attempt, either);
      either.throwIfAborted();
    } catch {
      return; // cancelled, or closed, while waiting: nobody wants the answer
    }
    // Only now the new id answers for the caller's: a cancel during the wait found the old one.
    const original = this.#reissuedFrom.get(request.id) ?? request.id;
    const id = `${REISSUE_ID_PREFIX}${++this.#reissues}`;
    this.#reissuedFrom.delete(request.id);
    this.#reissuedFrom.set(id, original);
    this.#reissuedAs.set(original, id);
    const again = { ...(JSON.parse(body) as JsonRpcRequest), id };
    try {
      await this.#post(again, JSON.stringify(again), attempt + 1);
    } catch (error) {
      if (!this.#closed && !this.#cancelled.has(id))
        this.#answerMissing(id, `${why} before the response, and sending it again failed: ${(error as Error).message}`);
    }
  }

  async #readSse(
    response: Response,
    requestId?: JsonRpcId,
  ): Promise<{ answered: boolean; delivered: number; lastEventId: string; retry?: number; failure?: string }> {
    let answered = false;
    let delivered = 0;
    const parser = new SseParser(
      (event) => {
        if (event.event !== "message") return;
        const parsed = parseMessage(event.data);
        if (!parsed.ok) {
          this.onerror?.(new Error(`skipped an SSE event that is not JSON-RPC (${parsed.error})`));
          return;
        }
        if (isResponse(parsed.value) && parsed.value.id === requestId) answered = true;
        delivered++;
        this.#deliver(parsed.value, event.data);
      },
      {
        onerror: (error) => {
          this.onerror?.(new Error(`dropped a ${error.bytes}-byte SSE event (over the ${MAX_MESSAGE_BYTES}-byte limit)`));
          // On a request's own stream that event was most likely its answer: the request is
          // answered with the error, and the stream closed (pumpSse stops once answered).
          if (requestId !== undefined && !answered) {
            answered = true;
            this.#answerMissing(requestId, `the server sent an SSE event over the ${MAX_MESSAGE_BYTES}-byte limit; its stream was closed`);
          }
        },
      },
    );
    let failure: string | undefined;
    try {
      await pumpSse(response, parser, () => answered, this.#whenReading);
    } catch (error) {
      failure = (error as Error).message;
      if (!this.#closed && !(requestId !== undefined && this.#cancelled.has(requestId)))
        this.onerror?.(new Error(`the server's SSE stream failed: ${failure}`));
    }
    return { answered, delivered, lastEventId: parser.lastEventId, retry: parser.retry, ...(failure !== undefined ? { failure } : {}) };
  }

  /** The 2025-era standalone GET stream: server requests and notifications outside any POST. */
  async #listen(session: string): Promise<void> {
    let response: Response;
    try {
      response = await this.#fetch(this.#options.url, {
        method: "GET",
        headers: { ...this.#headers(), Accept: "text/event-stream" },
        signal: this.#aborter.signal,
      });
    } catch (error) {
      if (!this.#closed) this.onerror?.(new Error(`could not open the server's event stream: ${(error as Error).message}`));
      return;
    }
    // 405: the server offers no standalone stream, which the spec allows.
    if (!response.ok || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    await this.#readSse(response);
    if (!this.#closed && this.sessionId === session) this.onerror?.(new Error("the server closed its event stream"));
  }

  /** The answer for a request the server left unanswered, marked as ours (not the server's). */
  #answerMissing(id: JsonRpcId, why: string): void {
    this.#deliver(errorResponse(id, ErrorCode.ConnectionClosed, why, TRANSPORT_ERROR_DATA));
  }
}

function jsonRpcErrorIn(
  body: string,
): { jsonrpc: "2.0"; id: JsonRpcId | null; error: { code: number; message: string; data?: unknown } } | undefined {
  const parsed = parseMessage(body);
  if (!parsed.ok || !("error" in parsed.value)) return undefined;
  return parsed.value;
}

function hasAuthorization(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "authorization");
}
