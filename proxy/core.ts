// The proxy's heart: raw JSON-RPC between one client and one (re)startable server. Messages pass
// as the exact bytes that arrived, except what the proxy owns: the initialize (or server/discover)
// result gains tools.listChanged, the last page of tools/list gains restart_server, calls to
// restart_server are answered here, and the server's own requests get ids that stay unique across
// restarts. A restart never loses a request: each one in flight is re-sent (if repeating it is
// harmless), or answered with an error.
import { randomUUID } from "node:crypto";
import type { ConsolaInstance } from "consola/core";
import {
  ErrorCode,
  IdAllocator,
  completeMessage,
  errorResponse,
  idFromEdges,
  isNotification,
  isPartial,
  isRequest,
  isResponse,
  isBlank,
  parseForRouting,
  rawText,
  serializeMessage,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type MessageChannel,
  type RawMessage,
} from "../lib/jsonrpc.ts";
import { META_PROTOCOL_VERSION } from "../lib/client.ts";
import { DroppedLineError } from "../lib/stdio.ts";
import { startAnnouncements } from "./announce.ts";

export const RESTART_TOOL = "restart_server";
/** Messages held while the server restarts; past this, requests are refused, not buffered without end. */
export const MAX_QUEUED_MESSAGES = 10_000;
/** Crashes counted for the circuit breaker are those within this window. */
export const CRASH_WINDOW_MS = 60_000;
export const MAX_BACKOFF_MS = 30_000;
/** A hung server must not hold a restart up for long just to compute the tool diff. */
export const TOOL_DIFF_TIMEOUT_MS = 2_000;
/** JSON-RPC error codes of the proxy, from the implementation-defined range -32000..-32019. */
export const SERVER_RESTARTED = -32010;
export const SERVER_UNAVAILABLE = -32011;
/** Requests that may be sent again to the new server without doing anything twice. */
export const IDEMPOTENT_METHODS = new Set([
  "ping", "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list",
  "resources/read", "prompts/get", "completion/complete", "subscriptions/listen",
]);
/** Client messages whose contents the proxy reads (the rest it routes by id and method alone). */
const READ_IN_FULL = new Set([
  "initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "subscriptions/listen", "notifications/cancelled",
]);
/** What a server sends first on a subscriptions/listen stream; the client must see it once per listen. */
const LISTEN_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** Answers the proxy rewrites before passing them on. */
const PATCHED_RESULTS = new Set(["initialize", "server/discover", "tools/list"]);

