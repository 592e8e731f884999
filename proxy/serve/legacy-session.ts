// One 2025-11-25 client of `mcp-proxy serve`: its Streamable HTTP session (the SDK's transport:
// the Mcp-Session-Id, the POST and GET streams, Last-Event-ID from a bounded event store, DELETE)
// in front of its own proxy to its own server process, so a stateful server keeps each client's
// state apart and a restart of one client's server loses none of its requests.
import { type JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import {
  isJsonObject,
  isRequest,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RawMessage,
  rawText,
} from "../../lib/wire/jsonrpc.ts";
import type { ClientOutput, McpProxy } from "../core.ts";
import { BoundedEventStore } from "./event-store.ts";
import { UnreadBytes } from "./unread.ts";

/** The stream a server message goes on when it belongs to no request: the session's GET stream. */
const STANDALONE = "standalone";

export interface LegacySessionHooks {
  /** The session id is `<idPrefix>.<uuid>`, for a front that routes sessions by it. */
  idPrefix?: string;
  /** The proxy to this client's own server, writing what is meant for the client to `toClient`. */
  proxyFor(toClient: ClientOutput): McpProxy;
  /** The session has its id: it is reachable from now on. */
  opened(session: LegacySession): void;
  /** The session is over (DELETE, idle, or the server gave up). */
  closed(session: LegacySession): void;
}

export class LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly proxy: McpProxy;
  /** When the client last sent anything, or was last answered (for --session-idle). */
  lastUsed = Date.now();
  readonly #hooks: LegacySessionHooks;
  /** The client's requests not answered yet: a server message outside any of them is related to the only one, if one. */
  readonly #waiting = new Set<JsonRpcId>();
  /** progressToken -> the request it belongs to, so progress goes on that request's stream. */
  readonly #progress = new Map<unknown, JsonRpcId>();
  /** What the client has not read yet: past the cap, its server is held back. */
  readonly #unread = new UnreadBytes();
  #closed = false;

  constructor(hooks: LegacySessionHooks) {
    this.#hooks = hooks;
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => (hooks.idPrefix === undefined ? "" : `${hooks.idPrefix}.`) + crypto.randomUUID(),
      eventStore: new BoundedEventStore(),
      onsessioninitialized: () => hooks.opened(this),
      onsessionclosed: () => void this.close(),
    });
    this.transport.onmessage = (message) => this.#fromClient(message as JsonRpcMessage);
    const unread = this.#unread;
    this.proxy = hooks.proxyFor({
      write: async (line) => this.#toClient(line),
      get hasRoom() {
        return unread.hasRoom;
      },
      set onroom(resume: (() => void) | undefined) {
        unread.onroom = resume;
      },
    });
  }

  get id(): string | undefined {
    return this.transport.sessionId;
  }

  async start(): Promise<void> {
    await this.transport.start();
    void this.proxy.start();
  }

  /** One HTTP request of this session (the body read and parsed already, within the cap). */
  /** Quiet for `idleMs`: nothing asked of it and not answered, no stream open, nothing sent. */
  idleFor(idleMs: number, now = Date.now()): boolean {
    return this.#waiting.size === 0 && this.#unread.openStreams === 0 && now - this.lastUsed >= idleMs;
  }

  async handle(request: Request, parsedBody?: unknown): Promise<Response> {
    this.lastUsed = Date.now();
    const response = await this.transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
    const carried = request.method === "GET" ? [STANDALONE] : request.method === "POST" ? requestIds(parsedBody) : [];
    return this.#unread.metered(response, carried);
  }

  #fromClient(message: JsonRpcMessage): void {
    if (isRequest(message)) {
      this.#waiting.add(message.id);
      const token = isJsonObject(message.params?._meta) ? message.params._meta.progressToken : undefined;
      if (token !== undefined) this.#progress.set(token, message.id);
    }
    this.proxy.fromClient(JSON.stringify(message));
  }

  /** What the proxy writes for the client: answers by their id, the server's own messages by what they relate to. */
  async #toClient(line: RawMessage): Promise<void> {
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(rawText(line)) as JsonRpcMessage;
    } catch {
      return; // The proxy writes only whole JSON-RPC lines; nothing else can come.
    }
    const bytes = rawText(line).length;
    if (isResponse(message)) {
      if (message.id !== null) this.#answered(message.id);
      this.#unread.sent(message.id, bytes);
      await this.transport.send(message as JSONRPCMessage).catch(() => {});
      return;
    }
    const related = this.#relatedTo(message);
    this.#unread.sent(related?.relatedRequestId ?? STANDALONE, bytes);
    await this.transport.send(message as JSONRPCMessage, related).catch(() => {});
  }

  /** The request a server message belongs to: its progress token's, else the only one waiting (else the GET stream). */
  #relatedTo(message: JsonRpcMessage): { relatedRequestId: JsonRpcId } | undefined {
    const params = "params" in message && isJsonObject(message.params) ? message.params : {};
    const byToken =
      "method" in message && message.method === "notifications/progress" ? this.#progress.get(params.progressToken) : undefined;
    const only = this.#waiting.size === 1 ? [...this.#waiting][0] : undefined;
    const related = byToken ?? only;
    return related === undefined ? undefined : { relatedRequestId: related };
  }

  #answered(id: JsonRpcId): void {
    this.lastUsed = Date.now();
    this.#waiting.delete(id);
    for (const [token, request] of this.#progress) if (request === id) this.#progress.delete(token);
  }

  /** Ends the session: its server stops, its streams close; a later request for it gets 404. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#hooks.closed(this);
    await Promise.allSettled([this.proxy.close({ quick: true }), this.transport.close()]);
  }
}

/** The ids of the requests a POST body carries (their answers go on its stream). */
function requestIds(body: unknown): JsonRpcId[] {
  return (Array.isArray(body) ? body : [body])
    .filter((message): message is JsonRpcRequest => isJsonObject(message) && isRequest(message as unknown as JsonRpcMessage))
    .map((message) => message.id);
}
