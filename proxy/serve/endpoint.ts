// serve's one URL, /mcp: who may call it (Host, Origin, the bearer token), what a body may be
// (JSON, within the message cap), and where each request goes: a 2025 session's own server (the
// Mcp-Session-Id, or an initialize that opens one), or the shared 2026-07-28 one. The SDK's edge
// rules (classifyInboundRequest) tell the eras apart exactly as SDK servers do.

import {
  classifyInboundRequest,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import type { ConsolaInstance } from "consola/core";
import { readBodyCapped } from "../../lib/io/fetch.ts";
import { ErrorCode, isJsonObject, type JsonRpcId, type JsonRpcMessage } from "../../lib/wire/jsonrpc.ts";
import { MAX_MESSAGE_BYTES } from "../../lib/wire/limits.ts";
import type { ClientInput, ClientOutput, McpProxy } from "../core.ts";
import { LegacySession } from "./legacy-session.ts";
import { jsonRpcErrorResponse } from "./responses.ts";
import { StatelessEndpoint } from "./stateless.ts";
import { WaitingBodies } from "./waiting.ts";

export const MCP_PATH = "/mcp";

/** A POST's body: as parsed, and as it came. */
export interface Body {
  value: unknown;
  text: string;
}

export interface EndpointOptions {
  /** Bound to a loopback address: Host is checked against the loopback names (DNS rebinding). */
  loopback: boolean;
  /** Every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  maxSessions: number;
  sessionIdleMs: number;
  /** What every session id starts with (then a dot). */
  sessionPrefix?: string;
  /** A proxy to a new server process; `tag` names whose it is in the logs; `intake` is held back while the server takes nothing. */
  proxyFor(toClient: ClientOutput, tag: string, intake: ClientInput): McpProxy;
  log: ConsolaInstance;
}

export class ServeEndpoint {
  readonly #options: EndpointOptions;
  readonly #sessions = new Map<string, LegacySession>();
  /** Sessions whose initialize is still on its way (they count toward --max-sessions too). */
  readonly #opening = new Set<LegacySession>();
  readonly #stateless: StatelessEndpoint;
  /** The bodies waiting on the shared 2026-07-28 server (a 2025 session counts its own; an initialize, bounded by --max-sessions, none). */
  readonly #sharedWaiting = new WaitingBodies();
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(options: EndpointOptions) {
    this.#options = options;
    this.#stateless = new StatelessEndpoint((toClient, intake) => options.proxyFor(toClient, "stateless", intake));
    this.#sweeper = setInterval(() => this.#endIdle(), Math.max(1_000, Math.min(options.sessionIdleMs / 4, 60_000)));
    this.#sweeper.unref?.();
  }

  /** Every server process serve runs now (a restart of all, for --watch). */
  proxies(): McpProxy[] {
    return [...this.#sessions.values(), ...this.#opening].map((session) => session.proxy).concat(this.#stateless.proxy ?? []);
  }

  get sessionCount(): number {
    return this.#sessions.size + this.#opening.size;
  }

  readonly fetch = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname !== MCP_PATH) return new Response("Not Found", { status: 404 });
    const refused = this.#refusal(request);
    if (refused) return refused;
    const sessionId = request.headers.get("mcp-session-id");
    const session = sessionId === null ? undefined : this.#sessions.get(sessionId);
    if (sessionId !== null && !session) return jsonRpcErrorResponse(404, null, -32001, "Session not found");
    if (request.method !== "POST")
      return session ? session.handle(request) : jsonRpcErrorResponse(400, null, -32000, "Bad Request: Mcp-Session-Id header is required");
    if (session) {
      // A body that cannot wait is refused before it is read, when its length is declared.
      const declared = Number(request.headers.get("content-length") ?? Number.NaN);
      if (Number.isFinite(declared) && !session.waiting.admits(declared)) return busy(session.waiting, null);
    }
    const read = await this.#body(request);
    if (read instanceof Response) return read;
    return session ? held(session.waiting, read, () => session.handle(request, read)) : this.#route(request, read);
  };

  /** A POST without a session: a 2026-07-28 request for the shared server, or an initialize that opens a session. */
  async #route(request: Request, read: Body): Promise<Response> {
    const body = read.value;
    const route = classifyInboundRequest({
      httpMethod: request.method,
      body,
      ...headerOf(request, "mcp-protocol-version", "protocolVersionHeader"),
      ...headerOf(request, "mcp-method", "mcpMethodHeader"),
      ...headerOf(request, "mcp-name", "mcpNameHeader"),
    });
    if (route.kind === "reject") return jsonRpcErrorResponse(route.httpStatus, idOf(body), route.code, route.message, route.data);
    if (route.kind === "modern")
      return held(this.#sharedWaiting, read, () => this.#stateless.handle(request, route.message as JsonRpcMessage, route.classification));
    const opens = (message: unknown) => isJsonObject(message) && message.method === "initialize";
    if (!(Array.isArray(body) ? body.some(opens) : opens(body)))
      return jsonRpcErrorResponse(400, idOf(body), -32000, "Bad Request: Server not initialized (no Mcp-Session-Id)");
    return this.#open(request, read);
  }

  /** Host and Origin (DNS rebinding, a web page elsewhere), then the token. */
  #refusal(request: Request): Response | undefined {
    if (this.#options.loopback) {
      const rejected =
        hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
      if (rejected) return rejected;
    } else {
      const origin = request.headers.get("origin");
      if (origin !== null && !sameHost(origin, request.headers.get("host")))
        return jsonRpcErrorResponse(403, null, -32000, `Forbidden: Origin ${origin} is not this server's`);
    }
    const token = this.#options.token;
    if (token !== undefined && !bearerMatches(request.headers.get("authorization"), token)) {
      const response = jsonRpcErrorResponse(401, null, -32000, "Unauthorized: a bearer token is required");
      response.headers.set("WWW-Authenticate", 'Bearer realm="mcp-proxy serve"');
      return response;
    }
    return undefined;
  }

  /** The POST body as JSON, read within the message cap; or the response that refuses it. */
  async #body(request: Request): Promise<Body | Response> {
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type))
      return jsonRpcErrorResponse(415, null, -32000, "Unsupported Media Type: the body must be application/json");
    const tooLarge = () => jsonRpcErrorResponse(413, null, -32000, `Payload Too Large: a body over the ${MAX_MESSAGE_BYTES}-byte limit`);
    const declared = request.headers.get("content-length");
    let text: string;
    if (declared !== null && !request.headers.has("transfer-encoding")) {
      // The HTTP framing holds the body to its declared length: the runtime's own read is safe,
      // and a fraction of the cost of reading chunk by chunk.
      if (Number(declared) > MAX_MESSAGE_BYTES) return tooLarge();
      text = await request.text();
    } else {
      const read = await readBodyCapped(request, MAX_MESSAGE_BYTES);
      if (!read.ok) return tooLarge();
      text = read.value;
    }
    try {
      return { value: JSON.parse(text), text };
    } catch {
      return jsonRpcErrorResponse(400, null, ErrorCode.ParseError, "Parse error: the body is not JSON");
    }
  }

  /** An initialize without a session: a new session with its own server, if there is room for one. */
  async #open(request: Request, body: Body): Promise<Response> {
    if (this.sessionCount >= this.#options.maxSessions) {
      const why = `Service Unavailable: ${this.#options.maxSessions} sessions are open (the --max-sessions limit); end one with DELETE`;
      return jsonRpcErrorResponse(503, idOf(body.value), -32000, why);
    }
    const log = this.#options.log;
    const session: LegacySession = new LegacySession({
      ...(this.#options.sessionPrefix !== undefined ? { idPrefix: this.#options.sessionPrefix } : {}),
      proxyFor: (toClient, intake) => this.#options.proxyFor(toClient, "session", intake),
      opened: (opened) => {
        this.#opening.delete(opened);
        this.#sessions.set(opened.id!, opened);
        log.info(`session ${opened.id} opened (${this.sessionCount} open)`);
      },
      closed: (closed) => {
        this.#opening.delete(closed);
        if (closed.id && this.#sessions.delete(closed.id)) log.info(`session ${closed.id} ended (${this.sessionCount} open)`);
      },
    });
    this.#opening.add(session);
    await session.start();
    const response = await session.handle(request, body);
    // The initialize was refused (a bad version, a bad body): no session to keep.
    if (!session.id) await session.close();
    return response;
  }

  #endIdle(): void {
    const now = Date.now();
    for (const session of this.#sessions.values()) {
      if (session.idleFor(this.#options.sessionIdleMs, now)) {
        this.#options.log.info(`session ${session.id} idle for ${this.#options.sessionIdleMs} ms: ended`);
        void session.close();
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.values(), ...this.#opening].map((session) => session.close()));
    await this.#stateless.close();
  }
}

/** The answer to a body, counted as waiting for it until it is out; 503 when those that wait are at the cap already. */
function held(waiting: WaitingBodies, read: Body, answer: () => Promise<Response>): Promise<Response> {
  const size = read.text.length;
  if (!waiting.admits(size)) return Promise.resolve(busy(waiting, idOf(read.value)));
  return waiting.hold(size, answer);
}

/** 503: the bodies that wait for their answers are at MAX_WAITING_BODY_BYTES (a server that never reads, or never answers). */
function busy(waiting: WaitingBodies, id: JsonRpcId | null): Response {
  const why = `Service Unavailable: ${waiting.bytes} bytes of requests wait for their answers already; try again later`;
  const response = jsonRpcErrorResponse(503, id, -32000, why);
  response.headers.set("Retry-After", "1");
  return response;
}

function headerOf<K extends string>(request: Request, name: string, key: K): Partial<Record<K, string>> {
  const value = request.headers.get(name);
  return value === null ? {} : ({ [key]: value } as Record<K, string>);
}

function idOf(body: unknown): JsonRpcId | null {
  const id = isJsonObject(body) ? body.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function sameHost(origin: string, host: string | null): boolean {
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Compares in time that does not depend on where the strings differ. */
function bearerMatches(header: string | null, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]?.trim() ?? "";
  let differs = given.length ^ token.length;
  for (let i = 0; i < token.length; i++) differs |= token.charCodeAt(i) ^ (given.charCodeAt(i) || 0);
  return differs === 0;
}
