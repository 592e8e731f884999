// One daemon session: a persistent upstream connection to one server definition, shared by any
// number of attached clients. It is one concept, the router between those clients and that server,
// with its life: ids (and progress tokens) of each client are remapped onto the upstream through
// the in-flight table, server->client requests go to the client whose call caused them, a slow
// side holds the other back, and a crashed server is restarted on next use without ever re-running
// a call that was in flight. The handshake it does once (handshake.ts), its calls in flight
// (in-flight.ts) and its parked questions (parked.ts) are their own files.
import type { ConsolaInstance } from "consola/core";
import { McpError, RequestCorrelator } from "../lib/client/correlator.ts";
import { cancelled, channelPeer } from "../lib/client/peer.ts";
import type { SessionInfo } from "../lib/daemon/protocol.ts";
import { HttpStatusError, SessionExpiredError } from "../lib/io/fetch.ts";
import { openChannel } from "../lib/open.ts";
import { describeTarget, type Target } from "../lib/targets/target.ts";
import type { CloseOptions, MessageChannel } from "../lib/transport/channel.ts";
import { StdioChannel } from "../lib/transport/stdio.ts";
import {
  ErrorCode,
  errorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  TRANSPORT_ERROR_DATA,
} from "../lib/wire/jsonrpc.ts";
import { SessionHandshake } from "./handshake.ts";
import { InFlight } from "./in-flight.ts";
import { asksToPark, ParkedQuestions, parkedAnswers } from "./parked.ts";

/** Recent notifications kept per session for `mcp-daemon status`. */
export const NOTIFICATION_RING_SIZE = 50;
export const UPSTREAM_HANDSHAKE_TIMEOUT_MS = 30_000;
const SHOWN_PARAMS_CHARS = 200;

