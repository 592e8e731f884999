// One daemon session: a persistent upstream connection to one server definition, shared by any
// number of attached clients. Ids (and progress tokens) of each client are remapped onto the
// upstream, initialize happens once and is answered from cache afterwards, server->client
// requests go to the client whose call caused them, and a crashed server is restarted on next use
// without ever re-running a call that was in flight.
import type { ConsolaInstance } from "consola/core";
import { RequestCorrelator } from "../lib/client/correlator.ts";
import { cancelled, channelPeer } from "../lib/client/peer.ts";
import { legacyIdentity } from "../lib/client/raw-client.ts";
import { SESSION_EXTENSION_VERSION, type SessionInfo } from "../lib/daemon/protocol.ts";
import { isParkRequest, PARKED_KEY_PREFIX, PARKED_NOTIFICATION, PARKED_TTL_MS } from "../lib/daemon/questions.ts";
import { HttpStatusError, SessionExpiredError } from "../lib/io/fetch.ts";
import { openChannel } from "../lib/open.ts";
import { describeTarget, type Target } from "../lib/targets/target.ts";
import type { CloseOptions, MessageChannel } from "../lib/transport/channel.ts";
import { StdioChannel } from "../lib/transport/stdio.ts";
import {
  ErrorCode,
  errorResponse,
  IdRemapper,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  TRANSPORT_ERROR_DATA,
} from "../lib/wire/jsonrpc.ts";
import { LEGACY_PROTOCOL_VERSIONS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../lib/wire/protocol.ts";
import { type ParkedQuestion, ParkedQuestions } from "./parked.ts";

/** Recent notifications kept per session for `mcp-daemon status`. */
export const NOTIFICATION_RING_SIZE = 50;
export const UPSTREAM_HANDSHAKE_TIMEOUT_MS = 30_000;
const SHOWN_PARAMS_CHARS = 200;
const LEGACY_HANDSHAKE_VERSION = "2025-11-25";

/** The daemon side of one attached client connection. */
export interface SessionClient {
  readonly name: string;
  send(message: JsonRpcMessage): void;
}

interface Outbound {
  client: SessionClient;
  originalId: JsonRpcId;
  method: string;
  at: number;
}

/** The owner of calls that wait on a parked question: nobody reads what it is sent. */
const WAITING: SessionClient = { name: "(waiting for an answer)", send() {} };

export class DaemonSession {
  readonly key: string;
  readonly target: Target;
  readonly startedAt = Date.now();
  state: "idle" | "starting" | "ready" | "crashed" | "closed" = "idle";
  calls = 0;
  lastUse = Date.now();
  readonly clients = new Set<SessionClient>();
  readonly notifications: { at: string; method: string; params: string }[] = [];

  readonly #log: ConsolaInstance;
  readonly #onspawn: (pid: number | undefined) => void;
  #upstream?: MessageChannel;
  #starting?: Promise<void>;
  #lastExit = "";
  #ids = new IdRemapper<SessionClient>("daemon-");
  readonly #outbound = new Map<string, Outbound>();
  /** Upstream progress token -> the client's own token and the client. */
  readonly #progress = new Map<string, { client: SessionClient; token: unknown }>();
  /** Server->client requests waiting for a client's answer: upstream id -> client. */
  readonly #serverRequests = new Map<string, SessionClient>();
  /** The questions among them (elicitation/create), kept in case their client asks us to park them. */
  readonly #questions = new Map<string, JsonRpcRequest>();
  readonly #parked = new ParkedQuestions((question) => this.#expire(question));
  /** Which handshake the upstream process was given. The daemon prefers 2025: sessions exist there. */
  #era: "unknown" | "legacy" | "modern" = "unknown";
  #initializeParams?: JsonObject;
  #initializeResult?: JsonObject;
  #initializing?: Promise<JsonObject>;
  #renewing?: Promise<void>;
  #initializedSent = false;
  /** tools/list answered from memory while the server promises list_changed notifications. */
  #toolsCache?: JsonObject;
  #ownId = 0;
  readonly #own = new RequestCorrelator(() => `daemon-own-${++this.#ownId}`);
  /** Clients held back while the server's input is full, resumed when it drains. */
  #waitingForRoom: (() => void)[] = [];
  /** Clients so far behind that the server's output waits for them. */
  readonly #holding = new Set<SessionClient>();

  constructor(key: string, target: Target, log: ConsolaInstance, onspawn: (pid: number | undefined) => void) {
    this.key = key;
    this.target = target;
    this.#log = log;
    this.#onspawn = onspawn;
  }

  get pid(): number | undefined {
    return this.#upstream instanceof StdioChannel ? this.#upstream.pid : undefined;
  }

  get description(): string {
    return describeTarget(this.target);
  }

  /** False while the server's input holds CHANNEL_BUFFER_BYTES not yet taken. */
  get upstreamHasRoom(): boolean {
    return this.#upstream?.hasRoom !== false;
  }

  whenUpstreamHasRoom(resume: () => void): void {
    if (this.upstreamHasRoom) return resume();
    this.#waitingForRoom.push(resume);
  }

  /** A client fell behind: the server's output is not read until it catches up (or is let go). */
  hold(client: SessionClient): void {
    this.#holding.add(client);
    this.#upstream?.pause?.();
  }

  release(client: SessionClient): void {
    if (this.#holding.delete(client) && this.#holding.size === 0) this.#upstream?.resume?.();
  }

  #roomAgain(): void {
    for (const resume of this.#waitingForRoom.splice(0)) resume();
  }

  /** Makes sure the upstream is up (starting it, or restarting it after a crash). */
  ensureUpstream(): Promise<void> {
    if (this.state === "ready" && this.#upstream) return Promise.resolve();
    this.#starting ??= this.#startUpstream().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #startUpstream(): Promise<void> {
    const restarting = this.state === "crashed";
    this.state = "starting";
    const upstream = await openChannel(this.target, { listen: true, onstderr: (line) => this.#log.debug(`[${this.key}] ${line}`) });
    upstream.onmessage = (message) => this.#fromUpstream(upstream, message);
    upstream.onerror = (error) => this.#log.warn(`[${this.key}] ${error.message}`);
    upstream.onclose = (reason) => this.#onUpstreamClose(upstream, reason ?? "the server went away");
    upstream.ondrain = () => this.#roomAgain();
    this.#upstream = upstream;
    this.#initializedSent = false;
    try {
      await upstream.start();
    } catch (error) {
      this.state = "crashed";
      this.#lastExit = (error as Error).message;
      this.#upstream = undefined;
      throw error;
    }
    this.#onspawn(this.pid);
    if (restarting && this.#initializeParams) {
      try {
        // The new process must hear the handshake its clients already did with the old one.
        await this.#renewHandshake();
      } catch (error) {
        // A process that fails its handshake is ended, and the next use starts over from "crashed".
        this.#upstream = undefined;
        this.state = "crashed";
        this.#lastExit = `the restarted server failed its initialize: ${(error as Error).message}`;
        await upstream.close().catch(() => {});
        throw new Error(this.#lastExit);
      }
    }
    this.state = "ready";
    this.#log.info(`[${this.key}] ${restarting ? "restarted" : "started"} ${this.description}${this.pid ? ` (pid ${this.pid})` : ""}`);
  }

  /** A JSON-RPC message from an attached client. */
  async fromClient(client: SessionClient, message: JsonRpcMessage): Promise<void> {
    this.lastUse = Date.now();
    if (isRequest(message)) return this.#clientRequest(client, message);
    if (isNotification(message)) return this.#clientNotification(client, message);
    // The client's answer to a server->client request.
    const key = String(message.id);
    if (this.#serverRequests.get(key) !== client) return;
    this.#serverRequests.delete(key);
    const question = this.#questions.get(key);
    this.#questions.delete(key);
    if (question && "error" in message && isParkRequest(message.error)) return this.#park(client, question);
    await this.#upstream?.send(message).catch(() => {});
  }

  /**
   * The client cannot answer the server's question now (no terminal): the question and the
   * client's calls wait here, owned by nobody, and the client learns the key a later call answers.
   */
  #park(client: SessionClient, question: JsonRpcRequest): void {
    const calls = [...this.#outbound].filter(([, entry]) => entry.client === client).map(([upstreamId]) => upstreamId);
    for (const upstreamId of calls) this.#handOver(upstreamId, WAITING, this.#outbound.get(upstreamId)!.originalId);
    const parked = this.#parked.park(question, calls);
    this.#log.info(`[${this.key}] ${question.method} parked as ${parked.key} for ${Math.round(PARKED_TTL_MS / 60_000)} minutes`);
    client.send({
      jsonrpc: "2.0",
      method: PARKED_NOTIFICATION,
      params: { key: parked.key, method: question.method, params: question.params ?? {} },
    });
  }

  /** A call that brings answers to parked questions: they go to the server, and the waiting call's result comes back here. */
  async #answerParked(client: SessionClient, request: JsonRpcRequest, answers: JsonObject): Promise<void> {
    const keys = Object.keys(answers).filter((key) => key.startsWith(PARKED_KEY_PREFIX));
    const waiting = this.#parked.keys();
    const unknown = keys.find((key) => !waiting.has(key));
    if (unknown) {
      client.send(
        errorResponse(
          request.id,
          ErrorCode.InvalidParams,
          `mcp-daemon: no question is waiting under ${unknown} (it was answered already, or expired after ` +
            `${Math.round(PARKED_TTL_MS / 60_000)} minutes)`,
        ),
      );
      return;
    }
    for (const key of keys) {
      const question = this.#parked.take(key)!;
      // The tool call that waited answers this request; any other waiting call has nobody left.
      const answered = question.calls.find((id) => this.#outbound.get(id)?.method === request.method) ?? question.calls[0];
      if (answered !== undefined && this.#outbound.has(answered)) this.#handOver(answered, client, request.id);
      await this.#upstream?.send({ jsonrpc: "2.0", id: question.request.id, result: answers[key] as JsonObject }).catch(() => {});
    }
  }

  /** A call in flight changes hands: its answer, progress and questions go to `client` now. */
  #handOver(upstreamId: string, client: SessionClient, originalId: JsonRpcId): void {
    const entry = this.#outbound.get(upstreamId);
    if (!entry) return;
    const token = `${upstreamId}-progress`;
    const progress = this.#progress.get(token);
    if (progress) this.#progress.set(token, { ...progress, client });
    this.#outbound.set(upstreamId, { ...entry, client, originalId });
    this.#ids.retarget(upstreamId, client, originalId);
  }

  /** Nobody answered in time: the server hears "cancel", and the waiting calls are dropped. */
  #expire(question: ParkedQuestion): void {
    this.#log.info(`[${this.key}] ${question.key} was not answered in time; declined`);
    void this.#upstream?.send({ jsonrpc: "2.0", id: question.request.id, result: { action: "cancel" } }).catch(() => {});
    for (const upstreamId of question.calls) {
      if (this.#outbound.get(upstreamId)?.client !== WAITING) continue;
      this.#forget(upstreamId);
      this.#ids.inbound(upstreamId);
    }
  }

  async #clientRequest(client: SessionClient, request: JsonRpcRequest): Promise<void> {
    try {
      await this.ensureUpstream();
    } catch (error) {
      client.send(
        errorResponse(
          request.id,
          ErrorCode.InternalError,
          `mcp-daemon: the server could not be started: ${(error as Error).message}`,
          httpStatusData(error),
        ),
      );
      return;
    }
    if (request.method === "initialize") return this.#initialize(client, request);
    if (request.method === "server/discover" && (await this.#keepsLegacy(request))) {
      // Like a 2025 server answers the probe: the client falls back to initialize, served from cache.
      client.send(errorResponse(request.id, ErrorCode.MethodNotFound, "mcp-daemon keeps this session on the initialize handshake"));
      return;
    }
    if (this.#era === "unknown" && (request.params?._meta as JsonObject | undefined)?.[META_PROTOCOL_VERSION]) this.#era = "modern";
    this.calls++;
    const answers = request.params?.inputResponses;
    if (typeof answers === "object" && answers !== null && Object.keys(answers).some((key) => key.startsWith(PARKED_KEY_PREFIX))) {
      return this.#answerParked(client, request, answers as JsonObject);
    }
    if (request.method === "tools/list" && this.#toolsCache && request.params?.cursor === undefined) {
      client.send({ jsonrpc: "2.0", id: request.id, result: this.#toolsCache });
      return;
    }
    let params = request.params;
    const meta = params?._meta as JsonObject | undefined;
    const upstreamId = this.#ids.outbound(client, request.id);
    if (meta && meta.progressToken !== undefined) {
      // Two clients may both use token 1: each gets a token of the daemon's own upstream.
      const token = `${upstreamId}-progress`;
      this.#progress.set(token, { client, token: meta.progressToken });
      params = { ...params, _meta: { ...meta, progressToken: token } };
    }
    this.#outbound.set(upstreamId, { client, originalId: request.id, method: request.method, at: Date.now() });
    await this.#toUpstream({ ...request, id: upstreamId, ...(params ? { params } : {}) }, client, request.id);
  }

  /**
   * Whether this session speaks the 2025 handshake upstream. Decided on the first probe: the daemon
   * initializes the server itself (with the prober's identity) and only a server that refuses
   * stays on 2026-07-28, so clients of both eras can share a session.
   */
  async #keepsLegacy(probe: JsonRpcRequest): Promise<boolean> {
    if (this.#era !== "unknown") return this.#era === "legacy";
    const meta = (probe.params?._meta as JsonObject | undefined) ?? {};
    try {
      await (this.#initializing ??= this.#firstInitialize({
        protocolVersion: LEGACY_HANDSHAKE_VERSION,
        capabilities: (meta[META_CLIENT_CAPABILITIES] as JsonObject | undefined) ?? {},
        clientInfo: (meta[META_CLIENT_INFO] as JsonObject | undefined) ?? { name: "mcp-daemon", version: "1" },
      }));
      await this.#upstream?.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      this.#initializedSent = true;
      return true;
    } catch {
      this.#era = "modern";
      return false;
    }
  }

  /** The first initialize goes upstream; every later one is answered from its cached result. */
  async #initialize(client: SessionClient, request: JsonRpcRequest): Promise<void> {
    try {
      const result = this.#initializeResult ?? (await (this.#initializing ??= this.#firstInitialize(request.params ?? {})));
      client.send({ jsonrpc: "2.0", id: request.id, result });
    } catch (error) {
      client.send(
        errorResponse(
          request.id,
          ErrorCode.InternalError,
          `mcp-daemon: the server's initialize failed: ${(error as Error).message}`,
          httpStatusData(error),
        ),
      );
    }
  }

  async #firstInitialize(params: JsonObject): Promise<JsonObject> {
    try {
      const result = await this.#ownRequest("initialize", params);
      this.#initializeParams = params;
      this.#initializeResult = result;
      this.#era = "legacy";
      return result;
    } finally {
      this.#initializing = undefined;
    }
  }

  async #clientNotification(client: SessionClient, notification: JsonRpcMessage & { method: string; params?: JsonObject }): Promise<void> {
    if (notification.method === "notifications/initialized") {
      if (this.#initializedSent) return;
      this.#initializedSent = true;
    }
    if (notification.method === "notifications/cancelled") {
      const upstreamId = this.#upstreamIdOf(client, notification.params?.requestId as JsonRpcId);
      if (upstreamId === undefined) return;
      notification = { ...notification, params: { ...notification.params, requestId: upstreamId } };
    }
    await this.#upstream?.send(notification).catch(() => {});
  }

  #upstreamIdOf(client: SessionClient, originalId: JsonRpcId): string | undefined {
    for (const [upstreamId, entry] of this.#outbound) if (entry.client === client && entry.originalId === originalId) return upstreamId;
    return undefined;
  }

  async #toUpstream(message: JsonRpcRequest, client: SessionClient, originalId: JsonRpcId): Promise<void> {
    try {
      await this.#upstream!.send(message);
    } catch (error) {
      const expired = error instanceof SessionExpiredError && this.#initializeParams;
      if (expired) {
        // An HTTP server forgot our session: open one new session (however many requests noticed)
        // and send the request again; it was never acted on.
        try {
          await (this.#renewing ??= this.#renewHandshake().finally(() => (this.#renewing = undefined)));
          await this.#upstream!.send(message);
          return;
        } catch {
          // Fall through to the error below.
        }
      }
      this.#forget(String(message.id));
      client.send(
        errorResponse(
          originalId,
          ErrorCode.InternalError,
          `mcp-daemon: could not reach the server: ${(error as Error).message}`,
          httpStatusData(error),
        ),
      );
    }
  }

  #fromUpstream(upstream: MessageChannel, message: JsonRpcMessage): void {
    if (upstream !== this.#upstream) return;
    if (isResponse(message)) {
      if (this.#own.settle(message)) return;
      const key = String(message.id);
      const entry = this.#outbound.get(key);
      if (entry?.method === "tools/list" && "result" in message) this.#maybeCacheTools(message.result);
      const owner = this.#ids.inbound(message.id);
      this.#forget(key);
      if (owner) owner.owner.send({ ...message, id: owner.originalId });
      return;
    }
    if (isRequest(message)) return this.#routeServerRequest(message);
    this.#remember(message.method, message.params);
    if (message.method === "notifications/tools/list_changed") this.#toolsCache = undefined;
    if (message.method === "notifications/progress") {
      const route = this.#progress.get(String(message.params?.progressToken));
      if (route) route.client.send({ ...message, params: { ...message.params, progressToken: route.token } as JsonObject });
      return;
    }
    if (message.method === "notifications/cancelled") {
      const client = this.#serverRequests.get(String(message.params?.requestId));
      client?.send(message);
      return;
    }
    for (const client of this.clients) client.send(message);
  }

  /** Sampling, elicitation, roots: to the client whose call is running (the newest, a tool call first). */
  #routeServerRequest(request: JsonRpcRequest): void {
    const running = [...this.#outbound.values()].filter((entry) => this.clients.has(entry.client));
    const toolCalls = running.filter((entry) => entry.method === "tools/call");
    const pick = (toolCalls.length > 0 ? toolCalls : running).sort((a, b) => b.at - a.at)[0];
    if (!pick) {
      const message = `mcp-daemon: no client attached to this session is waiting on a call, so nobody can answer ${request.method}`;
      void this.#upstream?.send(errorResponse(request.id, ErrorCode.MethodNotFound, message)).catch(() => {});
      return;
    }
    this.#serverRequests.set(String(request.id), pick.client);
    if (request.method === "elicitation/create") this.#questions.set(String(request.id), request);
    pick.client.send(request);
  }

  /**
   * What a client attaching now may take as known instead of asking (the socket protocol's session
   * extension): the 2025 handshake once it is done upstream, and the tool list while it is cached.
   * A 2026-07-28 session offers neither: its clients negotiate with the server itself.
   */
  sessionInfo(): SessionInfo {
    const result = this.#initializeResult;
    if (this.#era !== "legacy" || !this.#initializedSent || !result || !LEGACY_PROTOCOL_VERSIONS.includes(String(result.protocolVersion))) {
      return { version: SESSION_EXTENSION_VERSION };
    }
    const tools = this.#toolsCache?.tools;
    return {
      version: SESSION_EXTENSION_VERSION,
      identity: legacyIdentity(result),
      ...(Array.isArray(tools) ? { tools: tools as JsonObject[] } : {}),
    };
  }

  /** Only a single-page answer, and only from a 2025-era server that declared tools.listChanged. */
  #maybeCacheTools(result: JsonObject): void {
    const capabilities = (this.#initializeResult?.capabilities as JsonObject | undefined) ?? {};
    const promisesChanges = (capabilities.tools as JsonObject | undefined)?.listChanged === true;
    if (this.#era === "legacy" && promisesChanges && !result.nextCursor) this.#toolsCache = result;
  }

  #remember(method: string, params: JsonObject | undefined): void {
    if (method === "notifications/progress") return;
    const shown = params ? JSON.stringify(params) : "";
    this.notifications.push({
      at: new Date().toISOString(),
      method,
      params: shown.length > SHOWN_PARAMS_CHARS ? `${shown.slice(0, SHOWN_PARAMS_CHARS)}…` : shown,
    });
    if (this.notifications.length > NOTIFICATION_RING_SIZE) this.notifications.shift();
  }

  #forget(upstreamId: string): void {
    this.#outbound.delete(upstreamId);
    this.#progress.delete(`${upstreamId}-progress`);
  }

  /** initialize + initialized again on the current upstream (a new process, or a new HTTP session). */
  async #renewHandshake(): Promise<void> {
    this.#toolsCache = undefined;
    this.#initializeResult = await this.#ownRequest("initialize", this.#initializeParams!);
    await this.#upstream!.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    this.#initializedSent = true;
  }

  #ownRequest(method: string, params: JsonObject): Promise<JsonObject> {
    const upstream = this.#upstream!;
    return this.#own.request(channelPeer(upstream), method, params, { timeoutMs: UPSTREAM_HANDSHAKE_TIMEOUT_MS });
  }

  #onUpstreamClose(upstream: MessageChannel, reason: string): void {
    if (upstream !== this.#upstream || this.state === "closed") return;
    this.#upstream = undefined;
    this.state = "crashed";
    this.#lastExit = reason;
    this.#toolsCache = undefined;
    this.#log.warn(`[${this.key}] ${reason}; it will be restarted on next use`);
    this.#own.rejectAll(reason);
    this.#roomAgain();
    // Calls in flight are answered, never re-run: a tool call may have done its work already.
    for (const entry of this.#outbound.values()) {
      entry.client.send(
        errorResponse(
          entry.originalId,
          ErrorCode.InternalError,
          `mcp-daemon: ${reason} during ${entry.method}; it was not retried (the server restarts on next use)`,
        ),
      );
    }
    this.#outbound.clear();
    this.#progress.clear();
    this.#serverRequests.clear();
    this.#questions.clear();
    this.#parked.clear();
    this.#ids = new IdRemapper<SessionClient>("daemon-");
  }

  attach(client: SessionClient): void {
    this.clients.add(client);
    this.lastUse = Date.now();
  }

  /** A client went away: its calls are cancelled upstream, its server requests declined. */
  detach(client: SessionClient): void {
    this.clients.delete(client);
    this.release(client);
    this.lastUse = Date.now();
    for (const [upstreamId, entry] of this.#outbound) {
      if (entry.client !== client) continue;
      this.#forget(upstreamId);
      this.#ids.inbound(upstreamId);
      // Over HTTP the answer's stream is closed too: nobody is left to read it.
      if (this.#upstream?.cancel?.(upstreamId)) continue;
      void this.#upstream?.send(cancelled(upstreamId, "the client disconnected")).catch(() => {});
    }
    for (const [id, owner] of this.#serverRequests) {
      if (owner !== client) continue;
      this.#serverRequests.delete(id);
      this.#questions.delete(id);
      void this.#upstream
        ?.send(errorResponse(id, ErrorCode.InternalError, "mcp-daemon: the client that was asked disconnected"))
        .catch(() => {});
    }
  }

  status(): JsonObject {
    return {
      session: this.key,
      server: this.description,
      kind: this.target.kind,
      pid: this.pid ?? null,
      state: this.state,
      uptimeMs: Date.now() - this.startedAt,
      calls: this.calls,
      lastUse: new Date(this.lastUse).toISOString(),
      idleMs: Date.now() - this.lastUse,
      clients: this.clients.size,
      ...(this.#lastExit ? { lastExit: this.#lastExit } : {}),
      notifications: this.notifications.slice(-10),
    };
  }

  async close(options?: CloseOptions): Promise<void> {
    this.state = "closed";
    this.#parked.clear();
    const upstream = this.#upstream;
    this.#upstream = undefined;
    this.#roomAgain();
    await upstream?.close(options).catch(() => {});
  }
}

/**
 * An HTTP server's refusal (401, 403) travels to the client in the error's data, so that
 * mcp-inspect says "sign in" (exit 3) rather than "the server failed".
 */
/** What a client needs to tell an HTTP failure from the server's own errors: its status, and whether its message says what to do. */
function httpStatusData(error: unknown): { origin: string; httpStatus: number; explained?: true } | undefined {
  if (!(error instanceof HttpStatusError)) return undefined;
  return { ...TRANSPORT_ERROR_DATA, httpStatus: error.status, ...(error.explained ? { explained: true } : {}) };
}
