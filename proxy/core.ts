// The proxy's heart: raw JSON-RPC between one client and one (re)startable server. Messages pass
// as the exact bytes that arrived, except what the proxy owns: the initialize (or server/discover)
// result gains tools.listChanged, the last page of tools/list gains restart_server, calls to
// restart_server are answered here, the server's own requests get ids that stay unique across
// restarts, and a request reusing an id still in flight travels under an id of ours. A restart
// never loses a request: each one in flight is re-sent (if repeating it is harmless), or answered
// with an error. A slow side holds the other back; at the end of input every answer is awaited.
import { randomUUID } from "node:crypto";
import type { ConsolaInstance } from "consola/core";
import { RequestCorrelator } from "../lib/client/correlator.ts";
import { channelPeer } from "../lib/client/peer.ts";
import { SessionExpiredError } from "../lib/io/fetch.ts";
import { settlesWithin, waitMs } from "../lib/io/reading.ts";
import { type CloseOptions, DroppedLineError, type MessageChannel } from "../lib/transport/channel.ts";
import { completeMessage, idFromEdges, isPartial, parseForRouting } from "../lib/wire/json-scan.ts";
import {
  ErrorCode,
  errorResponse,
  IdAllocator,
  isBlank,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RawMessage,
  rawText,
  serializeMessage,
} from "../lib/wire/jsonrpc.ts";
import { CHANNEL_BUFFER_BYTES } from "../lib/wire/limits.ts";
import { SAFE_TO_REPEAT_METHODS } from "../lib/wire/protocol.ts";
import { startAnnouncements } from "./announce.ts";
import { CircuitBreaker, CRASH_WINDOW_MS } from "./breaker.ts";
import { keyOf, SessionReplay } from "./replay.ts";
import { diffTools, RESTART_TOOL, RESTART_TOOL_DEFINITION, type RestartReport, restartToolResult } from "./restart-tool.ts";

export { diffTools, RESTART_TOOL, RESTART_TOOL_DEFINITION, type RestartReport };
/** A hung server must not hold a restart up for long just to compute the tool diff. */
export const TOOL_DIFF_TIMEOUT_MS = 2_000;
/** Client messages whose contents the proxy reads (the rest it routes by id and method alone). */
const READ_IN_FULL = new Set([
  "initialize",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "subscriptions/listen",
  "notifications/cancelled",
]);
/** What a server sends first on a subscriptions/listen stream; the client must see it once per listen. */
const LISTEN_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
/** Requests that stay open until cancelled: the end of input does not wait for them. */
const OPEN_ENDED = "subscriptions/listen";

/** Where lines for the client go: a bounded writer (lib/wire/line-writer.ts). */
export interface ClientOutput {
  write(line: RawMessage): Promise<void>;
  readonly hasRoom: boolean;
  onroom?: () => void;
}

/** The client's input, held back while the server (or a restart queue) cannot take more. */
export interface ClientInput {
  pause(reason?: string): void;
  resume(reason?: string): void;
}

export interface ProxyOptions {
  /** A fresh, unstarted link to a new server process (or HTTP session) each time. */
  connect: () => Promise<MessageChannel>;
  toClient: ClientOutput;
  clientInput?: ClientInput;
  log: ConsolaInstance;
  restartTimeoutMs: number;
  autoRestart: boolean;
  maxRestarts: number;
  restartDelayMs: number;
  /** HTTP: a request the server never saw (an expired session) is sent again, whatever it is. */
  resendsUnseen?: boolean;
}

interface InFlight {
  /** The client's id, which its answer must carry. */
  id: JsonRpcId;
  /** The id the server sees: the client's own, or one of ours when the client reused an id in flight. */
  upstreamId: JsonRpcId;
  method: string;
  /** The request as the server gets it. */
  message: JsonRpcRequest;
  /** Its bytes as they arrived, when the server gets them unchanged. */
  raw?: RawMessage;
}

type Pending = (...args: never[]) => void;
const idSeed = randomUUID();

