// A remote MCP server as a message channel over Streamable HTTP, on both protocol eras, with the
// deprecated HTTP+SSE transport (lib/transport/http/legacy-sse.ts) as a fallback. Every request
// POSTed gets exactly one answer through onmessage (the server's, or one made here when the stream
// ends without it), so callers never wait on a reply that cannot come. Bodies are read with a cap
// and held back while the consumer is slow.
// One concept past 250 lines: one HTTP session and the requests in flight on it (their abort
// switches, their streams, the headers each carries). What a body holds is bodies.ts, what a
// refusal means refusals.ts, a broken stream recovery.ts, the 2026-07-28 headers headers.ts.
import {
  authorizedFetch,
  fetchWithinOrigin,
  type HttpAuth,
  HttpStatusError,
  readBodyCapped,
  readBodyHead,
  SessionExpiredError,
} from "../../io/fetch.ts";
import type { HttpTransportChoice } from "../../targets/target.ts";
import {
  ErrorCode,
  errorResponse,
  isRequest,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RawMessage,
  rawText,
  TRANSPORT_ERROR_DATA,
} from "../../wire/jsonrpc.ts";
import { CHANNEL_BUFFER_BYTES, MAX_ERROR_BODY_BYTES, MAX_MESSAGE_BYTES } from "../../wire/limits.ts";
import { FIRST_MODERN_REVISION, SAFE_TO_REPEAT_METHODS } from "../../wire/protocol.ts";
import type { CloseOptions, MessageChannel } from "../channel.ts";
import { deliverJson, readSseStream } from "./bodies.ts";
import { McpHeaders, requestRevision } from "./headers.ts";
import { LegacySseSession } from "./legacy-sse.ts";
import { type StreamRead, StreamRecovery } from "./recovery.ts";
import { hasAuthorization, LEGACY_REFUSALS, refusalOf } from "./refusals.ts";
import { ToolListing } from "./tool-listing.ts";

export { HttpStatusError };
/** How long a DELETE of the session may take on close before we stop waiting. */
export const SESSION_DELETE_TIMEOUT_MS = 2_000;
/**
 * After notifications/initialized, what the client sends next waits (at most this long) for the
 * standalone GET stream to open: a server that asks something on it at once would otherwise ask
 * into no stream, and the question is lost (a call then waits for its answer until it times out).
 * Bounded, for a server that sends a stream's headers only with its first event.
 */
