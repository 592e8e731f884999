// The forwarder: every message between the client and the current server process, routed by id
// both ways. Messages pass as the exact bytes that arrived, except what the proxy owns: the answers
// that advertise restart_server (restart-tool.ts), calls to restart_server (answered here), the
// server's own requests and a request reusing an id still in flight (both under ids of ours,
// in-flight.ts). A slow side holds the other back. One concept past 250 lines because each
// direction reads what the other recorded: a server answer goes to the request owed it, a client
// answer to the process that asked, a cancellation under the id the server knows.
import type { ConsolaInstance } from "consola/core";
import { cancelled } from "../lib/client/peer.ts";
import { HttpStatusError, SessionExpiredError } from "../lib/io/fetch.ts";
import { DroppedLineError } from "../lib/transport/channel.ts";
import type { LineStream, MessageHead } from "../lib/wire/cut-through.ts";
import { completeMessage, idFromEdges, isPartial, parseForRouting } from "../lib/wire/json-scan.ts";
import {
  ErrorCode,
  errorResponse,
  isBlank,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RawMessage,
  rawText,
  serializeMessage,
} from "../lib/wire/jsonrpc.ts";
import { type PieceWriter, ROOM } from "../lib/wire/line-writer.ts";
import { SAFE_TO_REPEAT_METHODS } from "../lib/wire/protocol.ts";
import type { ServerChild } from "./child.ts";
import { CutThrough, LISTEN_ACKNOWLEDGED } from "./cut-through.ts";
import { type InFlight, type InFlightTable, ServerRequests } from "./in-flight.ts";
import type { SessionReplay } from "./replay.ts";
import type { ProxyState, Restarter } from "./restart.ts";
import { isHandshake, PATCHED_METHODS, patchAnswer, RESTART_TOOL, restartToolResult } from "./restart-tool.ts";

/** Client messages whose contents the proxy reads (the rest it routes by id and method alone). */
const READ_IN_FULL = new Set([
  "initialize",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "subscriptions/listen",
  "notifications/cancelled",
]);
/** Where lines for the client go: a bounded writer (lib/wire/line-writer.ts). */
export interface ClientOutput {
  write(line: RawMessage): Promise<void>;
  readonly hasRoom: boolean;
  onroom?: () => void;
  /** Cut-through: one line written in pieces as they come; without it, every message is held whole. */
  openLine?(): PieceWriter | undefined;
}

/** The client's input, held back while the server (or a restart queue) cannot take more. */
export interface ClientInput {
  pause(reason?: string): void;
  resume(reason?: string): void;
}

export interface ForwardOptions {
  toClient: ClientOutput;
  clientInput?: ClientInput;
  log: ConsolaInstance;
  /** HTTP: a request the server never saw (an expired session) is sent again, whatever it is. */
  resendsUnseen?: boolean;
}

/** What the forwarder shares with the rest of the proxy. */
export interface ForwarderParts {
  child: ServerChild;
  inFlight: InFlightTable;
  replay: SessionReplay;
  restarter: Restarter;
}

export class Forwarder {
  readonly #options: ForwardOptions;
  readonly #log: ConsolaInstance;
  readonly #child: ServerChild;
  readonly #inFlight: InFlightTable;
  readonly #replay: SessionReplay;
  readonly #restarter: Restarter;
  readonly #serverRequests = new ServerRequests();
  /** What the current process declared in its handshake (the client's, or the replayed one). */
  capabilities: JsonObject = {};
  /** The client's input ended: nobody is left to answer the server's questions. */
  #inputEnded = false;
  readonly #cutThrough: CutThrough;

  constructor(options: ForwardOptions, parts: ForwarderParts) {
    this.#options = options;
    this.#log = options.log;
    ({ child: this.#child, inFlight: this.#inFlight, replay: this.#replay, restarter: this.#restarter } = parts);
    this.#child.onmessage = (message, raw) => this.#fromChild(message, raw);
    this.#child.onerror = (error) => this.#childError(error);
    this.#child.ondrain = () => options.clientInput?.resume("server");
    // The client reads slowly: the server's output waits in its pipe, not in our memory.
    options.toClient.onroom = () => this.#child.channel?.resume?.();
    this.#cutThrough = new CutThrough({
      child: this.#child,
      inFlight: this.#inFlight,
      toClient: options.toClient,
      clientInput: options.clientInput,
      readsInFull: READ_IN_FULL,
      running: () => this.#state === "running",
      holdsRequests: options.resendsUnseen === true,
      unfinished: (entry) =>
        void this.answer(
          entry,
          errorResponse(entry.id, ErrorCode.InvalidRequest, "mcp-proxy: the client's input ended in the middle of this request"),
        ),
    });
    this.#child.onlong = (head) => this.#cutThrough.fromChild(head);
  }