export class McpProxy {
  readonly #options: ProxyOptions;
  readonly #log: ConsolaInstance;
  readonly #replay = new SessionReplay();
  readonly #breaker: CircuitBreaker;
  #child?: MessageChannel;
  #generation = 0;
  #state: "starting" | "running" | "restarting" | "broken" | "closed" = "starting";
  #brokenReason = "";
  /** Requests in flight, by the key of the id the server sees. */
  readonly #inFlight = new Map<string, InFlight>();
  /** How many requests in flight carry each client id (more than one: the client reused it). */
  readonly #clientIds = new Map<string, number>();
  /** Requests (still in flight) an HTTP server refused for an expired session: never seen by it, so safe to send again. */
  readonly #expired = new Set<InFlight>();
  /** The server's own requests, under ids of ours so that two processes' ids can never meet. */
  readonly #serverRequests = new Map<string, { generation: number; id: JsonRpcId }>();
  #queue: { message: JsonRpcMessage; raw: RawMessage }[] = [];
  #queuedBytes = 0;
  /** Ids of ours, one series per use; a random part makes them ones no client would pick. */
  readonly #ownIds = new IdAllocator(`mcp-proxy-${idSeed}-own-`);
  readonly #serverRequestIds = new IdAllocator(`mcp-proxy-${idSeed}-asks-`);
  readonly #reusedIds = new IdAllocator(`mcp-proxy-${idSeed}-as-`);
  readonly #own = new RequestCorrelator(() => this.#ownIds.next());
  #childCapabilities: JsonObject = {};
  #restarting?: Promise<RestartReport>;
  #restartAgain?: string;
  #crashDuringRestart?: string;
  #wakeFromBackoff?: () => void;
  /** The client's input ended: nothing new comes; every answer still owed is awaited. */
  #inputEnded = false;
  #idleWaiters: Pending[] = [];
  /** restart_server calls whose answer is not written yet (they are owed one, like any request). */
  #restartCalls = 0;

  constructor(options: ProxyOptions) {
    this.#options = options;
    this.#log = options.log;
    this.#breaker = new CircuitBreaker(options.maxRestarts, options.restartDelayMs);
    // The client reads slowly: the server's output waits in its pipe, not in our memory.
    options.toClient.onroom = () => this.#child?.resume?.();
  }

  get state(): string {
    return this.#state;
  }

  /** Starts the first server process; messages that arrive meanwhile wait in the queue. */
  async start(): Promise<void> {
    await this.restart("start");
  }

  /** One line from the client: its text, or its bytes as they arrived (not necessarily UTF-8). */
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
    if (
      isPartial(message) &&
      "method" in message &&
      (READ_IN_FULL.has(message.method) || (message.method === "tools/call" && message.params?.name === RESTART_TOOL))
    ) {
      message = completeMessage(message, raw);
    }
    if (isRequest(message) && message.method === "tools/call" && message.params?.name === RESTART_TOOL) {
      void this.#answerRestartTool(message);
      return;
    }
    if (this.#state === "restarting" || this.#state === "starting") {
      this.#queue.push({ message, raw });
      this.#queuedBytes += raw.length;
      // A long restart: the client waits in its own pipe rather than in our memory.
      if (this.#queuedBytes >= CHANNEL_BUFFER_BYTES) this.#options.clientInput?.pause("restart");
      return;
    }
    this.#dispatch(message, raw);
  }

