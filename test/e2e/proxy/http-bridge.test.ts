// mcp-proxy as a stdio bridge to HTTP servers: sessions that expire, endpoints that are slow.
import { afterEach, expect, test } from "bun:test";
import {
  closedPort,
  INITIALIZE,
  LinePeer,
  REFERENCE_CMD,
  startHttpServer,
  startReferenceHttp,
  TEST_GUARD_MS,
  toolCommand,
  WAIT_GUARD_MS,
} from "../../support/helpers.ts";

const PROXY = toolCommand("mcp-proxy.ts");
const peers: LinePeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

test(
  "a 2025 HTTP server that restarts and forgets the session: every request waiting is sent again on a new session",
  async () => {
    const port = closedPort();
    const start = () => startHttpServer([...REFERENCE_CMD, "--http", String(port)]);
    let server = await start();
    try {
      const peer = new LinePeer([...PROXY, "--url", `http://127.0.0.1:${port}/mcp`]);
      peers.push(peer);
      await peer.request(0, "initialize", INITIALIZE());
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      expect((await peer.request(1, "tools/call", { name: "echo", arguments: { message: "before" } })).result.content[0].text).toBe(
        "before",
      );
      await server.stop();
      server = await start();
      for (let i = 0; i < 5; i++)
        peer.send({ jsonrpc: "2.0", id: `after-${i}`, method: "tools/call", params: { name: "echo", arguments: { message: `m${i}` } } });
      await peer.waitFor(() => Array.from({ length: 5 }, (_, i) => peer.responseTo(`after-${i}`)).every(Boolean));
      for (let i = 0; i < 5; i++) expect(peer.responseTo(`after-${i}`).result?.content[0].text).toBe(`m${i}`);
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  "messages sent before the first connection is up wait for it (a slow HTTP+SSE endpoint)",
  async () => {
    const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
    const encoder = new TextEncoder();
    const fake = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const path = new URL(request.url).pathname;
        if (request.method === "GET" && path === "/sse") {
          return new Response(
            new ReadableStream<Uint8Array>({
              start(controller) {
                streams.add(controller);
                controller.enqueue(encoder.encode(": open\n\n"));
                setTimeout(() => controller.enqueue(encoder.encode("event: endpoint\ndata: /message\n\n")), 500);
              },
              cancel() {
                streams.clear();
              },
            }),
            { headers: { "Content-Type": "text/event-stream" } },
          );
        }
        if (request.method === "POST" && path === "/message") {
          const message = (await request.json()) as { id?: number; method: string };
          if (message.id !== undefined) {
            const result =
              message.method === "initialize" ? { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "slow-sse" } } : {};
            for (const stream of streams)
              stream.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n\n`));
          }
          return new Response(null, { status: 202 });
        }
        return new Response("no", { status: 404 });
      },
    });
    try {
      const peer = new LinePeer([...PROXY, "--transport", "sse", "--url", `http://127.0.0.1:${fake.port}/sse`]);
      peers.push(peer);
      peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE("2024-11-05") });
      await peer.waitFor(() => peer.responseTo(0) !== undefined, WAIT_GUARD_MS, "the answer to the early initialize");
      expect(peer.responseTo(0).result.serverInfo.name).toBe("slow-sse");
    } finally {
      fake.stop(true);
    }
  },
  TEST_GUARD_MS,
);

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "stateless-client", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

test(
  "a 2026-07-28 client whose first request is a tools/call with an x-mcp-header parameter gets the tool's answer (the bridge " +
    "learns the header from a listing of its own, which the client never sees)",
  async () => {
    const server = await startReferenceHttp();
    try {
      const peer = new LinePeer([...PROXY, "--url", server.url]);
      peers.push(peer);
      const call = { name: "region_query", arguments: { region: "eu", query: "q" }, _meta: MODERN_META };
      const answer = await peer.request("first", "tools/call", call);
      expect(answer.error).toBeUndefined();
      expect(answer.result.content[0].text).toBe("eu:q");
      // A second call to it needs no listing; the client saw nothing but its two answers.
      expect(
        (await peer.request("second", "tools/call", { ...call, arguments: { region: "us", query: "r" } })).result.content[0].text,
      ).toBe("us:r");
      expect(peer.messages.map((message) => message.id)).toEqual(["first", "second"]);
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  "a 2025 client that writes initialize, initialized and a call without waiting gets every answer, in a session",
  async () => {
    const server = await startReferenceHttp();
    try {
      const peer = new LinePeer([...PROXY, "--url", server.url]);
      peers.push(peer);
      peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (let i = 1; i <= 3; i++)
        peer.send({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { message: `m${i}` } } });
      await peer.waitFor(() => [0, 1, 2, 3].every((id) => peer.responseTo(id)), WAIT_GUARD_MS, "four answers");
      expect(peer.responseTo(0).result.serverInfo.name).toBe("mcpkit-reference");
      for (let i = 1; i <= 3; i++) expect(peer.responseTo(i).result?.content[0].text).toBe(`m${i}`);
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);
