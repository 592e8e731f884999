// The 2026-07-28 side of `mcp-proxy serve`: stateless requests from any number of clients, on one
// shared server process behind one proxy. Each request gets an id (and a progress token) of ours,
// so that two clients' id 1 never meet; its answer goes back under the client's own id on that
// request's HTTP exchange (the SDK's per-request transport: JSON, or SSE once a notification comes
// first). Headers are checked against the body first (-32020), with the tools' annotated parameters
// learned from every tools/list and, for a tool not seen yet, from a listing of our own. Closing
// the exchange is the cancellation, told to the server as notifications/cancelled.
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageClassification,
  PerRequestHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { headerMismatch, McpHeaders, requestRevision } from "../../lib/transport/http/headers.ts";
import { ToolListing } from "../../lib/transport/http/tool-listing.ts";
import {
  ErrorCode,
  errorResponse,
  isJsonObject,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RawMessage,
  rawText,
} from "../../lib/wire/jsonrpc.ts";
import { LEGACY_PROTOCOL_VERSIONS, META_SUBSCRIPTION_ID, MODERN_PROTOCOL_VERSIONS } from "../../lib/wire/protocol.ts";
import type { ClientInput, ClientOutput, McpProxy } from "../core.ts";
import { jsonRpcErrorResponse } from "./responses.ts";
import { UnreadBytes } from "./unread.ts";
import { ServerIntake } from "./waiting.ts";

/** How long the first request waits to learn whether the server speaks 2026-07-28 at all. */
export const ERA_PROBE_TIMEOUT_MS = 30_000;

interface Exchange {
  transport: PerRequestHTTPServerTransport;
  clientId: JsonRpcId;
  /** The client's progress token, under ours. */
  clientToken?: unknown;
  /** A notification went first: the answer is an SSE event now, whatever it is. */
  streaming: boolean;
  /** Answers the exchange with a response of our own making (a protocol error's HTTP status). */
  respond: (response: Response) => void;
  /** What its client has not read: past the cap the exchange ends (the server is shared, so it is not held back). */
  unread: UnreadBytes;
}

/**
 * Errors of the protocol layer, not of a handler, and the HTTP status the transport spec gives them
 * (as the SDK's servers answer them): a method the revision removed is a 404, and so on.
 */
const PROTOCOL_ERROR_STATUS: Record<number, number> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
  [ErrorCode.MissingClientCapability]: 400,
  [ErrorCode.HeaderMismatch]: 400,
};