/** The daemon side of one attached client connection. */
export interface SessionClient {
  readonly name: string;
  send(message: JsonRpcMessage): void;
}

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
  readonly #inFlight = new InFlight();
  /** Server->client requests waiting for a client's answer, by the server's id (a question may be parked). */
  readonly #asked = new Map<string, { client: SessionClient; request: JsonRpcRequest }>();
  readonly #parked = new ParkedQuestions(
    this.#inFlight,
    (message) => this.#upstream?.send(message).catch(() => {}) ?? Promise.resolve(),
    (line) => this.#log.info(`[${this.key}] ${line}`),
  );
  #ownId = 0;
  readonly #own = new RequestCorrelator(() => `daemon-own-${++this.#ownId}`);
  readonly #handshake = new SessionHandshake(
    (method, params) =>
      this.#upstream
        ? this.#own.request(channelPeer(this.#upstream), method, params, { timeoutMs: UPSTREAM_HANDSHAKE_TIMEOUT_MS })
        : Promise.reject(this.#gone()),
    () => this.#upstream,
  );
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
    upstream.onclose = (reason) => this.#upstreamClosed(upstream, reason ?? "the server went away");
    upstream.ondrain = () => this.#roomAgain();
    this.#upstream = upstream;
    this.#handshake.opened();
    try {
      await upstream.start();
    } catch (error) {
      this.state = "crashed";
      this.#lastExit = (error as Error).message;
      this.#upstream = undefined;
      throw error;
    }
    this.#onspawn(this.pid);
    if (restarting && this.#handshake.done) {
      try {
        // The new process must hear the handshake its clients already did with the old one.
        await this.#handshake.renew();
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
    const asked = this.#asked.get(key);
    if (asked?.client !== client) return;
    this.#asked.delete(key);
    if (asksToPark(asked.request, message)) return this.#parked.park(client, asked.request);
    await this.#upstream?.send(message).catch(() => {});
  }

  async #clientRequest(client: SessionClient, request: JsonRpcRequest): Promise<void> {
    try {
      await this.ensureUpstream();
    } catch (error) {
      client.send(failure(request.id, "the server could not be started", error));
      return;
    }
    if (request.method === "initialize") return this.#initialize(client, request);
    if (request.method === "server/discover" && (await this.#handshake.keepsLegacy(request))) {
      // Like a 2025 server answers the probe: the client falls back to initialize, served from cache.
      client.send(errorResponse(request.id, ErrorCode.MethodNotFound, "mcp-daemon keeps this session on the initialize handshake"));
      return;
    }
    this.#handshake.notice(request);
    this.calls++;
    const answers = parkedAnswers(request);
    if (answers) return this.#parked.answer(client, request, answers);
    const tools = this.#handshake.cachedTools(request);
    if (tools) {
      client.send({ jsonrpc: "2.0", id: request.id, result: tools });
      return;
    }
    await this.#toUpstream(this.#inFlight.add(client, request), client, request.id);
  }

  /** The first initialize goes upstream; every later one is answered from its cached result. */
  async #initialize(client: SessionClient, request: JsonRpcRequest): Promise<void> {
    try {
      client.send({ jsonrpc: "2.0", id: request.id, result: await this.#handshake.initialize(request.params ?? {}) });
    } catch (error) {
      client.send(failure(request.id, "the server's initialize failed", error));
    }
  }

  async #clientNotification(client: SessionClient, notification: JsonRpcMessage & { method: string; params?: JsonObject }): Promise<void> {
    if (notification.method === "notifications/initialized" && !this.#handshake.passInitialized()) return;
    if (notification.method === "notifications/cancelled") {
      const call = this.#inFlight.byClientId(client, notification.params?.requestId as JsonRpcId);
      if (!call) return;
      notification = { ...notification, params: { ...notification.params, requestId: call.upstreamId } };
    }
    await this.#upstream?.send(notification).catch(() => {});
  }

  /**
   * Why there is no server to send to: a request can arrive after the server died and before the session's next
   * start (a 2026 probe whose own initialize just failed, a call sent with the handshake), and it is answered with
   * the server's own reason.
   */
  #gone(): Error {
    return new Error(this.#lastExit || "the server went away");
  }

  #sendUpstream(message: JsonRpcMessage): Promise<void> {
    return this.#upstream ? this.#upstream.send(message) : Promise.reject(this.#gone());
  }

  async #toUpstream(message: JsonRpcRequest, client: SessionClient, originalId: JsonRpcId): Promise<void> {
    try {
      await this.#sendUpstream(message);
    } catch (error) {
      if (error instanceof SessionExpiredError && this.#handshake.done) {
        // An HTTP server forgot our session: open one new session (however many requests noticed)
        // and send the request again; it was never acted on.
        try {
          await this.#handshake.renewOnce();
          await this.#sendUpstream(message);
          return;
        } catch {
          // Fall through to the error below.
        }
      }
      this.#inFlight.delete(message.id);
      client.send(failure(originalId, "could not reach the server", error));
    }
  }

  #fromUpstream(upstream: MessageChannel, message: JsonRpcMessage): void {
    if (upstream !== this.#upstream) return;
    if (isResponse(message)) {
      if (this.#own.settle(message)) return;
      const call = this.#inFlight.delete(message.id);
      if (call?.method === "tools/list" && "result" in message) this.#handshake.sawTools(message.result);
      call?.client.send({ ...message, id: call.originalId });
      return;
    }
    if (isRequest(message)) return this.#routeServerRequest(message);
    this.#remember(message.method, message.params);
    if (message.method === "notifications/tools/list_changed") this.#handshake.dropTools();
    if (message.method === "notifications/progress") {
      const call = this.#inFlight.byProgressToken(message.params?.progressToken);
      if (call?.progress) call.client.send({ ...message, params: { ...message.params, progressToken: call.progress.token } as JsonObject });
      return;
    }
    if (message.method === "notifications/cancelled") {
      this.#asked.get(String(message.params?.requestId))?.client.send(message);
      return;
    }
    for (const client of this.clients) client.send(message);
  }

  /** Sampling, elicitation, roots: to the client whose call is running (the newest, a tool call first). */
  #routeServerRequest(request: JsonRpcRequest): void {
    const running = this.#inFlight.calls().filter((call) => this.clients.has(call.client));
    const toolCalls = running.filter((call) => call.method === "tools/call");
    const pick = (toolCalls.length > 0 ? toolCalls : running).sort((a, b) => b.at - a.at)[0];
    if (!pick) {
      const message = `mcp-daemon: no client attached to this session is waiting on a call, so nobody can answer ${request.method}`;
      void this.#upstream?.send(errorResponse(request.id, ErrorCode.MethodNotFound, message)).catch(() => {});
      return;
    }
    this.#asked.set(String(request.id), { client: pick.client, request });
    pick.client.send(request);
  }

  /** What a client attaching now may take as known instead of asking (the socket protocol's session extension). */
  sessionInfo(): SessionInfo {
    return this.#handshake.sessionInfo();
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

  #upstreamClosed(upstream: MessageChannel, reason: string): void {
    if (upstream !== this.#upstream || this.state === "closed") return;
    this.#upstream = undefined;
    this.state = "crashed";
    this.#lastExit = reason;
    this.#handshake.dropTools();
    this.#log.warn(`[${this.key}] ${reason}; it will be restarted on next use`);
    this.#own.rejectAll(reason);
    this.#roomAgain();
    // Calls in flight are answered, never re-run: a tool call may have done its work already.
    for (const call of this.#inFlight.clear()) {
      const why = `mcp-daemon: ${reason} during ${call.method}; it was not retried (the server restarts on next use)`;
      call.client.send(errorResponse(call.originalId, ErrorCode.InternalError, why));
    }
    this.#asked.clear();
    this.#parked.clear();
  }

  /** Used without a client attached (a survey read what it knows): not idle. */
  touch(): void {
    this.lastUse = Date.now();
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
    for (const { upstreamId } of this.#inFlight.ofClient(client)) {
      this.#inFlight.delete(upstreamId);
      // Over HTTP the answer's stream is closed too: nobody is left to read it.
      if (this.#upstream?.cancel?.(upstreamId)) continue;
      void this.#upstream?.send(cancelled(upstreamId, "the client disconnected")).catch(() => {});
    }
    for (const [id, asked] of this.#asked) {
      if (asked.client !== client) continue;
      this.#asked.delete(id);
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
 * A failure of ours (`what` could not be done) as the client's error. Not reaching the server (no
 * process, no connection, a redirect refused, an HTTP refusal) is marked as the transport's, so that
 * mcp-inspect exits as a one-shot call would (2, or 3 to sign in); an HTTP refusal carries its status,
 * and whether its message says what to do. Only the server's own JSON-RPC error stays the server's.
 */
function failure(id: JsonRpcId, what: string, error: unknown): JsonRpcFailure {
  const serversOwn = error instanceof McpError && error.kind === "protocol";
  const data = serversOwn
    ? undefined
    : error instanceof HttpStatusError
      ? { ...TRANSPORT_ERROR_DATA, httpStatus: error.status, ...(error.explained ? { explained: true } : {}) }
      : TRANSPORT_ERROR_DATA;
  return errorResponse(id, ErrorCode.InternalError, `mcp-daemon: ${what}: ${(error as Error).message}`, data);
}
