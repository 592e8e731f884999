// Response streams that break before their response, against a loopback server that breaks them
// on purpose: 2025-era streams resume (GET with Last-Event-ID after the server's retry:), 2026-07-28
// requests that change nothing are re-issued under a new id, a tools/call is never run twice, and
// a server that keeps breaking gets a bounded number of tries. Driven through the real mcp-inspect
// and mcp-host entry scripts (the host runs on the same lib channel).
import { afterEach, describe, expect, test } from "bun:test";
import { MAX_STREAM_RECOVERIES, REISSUE_ID_PREFIX } from "../../../lib/transport/http/recovery.ts";
import { inspect, LinePeer, NO_VENDOR_KEYS, runTool, TEST_GUARD_MS, toolCommand } from "../../support/helpers.ts";

const SERVER_INFO = { name: "breaking", version: "0" };
const SLOW_TOOL = { name: "slow", description: "answers on a stream that breaks first", inputSchema: { type: "object", properties: {} } };

interface BreakingOptions {
  era: "2025" | "2026";
  /** How many response streams break before one carries the response. */
  breaks: number;
  /** 2025: whether broken streams carry event ids (without them there is nothing to resume). */
  eventIds?: boolean;
  retryMs?: number;
}

interface Seen {
  posts: { method: string; id: unknown }[];
  resumes: string[];
  toolCalls: number;
}

const servers: { stop(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
});