  /** A client message past HOLD_BYTES: streamed to the server as it comes, or undefined to have it held whole. */
  longFromClient(head: MessageHead): LineStream | undefined {
    if (this.#state === "closed") return undefined;
    return this.#cutThrough.fromClient(head);
  }

  get #state(): ProxyState {
    return this.#restarter.state;
  }

  /** One line from the client: its text, or its bytes as they arrived (not necessarily UTF-8). */
  fromClient(raw: RawMessage): void {
    if (this.#state === "closed" || isBlank(raw)) return;
    const parsed = parseForRouting(raw);
    if (!parsed.ok) {
      this.#log.warn(`answered a client line that is not JSON-RPC (${parsed.error})`);
      void this.send(invalidLineAnswer(raw, parsed.error));
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
    if (this.#state === "restarting" || this.#state === "starting") return this.#restarter.hold(message, raw);
    this.dispatch(message, raw);
  }

  /** A client message the current state lets through (or refuses, when broken); queued ones come here later. */
  dispatch(message: JsonRpcMessage, raw: RawMessage): void {
    if (isRequest(message)) {
      this.#replay.remember(message);
      if (this.#state === "broken") {
        void this.send(
          errorResponse(
            message.id,
            ErrorCode.ServerUnavailable,
            `mcp-proxy: the server is down (${this.#restarter.brokenReason}); call ${RESTART_TOOL} or change a watched file`,
          ),
        );
        return;
      }
      const entry = this.#inFlight.track(message, raw);
      if (entry.upstreamId !== entry.id)
        this.#log.debug(`the client reused id ${JSON.stringify(message.id)} while it was in flight; sent as ${entry.upstreamId}`);
      this.toChild(entry.message, entry.raw);
      // Only a request that may be sent again keeps its bytes (and, when its id was rewritten, its
      // parsed contents): a 1 MB tool call in flight costs nothing here.
      if (!SAFE_TO_REPEAT_METHODS.has(entry.method) && !this.#options.resendsUnseen) {
        entry.raw = undefined;
        entry.message = { jsonrpc: "2.0", id: entry.upstreamId, method: entry.method };
      }
    } else if (isNotification(message)) {
      if (message.method === "notifications/initialized") this.#replay.clientInitialized();
      if (message.method === "notifications/cancelled") return this.#cancelFromClient(message, raw);
      if (this.#state === "running") this.toChild(message, raw);
    } else {
      // The client's answer to a server request: back to the process that asked, under its own id.
      const asked = this.#serverRequests.take(message.id);
      if (asked && asked.generation === this.#child.generation && this.#state === "running")
        this.toChild({ ...completeMessage(message, raw), id: asked.id } as JsonRpcMessage);
      else
        this.#log.debug(`dropped the client's answer to ${JSON.stringify(message.id)}: the server process that asked has since restarted`);
    }
  }

  /** The client gave up on a request: the server is told under the id it knows it by. */
  #cancelFromClient(message: JsonRpcMessage & { params?: JsonObject }, raw: RawMessage): void {
    const full = completeMessage(message, raw) as JsonRpcMessage & { params?: JsonObject };
    const id = full.params?.requestId;
    const entry = typeof id === "string" || typeof id === "number" ? this.#inFlight.newest(id) : undefined;
    if (entry) this.#inFlight.forget(entry);
    if (this.#state !== "running") return;
    if (entry && entry.upstreamId !== entry.id)
      this.toChild({ ...full, params: { ...full.params, requestId: entry.upstreamId } } as JsonRpcMessage);
    else this.toChild(full, full === message ? raw : undefined);
  }

  /** To the current process, if one runs; a request it cannot reach is answered, one an expired HTTP session refused goes again. */
  toChild(message: JsonRpcMessage, raw?: RawMessage): void {
    const child = this.#child.channel;
    const generation = this.#child.generation;
    if (!child) return;
    const sent = child.send(message, raw);
    // Sent with room to spare (the usual case): nothing can fail later, so no handler is attached.
    if (sent !== ROOM) sent.catch((error: Error) => this.#notSent(message, generation, error));
    // The server reads slowly (or not at all): the client waits in its own pipe, not in our memory.
    if (child.hasRoom === false) this.#options.clientInput?.pause("server");
  }

  #notSent(message: JsonRpcMessage, generation: number, error: Error): void {
    if (generation !== this.#child.generation) return;
    const entry = isRequest(message) ? this.#inFlight.get(message.id) : undefined;
    if (error instanceof SessionExpiredError) {
      // The HTTP server forgot our session and never saw this request: a new session, then again.
      if (entry) this.#inFlight.markExpired(entry);
      void this.#restarter.restart("the HTTP session expired");
    } else if (entry) {
      // A server that answered with an HTTP status (a failed sign-in among them) was reached: the error says what it said.
      const why = error instanceof HttpStatusError ? error.message : `could not reach the server: ${error.message}`;
      void this.answer(entry, errorResponse(entry.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${why}`));
    } else {
      this.#log.warn(`could not forward a message to the server: ${error.message}`);
    }
  }

  /** One message from the current server process. */
  #fromChild(message: JsonRpcMessage, raw: RawMessage | undefined): void {
    if (this.#state === "closed") return;
    if (isResponse(message)) return this.#responseFromChild(message, raw);
    if (isRequest(message)) {
      if (this.#inputEnded) {
        // Nobody is left to answer: the server hears so at once instead of waiting forever.
        this.toChild(
          errorResponse(
            message.id,
            ErrorCode.ServerUnavailable,
            `mcp-proxy: the client closed its input, so nobody can answer ${message.method}`,
          ),
        );
        return;
      }
      const id = this.#serverRequests.ask(this.#child.generation, message.id);
      void this.send({ ...(raw === undefined ? message : completeMessage(message, raw)), id } as JsonRpcRequest);
      return;
    }
    if (
      message.method === LISTEN_ACKNOWLEDGED &&
      this.#replay.repeatedAcknowledgement(raw === undefined ? message : completeMessage(message, raw))
    ) {
      this.#log.debug("the client already has this subscriptions/listen acknowledgement: not passed on again");
      return;
    }
    void this.send(message, raw);
  }

  #responseFromChild(message: JsonRpcResponse, raw: RawMessage | undefined): void {
    if (this.#child.settles(message, raw)) return;
    const entry = message.id === null ? undefined : this.#inFlight.get(message.id);
    if (!entry) {
      if (message.id === null) void this.send(message, raw);
      else this.#log.debug(`dropped a server response to unknown id ${JSON.stringify(message.id)}`);
      return;
    }
    const patched = this.#patched(entry, message, raw);
    if (patched) return void this.answer(entry, patched);
    if (entry.upstreamId !== entry.id)
      return void this.answer(entry, {
        ...((raw === undefined ? message : completeMessage(message, raw)) as JsonRpcResponse),
        id: entry.id,
      });
    void this.answer(entry, message, raw);
  }

  /** The answer as the client gets it when the proxy changes it (restart-tool.ts); a handshake's also tells the capabilities. */
  #patched(entry: InFlight, message: JsonRpcResponse, raw: RawMessage | undefined): JsonRpcResponse | undefined {
    if (!PATCHED_METHODS.has(entry.method)) return undefined;
    const full = (raw === undefined ? message : completeMessage(message, raw)) as JsonRpcResponse;
    if ("result" in full && isHandshake(entry.method)) this.capabilities = (full.result.capabilities as JsonObject) ?? {};
    return patchAnswer(entry.method, entry.id, full);
  }

  /** The one answer a request gets: written to the client, and the request forgotten. */
  answer(entry: InFlight, message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    this.#inFlight.forget(entry);
    return this.send(message, raw);
  }

  /** To the client; a client that reads slowly holds the server back. */
  send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    // Once the client is gone, nothing more is written: stdout may be closed.
    if (this.#state === "closed") return Promise.resolve();
    const written = this.#options.toClient.write(raw ?? serializeMessage(message));
    if (!this.#options.toClient.hasRoom) this.#child.channel?.pause?.();
    return written;
  }

  /** The old process's questions to the client are void: the client is told, and stale answers dropped. */
  voidQuestions(reason: string): void {
    for (const asked of this.#serverRequests.takeAll(this.#child.generation))
      void this.send(cancelled(asked.asClient, `the server restarted (${reason})`));
  }

  async #answerRestartTool(request: JsonRpcRequest): Promise<void> {
    const answered = this.#inFlight.owe();
    try {
      const report = await this.#restarter.restart(`${RESTART_TOOL} tool`, { resetsBreaker: true });
      await this.send({ jsonrpc: "2.0", id: request.id, result: restartToolResult(report, this.#replay.modern) });
    } finally {
      answered();
    }
  }

  /** An answer too large to pass on still answers its request: with an error, not silence. */
  #childError(error: Error): void {
    this.#log.warn(error.message);
    const id = error instanceof DroppedLineError && error.kind === "oversize" ? idFromEdges(error.head, error.tail) : undefined;
    const entry = id === undefined ? undefined : this.#inFlight.get(id);
    if (entry) void this.answer(entry, errorResponse(entry.id, ErrorCode.InternalError, `mcp-proxy: ${error.message}`));
  }

  /** The client's input ended: the server's questions can no longer be answered, and it hears so now (and at once for later ones). */
  endInput(): void {
    this.#inputEnded = true;
    for (const asked of this.#serverRequests.takeAll(this.#child.generation))
      this.toChild(errorResponse(asked.id, ErrorCode.ServerUnavailable, "mcp-proxy: the client closed its input"));
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