export const RESTART_TOOL_DEFINITION = {
  name: RESTART_TOOL,
  description:
    "Restart the MCP server behind mcp-proxy (after you changed its code). The connection stays up; the result says how long the restart took and which tools were added, removed or changed.",
  inputSchema: { type: "object", properties: {} },
  annotations: { title: "Restart the server", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export interface ProxyOptions {
  /** A fresh, unstarted link to a new server process (or HTTP session) each time. */
  connect: () => MessageChannel;
  /** Writes one line to the client (bytes are passed on as they are). */
  write: (line: RawMessage) => Promise<void>;
  log: ConsolaInstance;
  restartTimeoutMs: number;
  autoRestart: boolean;
  maxRestarts: number;
  restartDelayMs: number;
  maxQueued?: number;
}

export interface RestartReport {
  ok: boolean;
  reason: string;
  durationMs: number;
  error?: string;
  tools?: { added: string[]; removed: string[]; changed: string[] };
}

interface InFlight {
  id: JsonRpcId;
  method: string;
  message: JsonRpcRequest;
  raw: RawMessage;
}

type Pending = { resolve: (result: JsonObject) => void; reject: (error: Error) => void };

/** Map key that keeps the number 1 and the string "1" apart, as JSON-RPC does. */
const keyOf = (id: JsonRpcId) => (typeof id === "number" ? `n${id}` : `s${id}`);

export class McpProxy {
  readonly #options: ProxyOptions;
  readonly #log: ConsolaInstance;
  #child?: MessageChannel;
  #generation = 0;
  #state: "starting" | "running" | "restarting" | "broken" | "closed" = "starting";
  #brokenReason = "";
  readonly #inFlight = new Map<string, InFlight>();
  /** Requests an HTTP server refused for an expired session: never seen by it, so safe to send again. */
  #expired: InFlight[] = [];
  /** The server's own requests, under ids of ours so that two processes' ids can never meet. */
  readonly #serverRequests = new Map<string, { generation: number; id: JsonRpcId }>();
  #queue: { message: JsonRpcMessage; raw: RawMessage }[] = [];
  /** A random part makes our ids ones no client would pick. */
  readonly #ownIds = new IdAllocator(`mcp-proxy-${randomUUID()}-`);
  readonly #own = new Map<JsonRpcId, Pending>();
  /** What the client told the server, replayed to every new process. */
  #initializeParams?: JsonObject;
  #clientInitialized = false;
  #modernMeta?: JsonObject;
  #logLevel?: string;
  readonly #subscriptions = new Set<string>();
  /** subscriptions/listen streams (by request id) whose acknowledgement the client already has. */
  readonly #acknowledgedListens = new Set<string>();
  #childCapabilities: JsonObject = {};
  #restarting?: Promise<RestartReport>;
  #restartAgain?: string;
  #crashDuringRestart?: string;
  #crashes: number[] = [];
  #wakeFromBackoff?: () => void;

  constructor(options: ProxyOptions) {
    this.#options = options;
    this.#log = options.log;
  }

  get state(): string {
    return this.#state;
  }

  /** Starts the first server process; messages that arrive meanwhile wait in the queue. */
  async start(): Promise<void> {
    await this.restart("start");
  }

  /** One line from the client: its text, or its bytes as they arrived (valid UTF-8). */
  fromClient(raw: RawMessage): void {
    if (this.#state === "closed" || isBlank(raw)) return;
    const parsed = parseForRouting(raw);
    if (!parsed.ok) {
      this.#log.warn(`answered a client line that is not JSON-RPC (${parsed.error})`);
      void this.#send(invalidLineAnswer(raw, parsed.error));
      return;
    }
    let message = parsed.value;
    // A large message was read for its routing fields only (and a tool call's params.name).
    if (isPartial(message) && "method" in message && (READ_IN_FULL.has(message.method) || (message.method === "tools/call" && message.params?.name === RESTART_TOOL))) {
      message = completeMessage(message, raw);
    }
    if (isRequest(message) && message.method === "tools/call" && message.params?.name === RESTART_TOOL) {
      void this.#answerRestartTool(message);
      return;
    }
    if (this.#state === "restarting" || this.#state === "starting") {
      if (this.#queue.length >= (this.#options.maxQueued ?? MAX_QUEUED_MESSAGES)) {
        if (isRequest(message)) void this.#send(errorResponse(message.id, SERVER_UNAVAILABLE, "mcp-proxy: too many messages queued while the server restarts; try again"));
        else this.#log.warn(`dropped a ${isNotification(message) ? message.method : "response"} (the restart queue is full)`);
        return;
      }
      this.#queue.push({ message, raw });
      return;
    }
    this.#dispatch(message, raw);
  }

  #dispatch(message: JsonRpcMessage, raw: RawMessage): void {
    if (isRequest(message)) {
      this.#remember(message);
      if (this.#state === "broken") {
        void this.#send(errorResponse(message.id, SERVER_UNAVAILABLE, `mcp-proxy: the server is down (${this.#brokenReason}); call ${RESTART_TOOL} or change a watched file`));
        return;
      }
      this.#inFlight.set(keyOf(message.id), { id: message.id, method: message.method, message, raw });
      this.#toChild(message, raw);
    } else if (isNotification(message)) {
      if (message.method === "notifications/initialized") this.#clientInitialized = true;
      if (message.method === "notifications/cancelled" && message.params) {
        const id = message.params.requestId;
        if (typeof id === "string" || typeof id === "number") {
          this.#inFlight.delete(keyOf(id));
          this.#acknowledgedListens.delete(keyOf(id));
        }
      }
      if (this.#state === "running") this.#toChild(message, raw);
    } else {
      // The client's answer to a server request: back to the process that asked, under its own id.
      const asked = typeof message.id === "string" ? this.#serverRequests.get(message.id) : undefined;
      if (asked) this.#serverRequests.delete(message.id as string);
      if (asked && asked.generation === this.#generation && this.#state === "running") this.#toChild({ ...message, id: asked.id });
      else this.#log.debug(`dropped the client's answer to ${JSON.stringify(message.id)}: the server process that asked has since restarted`);
    }
  }

  /** Keeps what a new server process must be told again. */
  #remember(request: JsonRpcRequest): void {
    const params = request.params ?? {};
    const meta = params._meta as JsonObject | undefined;
    if (meta && META_PROTOCOL_VERSION in meta) {
      const { progressToken: _token, ...envelope } = meta;
      this.#modernMeta = envelope;
    }
    switch (request.method) {
      case "initialize":
        this.#initializeParams = params;
        break;
      case "logging/setLevel":
        if (typeof params.level === "string") this.#logLevel = params.level;
        break;
      case "resources/subscribe":
        if (typeof params.uri === "string") this.#subscriptions.add(params.uri);
        break;
      case "resources/unsubscribe":
        if (typeof params.uri === "string") this.#subscriptions.delete(params.uri);
        break;
    }
  }

  #toChild(message: JsonRpcMessage, raw?: RawMessage): void {
    const child = this.#child;
    const generation = this.#generation;
    if (!child) return;
    child.send(message, raw).catch((error: Error & { sessionExpired?: boolean }) => {
      if (generation !== this.#generation) return;
      const entry = isRequest(message) ? this.#inFlight.get(keyOf(message.id)) : undefined;
      if (entry) this.#inFlight.delete(keyOf(entry.id));
      if (error.sessionExpired) {
        // The HTTP server forgot our session and never saw this request: a new session, then again.
        if (entry) this.#expired.push(entry);
        void this.restart("the HTTP session expired");
      } else if (entry) {
        void this.#send(errorResponse(entry.id, SERVER_UNAVAILABLE, `mcp-proxy: could not reach the server: ${error.message}`));
      } else {
        this.#log.warn(`could not forward a message to the server: ${error.message}`);
      }
    });
  }

  /** One message from the server process of `generation`. */
  #fromChild(generation: number, message: JsonRpcMessage, raw: RawMessage | undefined): void {
    if (generation !== this.#generation || this.#state === "closed") return;
    if (isResponse(message)) return this.#responseFromChild(message, raw);
    if (isRequest(message)) {
      const id = this.#ownIds.next();
      this.#serverRequests.set(id, { generation, id: message.id });
      void this.#send({ ...(raw === undefined ? message : completeMessage(message, raw)), id } as JsonRpcRequest);
      return;
    }
    if (message.method === LISTEN_ACKNOWLEDGED && this.#repeatedAcknowledgement(raw === undefined ? message : completeMessage(message, raw))) return;
    void this.#send(message, raw);
  }

  /**
   * A listen re-sent to a new process is acknowledged again; the client already had its
   * acknowledgement (the first message of the stream), so the second is not passed on.
   */
  #repeatedAcknowledgement(message: JsonRpcMessage): boolean {
    const meta = "params" in message ? (message.params?._meta as JsonObject | undefined) : undefined;
    const id = meta?.[META_SUBSCRIPTION_ID];
    if (typeof id !== "string" && typeof id !== "number") return false;
    if (!this.#acknowledgedListens.has(keyOf(id))) {
      this.#acknowledgedListens.add(keyOf(id));
      return false;
    }
    this.#log.debug(`the client already has the acknowledgement of subscriptions/listen ${JSON.stringify(id)}: not passed on again`);
    return true;
  }

  #responseFromChild(message: JsonRpcMessage & { id: JsonRpcId | null }, raw: RawMessage | undefined): void {
    if (message.id !== null && this.#own.has(message.id)) {
      const full = raw === undefined ? message : completeMessage(message, raw);
      const pending = this.#own.get(message.id)!;
      this.#own.delete(message.id);
      if ("error" in full) pending.reject(new Error(full.error.message));
      else if ("result" in full) pending.resolve(full.result);
      return;
    }
    const entry = message.id === null ? undefined : this.#inFlight.get(keyOf(message.id));
    if (!entry) {
      if (message.id === null) void this.#send(message, raw);
      else this.#log.debug(`dropped a server response to unknown id ${JSON.stringify(message.id)}`);
      return;
    }
    this.#inFlight.delete(keyOf(entry.id));
    // A listen that ended: a new one may reuse its id, and gets its own acknowledgement.
    if (entry.method === "subscriptions/listen") this.#acknowledgedListens.delete(keyOf(entry.id));
    if (!PATCHED_RESULTS.has(entry.method)) return void this.#send(message, raw);
    const full = raw === undefined ? message : completeMessage(message, raw);
    if (!isResponse(full)) return void this.#send(message, raw);
    if ("result" in full && (entry.method === "initialize" || entry.method === "server/discover")) {
      this.#childCapabilities = (full.result.capabilities as JsonObject) ?? {};
      void this.#send({ ...full, result: withListChanged(full.result) });
    } else if ("result" in full && !full.result.nextCursor) {
      const tools = Array.isArray(full.result.tools) ? full.result.tools : [];
      void this.#send({ ...full, result: { ...full.result, tools: [...tools, RESTART_TOOL_DEFINITION] } });
    } else if ("error" in full && full.error.code === ErrorCode.MethodNotFound) {
      // A server with no tools at all: we advertised tools for restart_server, so we list it.
      void this.#send({ jsonrpc: "2.0", id: full.id as JsonRpcId, result: { tools: [RESTART_TOOL_DEFINITION] } });
    } else {
      void this.#send(full);
    }
  }

  #send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    // Once the client is gone, nothing more is written: stdout may be closed.
    if (this.#state === "closed") return Promise.resolve();
    return this.#options.write(raw ?? serializeMessage(message));
  }

  /** The proxy's own request to the current process; its answer never reaches the client. */
  #ownRequest(method: string, params: JsonObject, timeoutMs = this.#options.restartTimeoutMs): Promise<JsonObject> {
    const child = this.#child;
    if (!child) return Promise.reject(new Error("no server process"));
    const id = this.#ownIds.next();
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#own.delete(id);
        reject(new Error(`${method} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = <T>(fn: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        fn(value);
      };
      this.#own.set(id, { resolve: settle(resolve), reject: settle(reject) });
      child.send({ jsonrpc: "2.0", id, method, params }).catch(settle(reject));
    });
  }

  #rejectOwn(reason: string): void {
    for (const pending of this.#own.values()) pending.reject(new Error(reason));
    this.#own.clear();
  }

  async #startChild(): Promise<void> {
    const child = this.#options.connect();
    const generation = ++this.#generation;
    this.#child = child;
    child.onmessage = (message, raw) => this.#fromChild(generation, message, raw);
    child.onerror = (error) => {
      this.#log.warn(error.message);
      // An answer too large to pass on still answers its request: with an error, not silence.
      const id = error instanceof DroppedLineError && error.kind === "oversize" ? idFromEdges(error.head, error.tail) : undefined;
      if (id !== undefined && this.#inFlight.delete(keyOf(id))) {
        void this.#send(errorResponse(id, ErrorCode.InternalError, `mcp-proxy: ${error.message}`));
      }
    };
    child.onclose = (reason) => {
      if (generation !== this.#generation || this.#state === "closed") return;
      const why = reason ?? "the server went away";
      // Our own requests (a handshake under way) learn at once, not at their timeout.
      this.#rejectOwn(why);
      this.#log.error(why);
      this.#onCrash(why);
    };
    await child.start();
    // The client may have left while the process started: it must not outlive us.
    if (this.#state === "closed") {
      await child.close().catch(() => {});
      throw new Error("the proxy is closing");
    }
  }

  /** Tells a new process what the old one had been told: the handshake, then session state. */
  async #handshake(): Promise<JsonObject | undefined> {
    if (this.#initializeParams) {
      const result = await this.#ownRequest("initialize", this.#initializeParams);
      this.#childCapabilities = (result.capabilities as JsonObject) ?? {};
      if (this.#clientInitialized) this.#child?.send({ jsonrpc: "2.0", method: "notifications/initialized" }).catch(() => {});
      if (this.#logLevel) await this.#ownRequest("logging/setLevel", { level: this.#logLevel }).catch(() => {});
      for (const uri of this.#subscriptions) await this.#ownRequest("resources/subscribe", { uri }).catch(() => {});
      return result;
    }
    if (this.#modernMeta) {
      // 2026-07-28 has no handshake; a discover round trip is the readiness signal.
      const result = await this.#ownRequest("server/discover", { _meta: this.#modernMeta });
      this.#childCapabilities = (result.capabilities as JsonObject) ?? {};
    }
    return undefined;
  }

  /**
   * Restarts the server. Overlapping triggers share one restart; `again` queues one more after it
   * (a file saved while we restart). A manual or watched restart that succeeds resets the breaker.
   */
  restart(reason: string, options: { again?: boolean; delayMs?: number; resetsBreaker?: boolean } = {}): Promise<RestartReport> {
    if (this.#state === "closed") return Promise.resolve({ ok: false, reason, durationMs: 0, error: "the proxy is closing" });
    if (this.#restarting) {
      if (options.again) this.#restartAgain = reason;
      return this.#restarting;
    }
    this.#restarting = this.#restartOnce(reason, options.delayMs ?? 0).then((report) => {
      if (report.ok && options.resetsBreaker) this.#crashes = [];
      return report;
    });
    void this.#restarting.finally(() => {
      this.#restarting = undefined;
      const crashed = this.#crashDuringRestart;
      const again = this.#restartAgain;
      this.#crashDuringRestart = undefined;
      this.#restartAgain = undefined;
      // A new process that died while we were still finishing its restart is handled like any crash.
      if (crashed && this.#state !== "closed") this.#onCrash(crashed);
      else if (again) void this.restart(again, { resetsBreaker: true });
    });
    return this.#restarting;
  }

  async #restartOnce(reason: string, delayMs: number): Promise<RestartReport> {
    const started = performance.now();
    const first = this.#child === undefined && this.#generation === 0;
    const wasRunning = this.#state === "running";
    this.#state = first ? "starting" : "restarting";
    if (!first) this.#log.info(`restarting the server (${reason})`);
    const toolsBefore = wasRunning ? await this.#listTools(TOOL_DIFF_TIMEOUT_MS).catch(() => undefined) : undefined;

    // In flight: harmless requests go again to the new process; an initialize is answered by the
    // new process's handshake; anything else is refused, since repeating it could do its work twice.
    const resend: InFlight[] = [...this.#expired];
    const initializing: InFlight[] = [];
    this.#expired = [];
    for (const entry of this.#inFlight.values()) {
      if (entry.method === "initialize") initializing.push(entry);
      else if (IDEMPOTENT_METHODS.has(entry.method)) resend.push(entry);
      else void this.#send(errorResponse(entry.id, SERVER_RESTARTED, `mcp-proxy: the server restarted (${reason}) while ${entry.method} was running; it was not repeated, since that could do its work twice`));
    }
    this.#inFlight.clear();
    this.#cancelServerRequests(reason);
    this.#rejectOwn("the server restarted");

    await this.#stopChild();
    if (delayMs > 0) await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      this.#wakeFromBackoff = () => (clearTimeout(timer), resolve());
    });
    this.#wakeFromBackoff = undefined;
    // The client may have left while we waited (TypeScript cannot see that state changes across await).
    if ((this.#state as string) === "closed") return { ok: false, reason, durationMs: 0, error: "the proxy is closing" };

    let initialized: JsonObject | undefined;
    try {
      await this.#startChild();
      initialized = await this.#handshake();
      if ((this.#state as string) === "closed") throw new Error("the proxy is closing");
    } catch (error) {
      const message = (error as Error).message;
      if ((this.#state as string) !== "closed") this.#log.error(`the server did not ${first ? "start" : "come back"}: ${message}`);
      await this.#stopChild();
      this.#fail(`the server did not ${first ? "start" : "come back after a restart"}: ${message}`, [...resend, ...initializing]);
      // Counted like a crash: retried with backoff until the circuit breaker says enough.
      this.#crashDuringRestart = message;
      return { ok: false, reason, durationMs: Math.round(performance.now() - started), error: message };
    }

    this.#state = "running";
    for (const entry of initializing) void this.#send({ jsonrpc: "2.0", id: entry.id, result: withListChanged(initialized ?? {}) });
    for (const entry of resend) {
      this.#inFlight.set(keyOf(entry.id), entry);
      this.#toChild(entry.message, entry.raw);
    }
    const queued = this.#queue;
    this.#queue = [];
    for (const { message, raw } of queued) this.#dispatch(message, raw);
    if (!first) {
      for (const notification of startAnnouncements(this.#childCapabilities, this.#clientEra(), resend)) await this.#send(notification);
    }

    const durationMs = Math.round(performance.now() - started);
    const report: RestartReport = { ok: true, reason, durationMs };
    if (toolsBefore) {
      const toolsAfter = await this.#listTools(TOOL_DIFF_TIMEOUT_MS).catch(() => undefined);
      if (toolsAfter) report.tools = diffTools(toolsBefore, toolsAfter);
    }
    if (!first) this.#log.info(`the server is back after ${durationMs} ms`);
    return report;
  }

  /** Which notifications the client may receive: none before it initialized. */
  #clientEra(): "legacy" | "modern" | "none" {
    if (this.#initializeParams) return this.#clientInitialized ? "legacy" : "none";
    return this.#modernMeta ? "modern" : "none";
  }

  /** The old process's questions to the client are void: the client is told, and stale answers dropped. */
  #cancelServerRequests(reason: string): void {
    for (const [id, asked] of this.#serverRequests) {
      if (asked.generation !== this.#generation) continue;
      void this.#send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: `the server restarted (${reason})` } });
    }
    this.#serverRequests.clear();
  }

  /** All tools of the current process, through the proxy's own requests. */
  async #listTools(timeoutMs: number): Promise<Map<string, string>> {
    const tools = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const params: JsonObject = cursor ? { cursor } : {};
      if (this.#modernMeta && !this.#initializeParams) params._meta = this.#modernMeta;
      const result = await this.#ownRequest("tools/list", params, timeoutMs);
      for (const tool of (result.tools as JsonObject[] | undefined) ?? []) tools.set(String(tool.name), JSON.stringify(tool));
      cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : undefined;
    } while (cursor);
    return tools;
  }

  async #answerRestartTool(request: JsonRpcRequest): Promise<void> {
    const report = await this.restart(`${RESTART_TOOL} tool`, { resetsBreaker: true });
    const lines = report.ok
      ? [`Restarted the server in ${report.durationMs} ms.`]
      : [`The restart failed after ${report.durationMs} ms: ${report.error}`];
    if (report.tools) {
      const { added, removed, changed } = report.tools;
      lines.push(added.length + removed.length + changed.length === 0 ? "Tools: no change." : `Tools added: ${added.join(", ") || "none"}; removed: ${removed.join(", ") || "none"}; changed: ${changed.join(", ") || "none"}.`);
    }
    const result: JsonObject = {
      content: [{ type: "text", text: lines.join("\n") }],
      structuredContent: report as unknown as JsonObject,
      isError: !report.ok,
    };
    if (this.#modernMeta && !this.#initializeParams) result.resultType = "complete";
    await this.#send({ jsonrpc: "2.0", id: request.id, result });
  }

  #onCrash(reason: string): void {
    if (this.#state === "closed") return;
    if (this.#restarting) {
      this.#crashDuringRestart = reason;
      return;
    }
    const now = Date.now();
    this.#crashes = this.#crashes.filter((at) => now - at < CRASH_WINDOW_MS);
    this.#crashes.push(now);
    if (!this.#options.autoRestart) {
      this.#fail(`${reason}; automatic restart is off`);
      return;
    }
    if (this.#crashes.length > this.#options.maxRestarts) {
      this.#log.error(`the server crashed ${this.#crashes.length} times within ${CRASH_WINDOW_MS / 1000} s; not restarting it until ${RESTART_TOOL} is called or a watched file changes`);
      this.#fail(`it crashed ${this.#crashes.length} times within ${CRASH_WINDOW_MS / 1000} s (last: ${reason})`);
      return;
    }
    const delay = Math.min(this.#options.restartDelayMs * 2 ** (this.#crashes.length - 1), MAX_BACKOFF_MS);
    void this.restart(`the server crashed: ${reason}`, { delayMs: delay });
  }

  /** The server is down and stays down: everything waiting gets an answer that says why. */
  #fail(reason: string, also: InFlight[] = []): void {
    if (this.#state === "closed") return;
    this.#state = "broken";
    this.#brokenReason = reason;
    const waiting = [...also, ...this.#inFlight.values(), ...this.#expired];
    this.#inFlight.clear();
    this.#expired = [];
    for (const entry of waiting) {
      if (entry.method === "subscriptions/listen") this.#acknowledgedListens.delete(keyOf(entry.id));
      void this.#send(errorResponse(entry.id, SERVER_UNAVAILABLE, `mcp-proxy: ${reason}`));
    }
    const queued = this.#queue;
    this.#queue = [];
    for (const { message, raw } of queued) this.#dispatch(message, raw);
  }

  async #stopChild(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    this.#generation++;
    await child?.close().catch(() => {});
  }

  /** A client line too large to take: answered with an error when its id can be read. */
  refuseOversize(head: string, tail: string, bytes: number, limit: number): void {
    const id = idFromEdges(head, tail);
    if (id !== undefined) void this.#send(errorResponse(id, ErrorCode.InvalidRequest, `mcp-proxy: a ${bytes}-byte message is over the ${limit}-byte limit`));
  }

  /** Our client is gone: stop the server and answer nothing more. */
  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#rejectOwn("the proxy is closing");
    this.#wakeFromBackoff?.();
    await this.#stopChild();
  }

  /**
   * Tells the client something went wrong outside any request (a failed build), as a logging
   * notification, where the protocol allows one: a 2025-era client of a server with logging.
   */
  async notifyClient(level: "info" | "warning" | "error", text: string): Promise<boolean> {
    if (this.#clientEra() !== "legacy" || !this.#childCapabilities.logging) return false;
    await this.#send({ jsonrpc: "2.0", method: "notifications/message", params: { level, logger: "mcp-proxy", data: text } });
    return true;
  }
}

/** -32700 for text that is not JSON; -32600 (with the id, when there is one) for JSON that is not JSON-RPC. */
function invalidLineAnswer(raw: RawMessage, error: string): JsonRpcMessage {
  let value: unknown;
  try {
    value = JSON.parse(rawText(raw));
  } catch {
    return errorResponse(null, ErrorCode.ParseError, `mcp-proxy: ${error}`);
  }
  const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
  return errorResponse(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, `mcp-proxy: ${error}`);
}

function withListChanged(result: JsonObject): JsonObject {
  const capabilities = (result.capabilities as JsonObject | undefined) ?? {};
  const tools = (capabilities.tools as JsonObject | undefined) ?? {};
  return { ...result, capabilities: { ...capabilities, tools: { ...tools, listChanged: true } } };
}

export function diffTools(before: Map<string, string>, after: Map<string, string>): { added: string[]; removed: string[]; changed: string[] } {
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const changed = [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name));
  return { added, removed, changed };
}