const encoder = new TextEncoder();
const sse = (text: string) =>
  new Response(
    new ReadableStream({
      start(controller) {
        controller.enqueue(encoder.encode(text));
        controller.close(); // the break: the stream ends, no response on it
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
const json = (body: unknown, headers: Record<string, string> = {}) => Response.json(body, { headers });
const event = (id: string, data = "", retry?: number) => `id: ${id}\n${retry !== undefined ? `retry: ${retry}\n` : ""}data: ${data}\n\n`;

function breakingServer(options: BreakingOptions): { url: string; seen: Seen } {
  const seen: Seen = { posts: [], resumes: [], toolCalls: 0 };
  let broken = 0;
  let eventCounter = 0;
  let pendingCall: unknown;
  const nextEvent = () => `e${++eventCounter}`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method === "DELETE") return new Response(null, { status: 200 });
      if (request.method === "GET") {
        const last = request.headers.get("last-event-id");
        if (options.era === "2026" || last === null) return new Response(null, { status: 405 });
        seen.resumes.push(last);
        if (broken < options.breaks) {
          broken++;
          return sse(event(nextEvent()));
        }
        const answer = { jsonrpc: "2.0", id: pendingCall, result: { content: [{ type: "text", text: `resumed after ${last}` }] } };
        return sse(event(nextEvent(), JSON.stringify(answer)));
      }
      const message = (await request.json()) as { id?: unknown; method: string; params?: unknown };
      seen.posts.push({ method: message.method, id: message.id });
      if (message.id === undefined) return new Response(null, { status: 202 });
      if (options.era === "2025") {
        switch (message.method) {
          case "initialize":
            return json(
              {
                jsonrpc: "2.0",
                id: message.id,
                result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: SERVER_INFO },
              },
              { "mcp-session-id": "s-1" },
            );
          case "tools/list":
            return json({ jsonrpc: "2.0", id: message.id, result: { tools: [SLOW_TOOL] } });
          case "tools/call":
            seen.toolCalls++;
            pendingCall = message.id;
            broken++;
            return sse(options.eventIds === false ? ": no ids here\n\n" : event(nextEvent(), "", options.retryMs));
        }
        return json({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
      }
      switch (message.method) {
        case "server/discover":
          return json({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              resultType: "complete",
              supportedVersions: ["2026-07-28"],
              capabilities: { tools: {} },
              _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
            },
          });
        case "tools/list":
          if (broken < options.breaks) {
            broken++;
            return sse(": working\n\n");
          }
          return json({
            jsonrpc: "2.0",
            id: message.id,
            result: { resultType: "complete", tools: [SLOW_TOOL], ttlMs: 60_000, cacheScope: "private" },
          });
        case "tools/call":
          seen.toolCalls++;
          return sse(": working\n\n");
        case "ping":
          if (broken < options.breaks) {
            broken++;
            return sse(": working\n\n");
          }
          return json({ jsonrpc: "2.0", id: message.id, result: {} });
      }
      return json({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/mcp`, seen };
}

describe("2025-11-25: a stream that closes before its response is resumed", () => {
  test(
    "with GET and Last-Event-ID, after the server's retry:, until the response comes",
    async () => {
      const { url, seen } = breakingServer({ era: "2025", breaks: 2, retryMs: 10 });
      const run = await inspect(["call-tool", "slow", "--url", url]);
      expect(run.code).toBe(0);
      // The POST stream broke after e1, the first resumption after e2; the second got the answer.
      expect(seen.resumes).toEqual(["e1", "e2"]);
      expect(run.json.data.content[0].text).toBe("resumed after e2");
      expect(seen.toolCalls).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a stream that gave no event id cannot be resumed: the call is answered with an error at once",
    async () => {
      const { url, seen } = breakingServer({ era: "2025", breaks: 1, eventIds: false });
      const run = await inspect(["call-tool", "slow", "--url", url]);
      expect(run.code).not.toBe(0);
      expect(run.json.error.message).toContain("the server's SSE stream ended before the response arrived");
      expect(seen.resumes).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that keeps breaking its streams gets a bounded number of resumptions",
    async () => {
      const { url, seen } = breakingServer({ era: "2025", breaks: 1_000, retryMs: 1 });
      const run = await inspect(["call-tool", "slow", "--url", url]);
      expect(run.code).not.toBe(0);
      expect(run.json.error.message).toContain("the request was not tried again");
      expect(seen.resumes).toHaveLength(MAX_STREAM_RECOVERIES);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-host resumes the same way (its HTTP is lib's channel)",
    async () => {
      const { url, seen } = breakingServer({ era: "2025", breaks: 1, retryMs: 10 });
      const run = await runTool("mcp-host.ts", ["--server", url, "-p", "call slow"], { env: NO_VENDOR_KEYS });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("resumed after e1");
      expect(seen.resumes).toEqual(["e1"]);
    },
    TEST_GUARD_MS,
  );
});

describe("2026-07-28: a broken stream loses the request", () => {
  test(
    "a request that changes nothing (tools/list) is re-issued under a new id, and answered under the caller's",
    async () => {
      const { url, seen } = breakingServer({ era: "2026", breaks: 2 });
      const run = await inspect(["list-tools", "--url", url]);
      expect(run.code).toBe(0);
      expect(run.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["slow"]);
      const lists = seen.posts.filter((p) => p.method === "tools/list").map((p) => String(p.id));
      expect(lists).toHaveLength(3);
      expect(new Set(lists).size).toBe(3);
      expect(lists.slice(1).every((id) => id.startsWith(REISSUE_ID_PREFIX))).toBe(true);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tools/call is not run twice: it is answered with an error that says it may have run",
    async () => {
      const { url, seen } = breakingServer({ era: "2026", breaks: 0 });
      const run = await inspect(["call-tool", "slow", "--url", url]);
      expect(run.code).not.toBe(0);
      expect(run.json.error.message).toContain("tools/call was not sent again, since the server may already have run it");
      expect(seen.toolCalls).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that keeps breaking gets a bounded number of re-issues",
    async () => {
      const { url, seen } = breakingServer({ era: "2026", breaks: 1_000 });
      const run = await inspect(["list-tools", "--url", url]);
      expect(run.code).not.toBe(0);
      expect(run.json.error.message).toContain("the request was not tried again");
      expect(seen.posts.filter((p) => p.method === "tools/list")).toHaveLength(MAX_STREAM_RECOVERIES + 1);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-host re-issues the same way: its connection's tools/list survives a broken stream",
    async () => {
      const { url } = breakingServer({ era: "2026", breaks: 1 });
      const run = await runTool("mcp-host.ts", ["--server", url, "-p", "hi"], { env: NO_VENDOR_KEYS });
      expect(run.stderr).toMatch(/connected to "breaking" as localhost \(2026-07-28, 1 tools/);
      expect(run.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-proxy --url re-issues too, and its client gets the answer under its own id",
    async () => {
      const { url, seen } = breakingServer({ era: "2026", breaks: 1 });
      const peer = new LinePeer([...toolCommand("mcp-proxy.ts"), "--url", url]);
      try {
        const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
        const answer = await peer.request("mine-7", "tools/list", { _meta: meta });
        expect(answer.result.tools.map((t: { name: string }) => t.name)).toContain("slow");
        expect(seen.posts.filter((p) => p.method === "tools/list")).toHaveLength(2);
      } finally {
        await peer.close();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "a ping changes nothing either: re-issued after its stream broke, and answered under the caller's id",
    async () => {
      const { url, seen } = breakingServer({ era: "2026", breaks: 1 });
      const peer = new LinePeer([...toolCommand("mcp-proxy.ts"), "--url", url]);
      try {
        const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
        const answer = await peer.request("ping-3", "ping", { _meta: meta });
        expect(answer.result).toEqual({});
        const pings = seen.posts.filter((p) => p.method === "ping").map((p) => String(p.id));
        expect(pings).toHaveLength(2);
        expect(pings[1]!.startsWith(REISSUE_ID_PREFIX)).toBe(true);
      } finally {
        await peer.close();
      }
    },
    TEST_GUARD_MS,
  );
});