  #dispatch(message: JsonRpcMessage, raw: RawMessage): void {
    if (isRequest(message)) {
      this.#replay.remember(message);
      if (this.#state === "broken") {
        void this.#send(
          errorResponse(
            message.id,
            ErrorCode.ServerUnavailable,
            `mcp-proxy: the server is down (${this.#brokenReason}); call ${RESTART_TOOL} or change a watched file`,
          ),
        );
        return;
      }
      const entry = this.#track(message, raw);
      this.#toChild(entry.message, entry.raw);
      // Only a request that may be sent again keeps its bytes (and, when its id was rewritten, its
      // parsed contents): a 1 MB tool call in flight costs nothing here.
      if (!SAFE_TO_REPEAT_METHODS.has(entry.method) && !this.#options.resendsUnseen) {
        entry.raw = undefined;
        entry.message = { jsonrpc: "2.0", id: entry.upstreamId, method: entry.method };
      }
    } else if (isNotification(message)) {
      if (message.method === "notifications/initialized") this.#replay.clientInitialized();
      if (message.method === "notifications/cancelled") return this.#cancelFromClient(message, raw);
      if (this.#state === "running") this.#toChild(message, raw);
    } else {
      // The client's answer to a server request: back to the process that asked, under its own id.
      const asked = typeof message.id === "string" ? this.#serverRequests.get(message.id) : undefined;
      if (asked) this.#serverRequests.delete(message.id as string);
      if (asked && asked.generation === this.#generation && this.#state === "running")
        this.#toChild({ ...completeMessage(message, raw), id: asked.id } as JsonRpcMessage);
      else
        this.#log.debug(`dropped the client's answer to ${JSON.stringify(message.id)}: the server process that asked has since restarted`);
    }
  }

  /** Records a request in flight; one that reuses an id still in flight gets an id of ours upstream. */
  #track(message: JsonRpcRequest, raw: RawMessage): InFlight {
    const clientKey = keyOf(message.id);
    const reused = (this.#clientIds.get(clientKey) ?? 0) > 0;
    this.#clientIds.set(clientKey, (this.#clientIds.get(clientKey) ?? 0) + 1);
    let entry: InFlight;
    if (reused) {
      const upstreamId = this.#reusedIds.next();
      const full = completeMessage(message, raw) as JsonRpcRequest;
      entry = { id: message.id, upstreamId, method: message.method, message: { ...full, id: upstreamId } };
      this.#log.debug(`the client reused id ${JSON.stringify(message.id)} while it was in flight; sent as ${upstreamId}`);
    } else {
      entry = { id: message.id, upstreamId: message.id, method: message.method, message, raw };
    }
    this.#inFlight.set(keyOf(entry.upstreamId), entry);
    return entry;
  }

  /** Forgets a request in flight (answered, cancelled, given up). */
  #untrack(entry: InFlight): void {
    if (this.#inFlight.get(keyOf(entry.upstreamId)) !== entry) return;
    this.#inFlight.delete(keyOf(entry.upstreamId));
    this.#expired.delete(entry);
    const clientKey = keyOf(entry.id);
    const count = (this.#clientIds.get(clientKey) ?? 1) - 1;
    if (count > 0) this.#clientIds.set(clientKey, count);
    else this.#clientIds.delete(clientKey);
    if (entry.method === OPEN_ENDED) this.#replay.listenEnded(entry.id);
    this.#checkIdle();
  }

  /** The client gave up on a request: the server is told under the id it knows it by. */
  #cancelFromClient(message: JsonRpcMessage & { params?: JsonObject }, raw: RawMessage): void {
    const full = completeMessage(message, raw) as JsonRpcMessage & { params?: JsonObject };
    const id = full.params?.requestId;
    let entry: InFlight | undefined;
    if (typeof id === "string" || typeof id === "number") {
      // With a reused id, the newest request under it is the one meant.
      for (const candidate of this.#inFlight.values()) if (candidate.id === id) entry = candidate;
    }
    if (entry) this.#untrack(entry);
    if (this.#state !== "running") return;
    if (entry && entry.upstreamId !== entry.id)
      this.#toChild({ ...full, params: { ...full.params, requestId: entry.upstreamId } } as JsonRpcMessage);
    else this.#toChild(full, full === message ? raw : undefined);
  }

  #toChild(message: JsonRpcMessage, raw?: RawMessage): void {
    const child = this.#child;
    const generation = this.#generation;
    if (!child) return;
    child.send(message, raw).catch((error: Error) => {
      if (generation !== this.#generation) return;
      const entry = isRequest(message) ? this.#inFlight.get(keyOf(message.id)) : undefined;
      if (error instanceof SessionExpiredError) {
        // The HTTP server forgot our session and never saw this request: a new session, then again.
        if (entry) this.#expired.add(entry);
        void this.restart("the HTTP session expired");
      } else if (entry) {
        void this.#answer(
          entry,
          errorResponse(entry.id, ErrorCode.ServerUnavailable, `mcp-proxy: could not reach the server: ${error.message}`),
        );
      } else {
        this.#log.warn(`could not forward a message to the server: ${error.message}`);
      }
    });
    // The server reads slowly (or not at all): the client waits in its own pipe, not in our memory.
    if (child.hasRoom === false) this.#options.clientInput?.pause("server");
  }

  /** One message from the server process of `generation`. */
  #fromChild(generation: number, message: JsonRpcMessage, raw: RawMessage | undefined): void {
    if (generation !== this.#generation || this.#state === "closed") return;
    if (isResponse(message)) return this.#responseFromChild(message, raw);
    if (isRequest(message)) {
      if (this.#inputEnded) {
        // Nobody is left to answer: the server hears so at once instead of waiting forever.
        this.#toChild(
          errorResponse(
            message.id,
            ErrorCode.ServerUnavailable,
            `mcp-proxy: the client closed its input, so nobody can answer ${message.method}`,
          ),
        );
        return;
      }
      const id = this.#serverRequestIds.next();
      this.#serverRequests.set(id, { generation, id: message.id });
      void this.#send({ ...(raw === undefined ? message : completeMessage(message, raw)), id } as JsonRpcRequest);
      return;
    }
    if (
      message.method === LISTEN_ACKNOWLEDGED &&
      this.#replay.repeatedAcknowledgement(raw === undefined ? message : completeMessage(message, raw))
    ) {
      this.#log.debug("the client already has this subscriptions/listen acknowledgement: not passed on again");
      return;
    }
    void this.#send(message, raw);
  }

  #responseFromChild(message: JsonRpcResponse, raw: RawMessage | undefined): void {
    if (this.#ownIds.owns(message.id)) {
      this.#own.settle((raw === undefined ? message : completeMessage(message, raw)) as JsonRpcResponse);
      return;
    }
    const entry = message.id === null ? undefined : this.#inFlight.get(keyOf(message.id));
    if (!entry) {
      if (message.id === null) void this.#send(message, raw);
      else this.#log.debug(`dropped a server response to unknown id ${JSON.stringify(message.id)}`);
      return;
    }
    const patched = this.#patched(entry, message, raw);
    if (patched) return void this.#answer(entry, patched);
    if (entry.upstreamId !== entry.id)
      return void this.#answer(entry, {
        ...((raw === undefined ? message : completeMessage(message, raw)) as JsonRpcResponse),
        id: entry.id,
      });
    void this.#answer(entry, message, raw);
  }

  /**
   * The answers the proxy changes: a successful initialize or server/discover gains
   * tools.listChanged; the last page of tools/list gains restart_server, and a tools/list the
   * server does not offer at all (-32601) lists only it. Every other answer, errors included,
   * passes as it came.
   */
  #patched(entry: InFlight, message: JsonRpcResponse, raw: RawMessage | undefined): JsonRpcResponse | undefined {
    if (entry.method !== "initialize" && entry.method !== "server/discover" && entry.method !== "tools/list") return undefined;
    const full = (raw === undefined ? message : completeMessage(message, raw)) as JsonRpcResponse;
    if ("result" in full && (entry.method === "initialize" || entry.method === "server/discover")) {
      this.#childCapabilities = (full.result.capabilities as JsonObject) ?? {};
      return { ...full, id: entry.id, result: withListChanged(full.result) };
    }
    if (entry.method !== "tools/list") return undefined;
    if ("result" in full && !full.result.nextCursor) {
      const tools = Array.isArray(full.result.tools) ? full.result.tools : [];
      return { ...full, id: entry.id, result: { ...full.result, tools: [...tools, RESTART_TOOL_DEFINITION] } };
    }
    if ("error" in full && full.error.code === ErrorCode.MethodNotFound) {
      // A server with no tools at all: we advertised tools for restart_server, so we list it.
      return { jsonrpc: "2.0", id: entry.id, result: { tools: [RESTART_TOOL_DEFINITION] } };
    }
    return undefined;
  }

  /** The one answer a request gets: written to the client, and the request forgotten. */
  #answer(entry: InFlight, message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    this.#untrack(entry);
    return this.#send(message, raw);
  }

  #send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    // Once the client is gone, nothing more is written: stdout may be closed.
    if (this.#state === "closed") return Promise.resolve();
    const written = this.#options.toClient.write(raw ?? serializeMessage(message));
    if (!this.#options.toClient.hasRoom) this.#child?.pause?.();
    return written;
  }

  /** The proxy's own request to the current process; its answer never reaches the client. */
  #ownRequest(method: string, params: JsonObject, timeoutMs = this.#options.restartTimeoutMs): Promise<JsonObject> {
    const child = this.#child;
    if (!child) return Promise.reject(new Error("no server process"));
    return this.#own.request(channelPeer(child), method, params, { timeoutMs });
  }

  async #startChild(): Promise<void> {
    const child = await this.#options.connect();
    const generation = ++this.#generation;
    this.#child = child;
    child.onmessage = (message, raw) => this.#fromChild(generation, message, raw);
    child.onerror = (error) => {
      this.#log.warn(error.message);
      // An answer too large to pass on still answers its request: with an error, not silence.
      const id = error instanceof DroppedLineError && error.kind === "oversize" ? idFromEdges(error.head, error.tail) : undefined;
      const entry = id === undefined ? undefined : this.#inFlight.get(keyOf(id));
      if (entry) void this.#answer(entry, errorResponse(entry.id, ErrorCode.InternalError, `mcp-proxy: ${error.message}`));
    };
    child.onclose = (reason) => {
      if (generation !== this.#generation || this.#state === "closed") return;
      const why = reason ?? "the server went away";
      // Our own requests (a handshake under way) learn at once, not at their timeout.
      this.#own.rejectAll(why);
      this.#log.error(why);
      this.#onCrash(why);
    };
    // A new process has an empty pipe: whatever held the client back for the old one is over.
    child.ondrain = () => this.#options.clientInput?.resume("server");
    this.#options.clientInput?.resume("server");
    await child.start();
    // The client may have left while the process started: it must not outlive us.
    if (this.#state === "closed") {
      await child.close().catch(() => {});
      throw new Error("the proxy is closing");
    }
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
      if (report.ok && options.resetsBreaker) this.#breaker.reset();
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
      this.#checkIdle();
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

    // In flight: harmless requests go again to the new process (and those an expired HTTP session
    // never saw); an initialize is answered by the new process's handshake; anything else is
    // refused, since repeating it could do its work twice. What is kept stays owed (in flight).
    const resend: InFlight[] = [];
    const initializing: InFlight[] = [];
    for (const entry of [...this.#inFlight.values()]) {
      if (entry.method === "initialize") initializing.push(entry);
      else if (SAFE_TO_REPEAT_METHODS.has(entry.method) || this.#expired.has(entry)) resend.push(entry);
      else
        void this.#answer(
          entry,
          errorResponse(
            entry.id,
            ErrorCode.ServerRestarted,
            `mcp-proxy: the server restarted (${reason}) while ${entry.method} was running; it was not repeated, since that could do ` +
              `its work twice`,
          ),
        );
    }
    this.#cancelServerRequests(reason);
    this.#own.rejectAll("the server restarted");

    await this.#stopChild();
    if (delayMs > 0) {
      const wake = new AbortController();
      this.#wakeFromBackoff = () => wake.abort();
      await waitMs(delayMs, wake.signal);
    }
    this.#wakeFromBackoff = undefined;
    // The client may have left while we waited (TypeScript cannot see that state changes across await).
    if ((this.#state as string) === "closed") return { ok: false, reason, durationMs: 0, error: "the proxy is closing" };

    let initialized: JsonObject | undefined;
    try {
      await this.#startChild();
      const replayed = await this.#replay.replay(
        (method, params) => this.#ownRequest(method, params),
        (method) => void this.#child?.send({ jsonrpc: "2.0", method }).catch(() => {}),
      );
      this.#childCapabilities = replayed.capabilities;
      initialized = replayed.initialized;
      if ((this.#state as string) === "closed") throw new Error("the proxy is closing");
    } catch (error) {
      const message = (error as Error).message;
      if ((this.#state as string) !== "closed") this.#log.error(`the server did not ${first ? "start" : "come back"}: ${message}`);
      await this.#stopChild();
      this.#fail(`the server did not ${first ? "start" : "come back after a restart"}: ${message}`);
      // Counted like a crash: retried with backoff until the circuit breaker says enough.
      this.#crashDuringRestart = message;
      return { ok: false, reason, durationMs: Math.round(performance.now() - started), error: message };
    }

    this.#state = "running";
    for (const entry of initializing)
      void this.#answer(entry, { jsonrpc: "2.0", id: entry.id, result: withListChanged(initialized ?? {}) });
    this.#expired.clear();
    for (const entry of resend) {
      // Cancelled by the client while we restarted: not sent again.
      if (this.#inFlight.get(keyOf(entry.upstreamId)) === entry) this.#toChild(entry.message, entry.raw);
    }
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    for (const { message, raw } of queued) this.#dispatch(message, raw);
    this.#options.clientInput?.resume("restart");
    if (!first) {
      for (const notification of startAnnouncements(this.#childCapabilities, this.#replay.era(), resend)) await this.#send(notification);
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

  /** The old process's questions to the client are void: the client is told, and stale answers dropped. */
  #cancelServerRequests(reason: string): void {
    for (const [id, asked] of this.#serverRequests) {
      if (asked.generation !== this.#generation) continue;
      void this.#send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: `the server restarted (${reason})` },
      });
    }
    this.#serverRequests.clear();
  }

  /** All tools of the current process, through the proxy's own requests. */
  async #listTools(timeoutMs: number): Promise<Map<string, string>> {
    const tools = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const result = await this.#ownRequest("tools/list", this.#replay.params(cursor ? { cursor } : {}), timeoutMs);
      for (const tool of (result.tools as JsonObject[] | undefined) ?? []) tools.set(String(tool.name), JSON.stringify(tool));
      cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : undefined;
    } while (cursor);
    return tools;
  }

  async #answerRestartTool(request: JsonRpcRequest): Promise<void> {
    this.#restartCalls++;
    try {
      const report = await this.restart(`${RESTART_TOOL} tool`, { resetsBreaker: true });
      await this.#send({ jsonrpc: "2.0", id: request.id, result: restartToolResult(report, this.#replay.modern) });
    } finally {
      this.#restartCalls--;
      this.#checkIdle();
    }
  }

  #onCrash(reason: string): void {
    if (this.#state === "closed") return;
    if (this.#restarting) {
      this.#crashDuringRestart = reason;
      return;
    }
    const verdict = this.#breaker.crashed();
    if (!this.#options.autoRestart) return this.#fail(`${reason}; automatic restart is off`);
    if ("open" in verdict) {
      this.#log.error(
        `the server crashed ${verdict.crashes} times within ${CRASH_WINDOW_MS / 1000} s; not restarting it until ${RESTART_TOOL} is ` +
          `called or a watched file changes`,
      );
      return this.#fail(`it crashed ${verdict.crashes} times within ${CRASH_WINDOW_MS / 1000} s (last: ${reason})`);
    }
    void this.restart(`the server crashed: ${reason}`, { delayMs: verdict.restartInMs });
  }

  /** The server is down and stays down: everything waiting gets an answer that says why. */
  #fail(reason: string): void {
    if (this.#state === "closed") return;
    this.#state = "broken";
    this.#brokenReason = reason;
    for (const entry of [...this.#inFlight.values()])
      void this.#answer(entry, errorResponse(entry.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${reason}`));
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    for (const { message, raw } of queued) this.#dispatch(message, raw);
    this.#options.clientInput?.resume("restart");
    this.#checkIdle();
  }

  async #stopChild(options?: CloseOptions): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    this.#generation++;
    await child?.close(options).catch(() => {});
  }

  /** A client line too large to take: answered with an error when its id can be read. */
  refuseOversize(head: string, tail: string, bytes: number, limit: number): void {
    const id = idFromEdges(head, tail);
    if (id !== undefined)
      void this.#send(errorResponse(id, ErrorCode.InvalidRequest, `mcp-proxy: a ${bytes}-byte message is over the ${limit}-byte limit`));
  }

  /**
   * The client's input ended: nothing new will come. Waits (at most `timeoutMs`) until every
   * request still owed an answer has one, answering the rest with an error when time runs out.
   * Open-ended requests (subscriptions/listen) are not waited for; they are answered at the end.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.#inputEnded = true;
    // The server's questions can no longer be answered by the client: it hears so now.
    for (const [id, asked] of this.#serverRequests) {
      if (asked.generation === this.#generation)
        this.#toChild(errorResponse(asked.id, ErrorCode.ServerUnavailable, "mcp-proxy: the client closed its input"));
      this.#serverRequests.delete(id);
    }
    const idle = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.#checkIdle();
    const expired = !(await settlesWithin(idle, timeoutMs));
    const why = expired
      ? `the server did not answer within ${timeoutMs} ms of the end of the client's input`
      : "the client closed its input";
    for (const entry of [...this.#inFlight.values()])
      void this.#answer(entry, errorResponse(entry.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${why}`));
    for (const { message } of this.#queue.splice(0)) {
      if (isRequest(message)) void this.#send(errorResponse(message.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${why}`));
    }
  }

  /** Wakes drain() once nothing but open-ended requests is owed an answer (queued ones count). */
  #checkIdle(): void {
    if (this.#idleWaiters.length === 0 || this.#queue.length > 0 || this.#restartCalls > 0) return;
    for (const entry of this.#inFlight.values()) if (entry.method !== OPEN_ENDED) return;
    for (const waiter of this.#idleWaiters.splice(0)) (waiter as () => void)();
  }

  /** Our client is gone: stop the server and answer nothing more. */
  async close(options?: CloseOptions): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#own.close("the proxy is closing");
    this.#wakeFromBackoff?.();
    await this.#stopChild(options);
  }

  /**
   * Tells the client something went wrong outside any request (a failed build), as a logging
   * notification, where the protocol allows one: a 2025-era client of a server with logging.
   */
  async notifyClient(level: "info" | "warning" | "error", text: string): Promise<boolean> {
    if (this.#replay.era() !== "legacy" || !this.#childCapabilities.logging) return false;
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
