// One 2025-11-25 client of `mcp-proxy serve`: its Streamable HTTP session (the Mcp-Session-Id, the
// POST and GET streams, Last-Event-ID from a bounded event store, DELETE) in front of its own proxy
// to its own server process, so a stateful server keeps each client's state apart and a restart of
// one client's server loses none of its requests.
//
// A POST's requests are answered with one JSON body when the server sends nothing else for them
// first; a request or notification of the server's that belongs to them turns the answer into an
// SSE stream with event ids (the spec lets the server choose either, and clients accept both). Most
// calls are answered at once, and a JSON body costs a fraction of a stream: no event stored, no
// stream to set up and tear down. The HTTP rules (406, 404, 409, the version header) are the SDK
// transport's, message for message (legacy-rules.ts). Longer than most files here because a
// session's exchanges, streams and resumes share one state: cut apart, each part would reach into it.
import {
  ErrorCode,
  isJsonObject,
  isRequest,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type RawMessage,
  rawText,
} from "../../lib/wire/jsonrpc.ts";
import type { ClientInput, ClientOutput, McpProxy } from "../core.ts";
import type { Body } from "./endpoint.ts";
import { BoundedEventStore } from "./event-store.ts";
import { getRefusal, mayPrime, methodNotAllowed, postedMessages, refused, sessionNotFound, versionRefusal } from "./legacy-rules.ts";
import { SseStream } from "./sse-stream.ts";
import { UnreadBytes } from "./unread.ts";
import { ServerIntake, WaitingBodies } from "./waiting.ts";

/** The stream a server message goes on when it belongs to no request: the session's GET stream. */
const STANDALONE = "standalone";
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

export interface LegacySessionHooks {
  /** The session id is `<idPrefix>.<uuid>`, for a front that routes sessions by it. */
  idPrefix?: string;
  /** The proxy to this client's own server, writing what is meant for the client to `toClient`. */
  proxyFor(toClient: ClientOutput, intake: ClientInput): McpProxy;
  /** The session has its id: it is reachable from now on. */
  opened(session: LegacySession): void;
  /** The session is over (DELETE, idle, or the server gave up). */
  closed(session: LegacySession): void;
}

/** The requests of one POST and how they are being answered. */
interface Exchange {
  /** Names its events (a resume finds the exchange by it). */
  streamId: string;
  ids: JsonRpcId[];
  /** The answers so far, as the server wrote them. */
  answers: Map<JsonRpcId, string>;
  /** Set until the first message that is not an answer: then the answer is the SSE stream. */
  respond?: (response: Response) => void;
  /** The SSE stream the client reads now (none while it is away, until it resumes). */
  stream?: SseStream;
  /** The protocol version the POST said it speaks (its header, else the session's). */
  version: string;
}

export class LegacySession {
  id: string | undefined;
  readonly proxy: McpProxy;
  /** When the client last sent anything, or was last answered (for --session-idle). */
  lastUsed = Date.now();
  readonly #hooks: LegacySessionHooks;
  /** The client's requests not answered yet, by id: a server message outside any is related to the only one, if one. */
  readonly #exchanges = new Map<JsonRpcId, Exchange>();
  /** Exchanges whose answers are not all sent, by stream id (for a resume). */
  readonly #byStream = new Map<string, Exchange>();
  /** progressToken -> the request it belongs to, so progress goes on that request's stream. */
  readonly #progress = new Map<unknown, JsonRpcId>();
  /** What the client has not read yet: past the cap, its server is held back. */
  readonly #unread = new UnreadBytes();
  /** The session's request bodies whose answers are under way (endpoint.ts refuses past the cap): its own, not the others'. */
  readonly waiting = new WaitingBodies();
  /** Held back while the session's server takes nothing more: a notification's 202 waits for it. */
  readonly #intake = new ServerIntake();
  readonly #events = new BoundedEventStore();
  #standalone: SseStream | undefined;
  #protocolVersion: string | undefined;
  #streams = 0;
  #jsonHeaders: Record<string, string> = { "content-type": "application/json" };
  #closed = false;

  constructor(hooks: LegacySessionHooks) {
    this.#hooks = hooks;
    const unread = this.#unread;
    this.proxy = hooks.proxyFor(
      {
        write: async (line) => this.#toClient(line),
        get hasRoom() {
          return unread.hasRoom;
        },
        set onroom(resume: (() => void) | undefined) {
          unread.onroom = resume;
        },
      },
      this.#intake,
    );
  }

  async start(): Promise<void> {
    void this.proxy.start();
  }

