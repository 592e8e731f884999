/**
 * The reference server over Streamable HTTP, both eras on one /mcp endpoint: 2026-07-28 through
 * the SDK's `createMcpHandler`; 2025 traffic (told apart by `isLegacyRequest`) routed to a
 * sessionful 2025 wiring (Mcp-Session-Id, GET stream, DELETE), so server->client requests
 * (sampling, elicitation, roots) work on 2025 HTTP too. `stateless` selects the SDK's default
 * stateless legacy fallback instead. Also the node:http adapter that serves it (and other fixtures).
 */

import { Buffer } from "node:buffer";
import process from "node:process";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpHttpHandler,
  type McpServer,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createReferenceServer } from "./server.ts";
import { answerTaskRequest } from "./tasks.ts";

export type FetchHandler = (req: Request) => Promise<Response>;

/** Builds the /mcp fetch handler: modern via createMcpHandler, 2025 via a sessionful wiring. */
export function createReferenceHttpHandler(opts: { stateless?: boolean } = {}): { fetch: FetchHandler; close: () => Promise<void> } {
  const onerror = (e: Error) => process.stderr.write(`[reference-server] ${e.message}\n`);
  if (opts.stateless) {
    const h: McpHttpHandler = createMcpHandler(
      (ctx) =>
        createReferenceServer(
          ctx,
          ctx.era === "modern"
            ? { publishResourceUpdated: (uri) => h.notify.resourceUpdated(uri), publishToolsChanged: () => h.notify.toolsChanged() }
            : {},
        ),
      { onerror },
    );
    return { fetch: async (r) => (await answerTaskRequest(r)) ?? h.fetch(r), close: () => h.close() };
  }
  const modern: McpHttpHandler = createMcpHandler(
    (ctx) =>
      createReferenceServer(ctx, {
        publishResourceUpdated: (uri) => modern.notify.resourceUpdated(uri),
        publishToolsChanged: () => modern.notify.toolsChanged(),
      }),
    { legacy: "reject", onerror },
  );
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: McpServer }>();

  async function legacy(req: Request): Promise<Response> {
    const sid = req.headers.get("mcp-session-id");
    if (sid) {
      const s = sessions.get(sid);
      if (!s) return jsonRpcError(404, -32001, "Session not found");
      // Progress of the session's tasks travels on its GET stream.
      return (await answerTaskRequest(req, (n) => void s.transport.send(n).catch(() => {}))) ?? s.transport.handleRequest(req);
    }
    if (req.method !== "POST") return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    // Only an initialize request opens a 2025 session; anything else without a session id is refused
    // here, before an instance is created for nothing.
    const body: unknown = await req
      .clone()
      .json()
      .catch(() => undefined);
    const opens = (m: unknown) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize";
    if (!(Array.isArray(body) ? body.some(opens) : opens(body))) {
      return jsonRpcError(400, -32000, "Bad Request: Server not initialized (no Mcp-Session-Id)");
    }
    const server = createReferenceServer({ era: "legacy" });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const res = await transport.handleRequest(req);
    if (!transport.sessionId) void server.close(); // the initialize was refused: no session to keep
    return res;
  }

  return {
    fetch: async (req) => ((await isLegacyRequest(req)) ? legacy(req) : ((await answerTaskRequest(req)) ?? modern.fetch(req))),
    close: async () => {
      await modern.close();
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
    },
  };
}

// -32000 and -32001 as the SDK's own Streamable HTTP transport answers them (bad request, unknown session).
function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Wraps the MCP handler: Host/Origin validation (loopback only) and the /mcp path. */
export function routed(mcp: FetchHandler): FetchHandler {
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  return async (req) => {
    const rejected = hostHeaderValidationResponse(req, hosts) ?? originValidationResponse(req, origins);
    if (rejected) return rejected;
    if (new URL(req.url).pathname !== "/mcp") return new Response("Not Found", { status: 404 });
    return mcp(req);
  };
}

/**
 * Serves a fetch-style handler with node:http (Bun, Deno and Node all provide it), bound to
 * 127.0.0.1 only. Response headers are flushed at once, so an SSE stream that has no event yet
 * (a 2025 GET stream) still answers immediately (Bun.serve would hold the headers back until the
 * first chunk). The Request's signal aborts when the client disconnects. Other fixtures serve
 * their HTTP this way too.
 */
export async function serveFetch(handler: FetchHandler, port: number, tag = "reference-server"): Promise<import("node:http").Server> {
  const http = await import("node:http");
  const server = http.createServer(async (req, res) => {
    const ac = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) ac.abort();
    });
    try {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (Array.isArray(v)) for (const x of v) headers.append(k, x);
        else if (v !== undefined) headers.set(k, v);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const body = hasBody
        ? await new Promise<ArrayBuffer>((resolve, reject) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", () => {
              const all = Buffer.concat(chunks);
              resolve(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer);
            });
            req.on("error", reject);
          })
        : undefined;
      const request = new Request(`http://${req.headers.host ?? `127.0.0.1:${port}`}${req.url ?? "/"}`, {
        method: req.method,
        headers,
        body,
        signal: ac.signal,
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.flushHeaders();
      if (!response.body) return void res.end();
      const reader = response.body.getReader();
      ac.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((r) => (res.once("drain", r), res.once("close", r)));
      }
      res.end();
    } catch (e) {
      if (!res.headersSent) res.writeHead(500);
      res.end();
      if (!ac.signal.aborted) process.stderr.write(`[${tag}] ${(e as Error).message}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return server;
}