export const LISTEN_OPEN_WAIT_MS = 500;

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
  onuserwait?: (waiting: boolean) => void;
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
  /** While an initialize is unanswered, whatever comes next waits: the session it makes must be on it. */
  #handshake?: PromiseWithResolvers<void>;
  /** One abort switch per request in flight: on 2026-07-28 HTTP, closing the stream is the cancellation. */
  readonly #requestAborters = new Map<JsonRpcId, { aborter: AbortController; version?: string }>();
  readonly #cancelled = new Set<JsonRpcId>();
  readonly #streaming = new Set<JsonRpcId>();
  /** Streams that break before their response: resumed, re-issued, or answered with why not. */
  readonly #recovery = new StreamRecovery({
    readSse: (response, id) => this.#readSse(response, id),
    resume: (lastEventId, signal) => this.#resume(lastEventId, signal),
    post: (request, body, attempt) => this.#post(request, body, attempt),
    answerMissing: (id, why) => this.#answerMissing(id, why),
    versionOf: (id) => this.#requestAborters.get(id)?.version,
    signalOf: (id) => AbortSignal.any([this.#requestAborters.get(id)?.aborter.signal ?? this.#aborter.signal, this.#aborter.signal]),
    abandoned: (id) => this.#closed || this.#cancelled.has(id),
  });
  /** The tools listed by the channel itself, for the headers of a call to a tool nobody listed here. */
  readonly #toolListing = new ToolListing({
    post: (request) => {
      this.#mcpHeaders.sent(request, this.#versionOf(request));
      return this.#post(request, JSON.stringify(request));
    },
    knows: (tool) => this.#mcpHeaders.knows(tool),
    cancel: (id) => this.cancel(id),
  });
  /** Calls waiting for that listing: a cancel before they leave means they never do. */
  readonly #held = new Map<JsonRpcId, AbortController>();
  /** Bytes of request bodies on their way to the server (backpressure for whoever feeds us). */
  #sending = 0;
  /** From notifications/initialized until the standalone GET stream is open (or the wait is over). */
  #opening?: { promise: Promise<void>; resolve(): void };
  /** While set, no response body is read further: the consumer downstream is slow. */
  #paused?: PromiseWithResolvers<void>;

  constructor(options: HttpChannelOptions) {
    this.#options = options;
    const fetchImpl = options.fetch ?? fetch;
    const withinOrigin = ((url: string | URL, init?: RequestInit) => fetchWithinOrigin(url, init, fetchImpl)) as typeof fetch;
    this.#plainFetch = withinOrigin;
    this.#fetch = options.auth ? authorizedFetch(withinOrigin, options.auth) : withinOrigin;
    options.auth?.watchUserWait?.((waiting) => this.onuserwait?.(waiting));
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
    if (isRequest(message) && message.method === "initialize") {
      this.#initializeIds.add(message.id);
      this.#handshake ??= Promise.withResolvers<void>();
      try {
        await this.#sendNow(message, body);
      } catch (error) {
        // Never sent (refused, a sign-in needed): no answer is coming, so nothing waits on one.
        this.#initializeIds.delete(message.id);
        this.#handshakeDone();
        throw error;
      }
      if (!this.#initializeIds.has(message.id) || this.#closed) this.#handshakeDone();
      return;
    }
    // Held in the order sent (promise reactions run in the order they were registered); an answer to
    // the server is not, for a server that asks something before it answers initialize.
    if (this.#handshake && "method" in message) await this.#handshake.promise;
    if (this.#closed) throw new Error("the HTTP channel is closed");
    if (isInitialized(message) && this.#options.listen && !this.#legacy) this.#opening ??= this.#openingWait();
    else if (this.#opening && "method" in message) await this.#opening.promise;
    return this.#sendNow(message, body);
  }

  /** The wait for the GET stream: over when it opens, when it cannot, or after LISTEN_OPEN_WAIT_MS. */
  #openingWait(): { promise: Promise<void>; resolve(): void } {
    const waiting = Promise.withResolvers<void>();
    const timer = setTimeout(() => done(), LISTEN_OPEN_WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      if (this.#opening?.promise === waiting.promise) this.#opening = undefined;
      waiting.resolve();
    };
    return { promise: waiting.promise, resolve: done };
  }

  #handshakeDone(): void {
    this.#handshake?.resolve();
    this.#handshake = undefined;
  }

  async #sendNow(message: JsonRpcMessage, body: string): Promise<void> {
    const unknownTool = this.#legacy ? undefined : this.#toolListing.unknownTool(message, this.#versionOf(message));
    if (unknownTool && isRequest(message)) {
      const giveUp = new AbortController();
      this.#held.set(message.id, giveUp);
      try {
        await this.#toolListing.before(message, unknownTool, giveUp.signal);
      } finally {
        this.#held.delete(message.id);
      }
      if (giveUp.signal.aborted || this.#closed) return;
    }
    this.#mcpHeaders.sent(message, this.#versionOf(message));
    if (this.#legacy) return this.#legacy.post(body);
    try {
      await this.#post(message, body);
      if (this.#options.listen && this.sessionId && isInitialized(message)) void this.#listen(this.sessionId);
      else if (isInitialized(message)) this.#opening?.resolve();
    } catch (error) {
      if (isInitialized(message)) this.#opening?.resolve();
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
    const held = this.#held.get(id);
    if (held) {
      // Not sent yet: it never will be, which cancels it on any revision.
      held.abort();
      return true;
    }
    id = this.#recovery.currentId(id);
    const request = this.#requestAborters.get(id);
    if (!request) return false;
    this.#cancelled.add(id);
    request.aborter.abort();
    return Boolean(request.version && request.version >= FIRST_MODERN_REVISION);
  }

  async close(_options?: CloseOptions): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#opening?.resolve();
    this.#aborter.abort();
    this.#toolListing.abandon();
    this.#handshakeDone();
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
    if (("result" in message || "error" in message) && this.#initializeIds.delete(message.id)) {
      const version = "result" in message ? message.result.protocolVersion : undefined;
      if (typeof version === "string") this.protocolVersion = version;
      this.#handshakeDone();
    }
    const kept = this.#mcpHeaders.toolsToKeep(message, (error) => this.onerror?.(error));
    if (kept && "result" in message) {
      message = { ...message, result: { ...message.result, tools: kept } };
      raw = undefined;
    }
    // The answer to a re-issued request goes out under the id its caller gave it.
    const answered = this.#recovery.answered(message);
    if (answered !== message) {
      message = answered;
      raw = undefined;
    }
    if (this.#toolListing.answered(message)) return;
    if ("method" in message && message.method === "notifications/tools/list_changed") this.#toolListing.changed();
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
    if (this.#cancelled.delete(id)) this.#recovery.forget(id);
    this.#streaming.delete(id);
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
      const refusal = refusalOf(response.status, reply, {
        message,
        requestId,
        sentSession,
        url: this.#options.url,
        configuredAuthorization: hasAuthorization(this.#options.headers),
      });
      if ("answer" in refusal) return this.#deliver(refusal.answer);
      // Every request sent under the lost session learns it, not only the first to hear the 404.
      if (refusal.error instanceof SessionExpiredError && this.sessionId === sentSession) this.sessionId = undefined;
      throw refusal.error;
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
      void this.#recovery.follow(response, message as JsonRpcRequest, kept, signal, attempt).finally(() => this.#forget(requestId));
      return;
    }
    const reply = await readBodyCapped(response, MAX_MESSAGE_BYTES, this.#whenReading);
    if (!reply.ok) {
      this.#answerMissing(requestId, `the server's answer was over the ${MAX_MESSAGE_BYTES}-byte limit; it was not read further`);
      return;
    }
    if (!deliverJson(reply.value, { deliver: (message, raw) => this.#deliver(message, raw), onerror: (error) => this.onerror?.(error) })) {
      this.#answerMissing(requestId, `the server answered with ${type || "no content type"} that holds no JSON-RPC response`);
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

  #readSse(response: Response, requestId?: JsonRpcId): Promise<StreamRead> {
    return readSseStream(response, {
      ...(requestId !== undefined ? { requestId } : {}),
      deliver: (message, raw) => this.#deliver(message, raw),
      onerror: (error) => this.onerror?.(error),
      oversize: (id) =>
        this.#answerMissing(id, `the server sent an SSE event over the ${MAX_MESSAGE_BYTES}-byte limit; its stream was closed`),
      whenReading: this.#whenReading,
      abandoned: () => this.#closed || (requestId !== undefined && this.#cancelled.has(requestId)),
    });
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
    } finally {
      this.#opening?.resolve();
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

function isInitialized(message: JsonRpcMessage): boolean {
  return "method" in message && message.method === "notifications/initialized";
}