  /** Quiet for `idleMs`: nothing asked of it and not answered, no stream open, nothing sent. */
  idleFor(idleMs: number, now = Date.now()): boolean {
    return this.#exchanges.size === 0 && this.#unread.openStreams === 0 && now - this.lastUsed >= idleMs;
  }

  /** One HTTP request of this session (a POST's body read and parsed already, within the cap). */
  async handle(request: Request, body?: Body): Promise<Response> {
    this.lastUsed = Date.now();
    if (this.#closed) return sessionNotFound();
    if (request.method === "POST") return this.#post(request, body);
    if (request.method === "GET") return this.#get(request);
    if (request.method === "DELETE") return versionRefusal(request) ?? this.#delete();
    return methodNotAllowed();
  }

  #post(request: Request, { value: body, text }: Body = { value: undefined, text: "" }): Promise<Response> | Response {
    const messages = postedMessages(request, body);
    if (messages instanceof Response) return messages;
    const initialize = messages.find((message) => isRequest(message) && message.method === "initialize");
    if (initialize) {
      if (this.id !== undefined) return refused(400, ErrorCode.InvalidRequest, "Invalid Request: Server already initialized");
      if (messages.length > 1) return refused(400, ErrorCode.InvalidRequest, "Invalid Request: Only one initialization request is allowed");
      this.#opened(initialize);
    } else {
      if (this.id === undefined) return refused(400, -32000, "Bad Request: Server not initialized");
      const wrongVersion = versionRefusal(request);
      if (wrongVersion) return wrongVersion;
    }
    const ids = messages.filter(isRequest).map((message) => message.id);
    // One message whose text is one line goes on as the client wrote it (no need to write it again).
    const asWritten = messages.length === 1 && !Array.isArray(body) && !/[\r\n]/.test(text) ? text : undefined;
    if (ids.length === 0) {
      const send = () => {
        for (const message of messages) this.#fromClient(message, asWritten);
      };
      return this.#intake.pass(send).then(() => new Response(null, { status: 202 }));
    }
    const version = request.headers.get("mcp-protocol-version") ?? this.#protocolVersion ?? "";
    const exchange: Exchange = { streamId: `post-${++this.#streams}`, ids, answers: new Map(), version };
    const answered = new Promise<Response>((resolve) => {
      exchange.respond = resolve;
    });
    for (const id of ids) this.#exchanges.set(id, exchange);
    this.#byStream.set(exchange.streamId, exchange);
    for (const message of messages) this.#fromClient(message, asWritten);
    return answered;
  }

  #opened(initialize: JsonRpcMessage): void {
    this.id = (this.#hooks.idPrefix === undefined ? "" : `${this.#hooks.idPrefix}.`) + crypto.randomUUID();
    const params = "params" in initialize && isJsonObject(initialize.params) ? initialize.params : {};
    if (typeof params.protocolVersion === "string") this.#protocolVersion = params.protocolVersion;
    this.#jsonHeaders = { "content-type": "application/json", "mcp-session-id": this.id };
    this.#hooks.opened(this);
  }

  #get(request: Request): Response {
    const cannot = getRefusal(request);
    if (cannot) return cannot;
    const lastEventId = request.headers.get("last-event-id");
    if (lastEventId) return this.#resume(lastEventId);
    if (this.#standalone) return refused(409, -32000, "Conflict: Only one SSE stream is allowed per session");
    return this.#standaloneStream(new SseStream());
  }