export class StatelessEndpoint {
  readonly #proxyFor: (toClient: ClientOutput, intake: ClientInput) => McpProxy;
  /** Held back while the shared server takes nothing more: a notification's 202 waits for it. */
  readonly #intake = new ServerIntake();
  #proxy?: McpProxy;
  readonly #exchanges = new Map<string, Exchange>();
  /** Our progress token -> our id of the request it belongs to. */
  readonly #tokens = new Map<string, string>();
  readonly #headers = new McpHeaders();
  readonly #listing = new ToolListing({
    post: async (request) => {
      this.#headers.sent(request, requestRevision(request));
      this.#send(request);
    },
    cancel: (id) => this.#send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "nobody waits" } }),
    knows: (tool) => this.#headers.knows(tool),
  });
  /** The revisions the server's server/discover lists; undefined inside: it speaks only the 2025 handshake. */
  #versions?: Promise<string[] | undefined>;
  readonly #probes = new Map<string, (answer: JsonRpcMessage) => void>();
  #sequence = 0;
  readonly #prefix = `serve-${crypto.randomUUID().slice(0, 8)}`;

  constructor(proxyFor: (toClient: ClientOutput, intake: ClientInput) => McpProxy) {
    this.#proxyFor = proxyFor;
  }

  /** The shared proxy, started on the first 2026-07-28 request. */
  get proxy(): McpProxy | undefined {
    return this.#proxy;
  }

  /** One 2026-07-28 request or notification (classified by the SDK's edge rules already). */
  async handle(request: Request, message: JsonRpcMessage, classification: MessageClassification): Promise<Response> {
    const revision = classification.revision ?? requestRevision(message) ?? "";
    const versions = await this.#serverVersions();
    if (!versions?.includes(revision)) {
      const why = versions
        ? `Unsupported protocol version ${revision}: the server speaks ${versions.join(", ")}`
        : "Unsupported protocol version: the server behind mcp-proxy serve speaks only the 2025 handshake (use initialize, " +
          `with one of ${LEGACY_PROTOCOL_VERSIONS.join(", ")})`;
      const id = isRequest(message) ? message.id : null;
      return jsonRpcErrorResponse(400, id, ErrorCode.UnsupportedProtocolVersion, why, {
        supported: versions ?? LEGACY_PROTOCOL_VERSIONS,
        requested: revision,
      });
    }
    if (!isRequest(message)) {
      await this.#intake.pass(() => this.#send(message));
      return new Response(null, { status: 202 });
    }
    const tool = this.#listing.unknownTool(message, revision);
    const signal = request.signal;
    if (tool) await this.#listing.before(message, tool, signal);
    const specs = message.method === "tools/call" ? this.#headers.specsOf(String(message.params?.name)) : undefined;
    const mismatch = headerMismatch(request.headers, message, revision, specs);
    if (mismatch)
      return jsonRpcErrorResponse(
        400,
        message.id,
        ErrorCode.HeaderMismatch,
        `Bad Request: the request headers and body disagree: ${mismatch}`,
      );
    return this.#exchange(request, message, classification);
  }

  async #exchange(request: Request, message: JsonRpcRequest, classification: MessageClassification): Promise<Response> {
    const ours = `${this.#prefix}-${++this.#sequence}`;
    const meta = isJsonObject(message.params?._meta) ? message.params._meta : undefined;
    const clientToken = meta?.progressToken;
    const params: JsonObject = { ...message.params };
    if (clientToken !== undefined) {
      params._meta = { ...meta, progressToken: ours };
      this.#tokens.set(ours, ours);
    }
    const transport = new PerRequestHTTPServerTransport({ classification });
    const early = Promise.withResolvers<Response>();
    const unread = new UnreadBytes();
    this.#exchanges.set(ours, {
      transport,
      clientId: message.id,
      ...(clientToken !== undefined ? { clientToken } : {}),
      streaming: false,
      respond: early.resolve,
      unread,
    });
    transport.onmessage = () => this.#send({ ...message, id: ours, params });
    transport.onclose = () => {
      // Closed before its answer: the client went away, which cancels the request.
      if (this.#forget(ours)) this.#send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: ours } });
    };
    await transport.start();
    this.#headers.sent({ ...message, id: ours }, classification.revision);
    const served = transport.handleMessage(message as JSONRPCRequest, { request });
    // Closed after an answer of our own making: nobody waits for the transport's.
    served.catch(() => {});
    return unread.metered(await Promise.race([served, early.promise]), [ours]);
  }

  /** Forgets an exchange; true if it was still waiting for its answer. */
  #forget(ours: string): boolean {
    const waiting = this.#exchanges.delete(ours);
    this.#tokens.delete(ours);
    return waiting;
  }

  #send(message: JsonRpcMessage): void {
    this.#proxy ??= this.#start();
    this.#proxy.fromClient(JSON.stringify(message));
  }

  #start(): McpProxy {
    const proxy = this.#proxyFor({ write: async (line) => this.#fromServer(line), hasRoom: true }, this.#intake);
    void proxy.start();
    return proxy;
  }

  /** Asks the server once (server/discover) which revisions it speaks; a probe with no answer is asked again next time. */
  #serverVersions(): Promise<string[] | undefined> {
    this.#versions ??= new Promise<string[] | undefined>((resolve) => {
      const id = `${this.#prefix}-probe-${++this.#sequence}`;
      const timer = setTimeout(() => {
        this.#versions = undefined;
        finish(undefined);
      }, ERA_PROBE_TIMEOUT_MS);
      const finish = (versions: string[] | undefined) => {
        clearTimeout(timer);
        this.#probes.delete(id);
        resolve(versions);
      };
      this.#probes.set(id, (answer) => {
        const listed = "result" in answer && Array.isArray(answer.result.supportedVersions) ? answer.result.supportedVersions : undefined;
        finish(listed?.filter((version): version is string => typeof version === "string"));
      });
      const meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSIONS[0]!,
        "io.modelcontextprotocol/clientInfo": { name: "mcp-proxy serve", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      this.#send({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: meta } });
    });
    return this.#versions;
  }

  /** What the server wrote for "the client": an answer to the exchange it belongs to, a notification to its request's stream. */
  async #fromServer(line: RawMessage): Promise<void> {
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(rawText(line)) as JsonRpcMessage;
    } catch {
      return;
    }
    if (isResponse(message)) {
      const id = String(message.id);
      const probe = this.#probes.get(id);
      if (probe) return probe(message);
      this.#headers.toolsToKeep(message, () => {});
      if (this.#listing.answered(message)) return;
      const exchange = this.#exchanges.get(id);
      if (!exchange || !this.#forget(id)) return;
      const status = "error" in message ? PROTOCOL_ERROR_STATUS[message.error.code] : undefined;
      if (status !== undefined && !exchange.streaming) {
        const { code, message: text, data } = (message as { error: { code: number; message: string; data?: unknown } }).error;
        exchange.respond(jsonRpcErrorResponse(status, exchange.clientId, code, text, data));
        void exchange.transport.close();
        return;
      }
      await exchange.transport.send({ ...message, id: exchange.clientId } as JSONRPCMessage);
      return;
    }
    if (isRequest(message)) {
      // 2026-07-28 asks the client through input_required results, never by a request of its own.
      const refusal = errorResponse(message.id, ErrorCode.MethodNotFound, "mcp-proxy serve: a 2026-07-28 client takes no requests");
      this.#proxy?.fromClient(JSON.stringify(refusal));
      return;
    }
    const params = isJsonObject(message.params) ? message.params : {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const ours =
      message.method === "notifications/progress" ? this.#tokens.get(String(params.progressToken)) : String(meta[META_SUBSCRIPTION_ID]);
    const exchange = ours === undefined ? undefined : this.#exchanges.get(ours);
    if (!exchange) return; // Outside any request: 2026-07-28 has no stream for it.
    exchange.unread.sent(ours, rawText(line).length);
    if (!exchange.unread.hasRoom) {
      // A client that does not read while its request streams on: the exchange ends, which cancels it.
      void exchange.transport.close();
      return;
    }
    exchange.streaming = true;
    const restored =
      message.method === "notifications/progress"
        ? { ...params, progressToken: exchange.clientToken }
        : { ...params, _meta: { ...meta, [META_SUBSCRIPTION_ID]: exchange.clientId } };
    await exchange.transport.send({ ...message, params: restored } as JSONRPCMessage, { relatedRequestId: exchange.clientId });
  }

  async close(): Promise<void> {
    for (const { transport } of this.#exchanges.values()) await transport.close().catch(() => {});
    this.#exchanges.clear();
    this.#listing.abandon();
    this.#intake.release();
    await this.#proxy?.close({ quick: true });
  }
}