  /** A client back after losing a stream: what it missed, then the rest as it comes (if more is to come). */
  #resume(lastEventId: string): Response {
    const found = this.#events.after(lastEventId);
    if (!found) return refused(400, -32000, "Invalid event ID format");
    const exchange = this.#byStream.get(found.streamId);
    const live = found.streamId === STANDALONE ? this.#standalone : exchange?.stream;
    if (live) return refused(409, -32000, "Conflict: Stream already has an active connection");
    const stream = new SseStream();
    for (const event of found.events) stream.event(event.id, event.data);
    if (found.streamId === STANDALONE) return this.#standaloneStream(stream);
    // Only an exchange that has streamed has events to resume from; one answered whole is over.
    if (!exchange || exchange.respond) {
      stream.close();
      return this.#sseResponse(stream, []);
    }
    this.#attach(exchange, stream);
    return this.#sseResponse(stream, exchange.ids);
  }

  #standaloneStream(stream: SseStream): Response {
    this.#standalone = stream;
    stream.oncancel = () => {
      if (this.#standalone === stream) this.#standalone = undefined;
    };
    return this.#sseResponse(stream, [STANDALONE]);
  }

  #attach(exchange: Exchange, stream: SseStream): void {
    exchange.stream = stream;
    stream.oncancel = () => {
      if (exchange.stream === stream) exchange.stream = undefined;
    };
  }

  #sseResponse(stream: SseStream, carried: unknown[]): Response {
    stream.open();
    const headers = this.id === undefined ? SSE_HEADERS : { ...SSE_HEADERS, "mcp-session-id": this.id };
    return this.#unread.metered(new Response(stream.body, { status: 200, headers }), carried);
  }

  #delete(): Response {
    void this.close();
    return new Response(null, { status: 200 });
  }

  #fromClient(message: JsonRpcMessage, text?: string): void {
    if (isRequest(message)) {
      const token = isJsonObject(message.params?._meta) ? message.params._meta.progressToken : undefined;
      if (token !== undefined) this.#progress.set(token, message.id);
    }
    this.proxy.fromClient(text ?? JSON.stringify(message));
  }

  /** What the proxy writes for the client: answers by their id, the server's own messages by what they relate to. */
  async #toClient(line: RawMessage): Promise<void> {
    const data = rawText(line);
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(data) as JsonRpcMessage;
    } catch {
      return; // The proxy writes only whole JSON-RPC lines; nothing else can come.
    }
    if (isResponse(message)) {
      if (message.id !== null) this.#answer(message.id, data);
      return;
    }
    const related = this.#relatedTo(message);
    const exchange = related === undefined ? undefined : this.#exchanges.get(related);
    if (exchange && related !== undefined) {
      this.#streaming(exchange);
      this.#emit(exchange, related, data);
      return;
    }
    this.#unread.sent(STANDALONE, data.length);
    const eventId = this.#events.store(STANDALONE, data);
    this.#standalone?.event(eventId, data);
  }

  #answer(id: JsonRpcId, data: string): void {
    this.lastUsed = Date.now();
    for (const [token, request] of this.#progress) if (request === id) this.#progress.delete(token);
    const exchange = this.#exchanges.get(id);
    if (!exchange) return;
    this.#exchanges.delete(id);
    exchange.answers.set(id, data);
    if (!exchange.respond) this.#emit(exchange, id, data);
    if (exchange.answers.size < exchange.ids.length) return;
    this.#byStream.delete(exchange.streamId);
    if (!exchange.respond) return void exchange.stream?.close();
    const answers = exchange.ids.map((each) => exchange.answers.get(each));
    const body = answers.length === 1 ? answers[0]! : `[${answers.join(",")}]`;
    exchange.respond(new Response(body, { status: 200, headers: this.#jsonHeaders }));
  }

  /** The server sent something for an exchange besides its answers: from now on it is an SSE stream. */
  #streaming(exchange: Exchange): void {
    const respond = exchange.respond;
    if (!respond) return;
    exchange.respond = undefined;
    const stream = new SseStream();
    const { version } = exchange;
    if (mayPrime(version)) stream.prime(this.#events.nextId(exchange.streamId));
    this.#attach(exchange, stream);
    respond(this.#sseResponse(stream, exchange.ids));
    for (const [id, answer] of exchange.answers) this.#emit(exchange, id, answer);
  }

  /** One message on an exchange's stream, kept for a resume whether or not the client is there to read it. */
  #emit(exchange: Exchange, key: JsonRpcId, data: string): void {
    this.#unread.sent(key, data.length);
    const eventId = this.#events.store(exchange.streamId, data);
    exchange.stream?.event(eventId, data);
  }

  /** The request a server message belongs to: its progress token's, else the only one waiting (else the GET stream). */
  #relatedTo(message: JsonRpcMessage): JsonRpcId | undefined {
    const params = "params" in message && isJsonObject(message.params) ? message.params : {};
    const byToken =
      "method" in message && message.method === "notifications/progress" ? this.#progress.get(params.progressToken) : undefined;
    return byToken ?? (this.#exchanges.size === 1 ? this.#exchanges.keys().next().value : undefined);
  }

  /** Ends the session: its server stops, its streams close; a later request for it gets 404. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#hooks.closed(this);
    for (const exchange of new Set(this.#exchanges.values())) {
      exchange.respond?.(sessionNotFound());
      exchange.stream?.close();
    }
    this.#exchanges.clear();
    this.#byStream.clear();
    this.#standalone?.close();
    this.#intake.release();
    await this.proxy.close({ quick: true });
  }
}
