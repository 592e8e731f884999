// lib/transport/http against loopback servers of our own making: what goes over the wire.
import { afterAll, expect, test } from "bun:test";
import { RawClient } from "../../../../lib/client/raw-client.ts";
import { HttpChannel } from "../../../../lib/transport/http/streamable.ts";
import { until } from "../../../support/helpers.ts";

const seen: { method: string; headers: Record<string, string> }[] = [];
let streamAborted = Promise.withResolvers<void>();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    if (request.method !== "POST") {
      seen.push({ method: request.method, headers: Object.fromEntries(request.headers) });
      return new Response(null, { status: request.method === "DELETE" ? 200 : 405 });
    }
    const message = (await request.json()) as { id?: number; method: string; params?: Record<string, unknown> };
    seen.push({ method: message.method, headers: Object.fromEntries(request.headers) });
    const legacy = new URL(request.url).pathname === "/legacy";
    if (message.method === "server/discover") {
      if (legacy) return new Response("unknown", { status: 400 });
      return Response.json({
        jsonrpc: "2.0",
        id: message.id,
        result: { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete" },
      });
    }
    if (message.method === "initialize") {
      return Response.json(
        { jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: {} } },
        { headers: { "Mcp-Session-Id": "s-1" } },
      );
    }
    if (message.id === undefined) return new Response(null, { status: 202 });
    if (message.method === "tools/list")
      return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [{ name: "slow tool", inputSchema: { type: "object" } }] } });
    // A tool call that streams progress and never finishes on its own.
    request.signal.addEventListener("abort", () => streamAborted.resolve());
    const token = (message.params?._meta as { progressToken?: number } | undefined)?.progressToken;
    let timer: ReturnType<typeof setInterval>;
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1 } };
    const body = new ReadableStream({
      start(controller) {
        timer = setInterval(() => controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(progress)}\n\n`)), 20);
      },
      cancel() {
        clearInterval(timer);
        streamAborted.resolve();
      },
    });
    return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
  },
});
afterAll(() => server.stop(true));

test("2026-07-28 over HTTP: request headers mirror the body, and cancelling closes the stream instead of posting", async () => {
  seen.length = 0;
  streamAborted = Promise.withResolvers<void>();
  // What the channel sends, recorded as it calls fetch: a notification it sent on cancel would be here at once.
  const sent: string[] = [];
  const recording = ((url: string | URL, init?: RequestInit) => {
    if (typeof init?.body === "string") sent.push((JSON.parse(init.body) as { method?: string }).method ?? "(answer)");
    return fetch(url, init);
  }) as typeof fetch;
  const client = new RawClient(new HttpChannel({ url: `http://127.0.0.1:${server.port}/modern`, fetch: recording }), {
    clientInfo: { name: "t", version: "0" },
  });
  expect((await client.connect()).era).toBe("modern");
  const aborter = new AbortController();
  const call = client.request(
    "tools/call",
    { name: "slow tool", arguments: {} },
    { signal: aborter.signal, onprogress: () => aborter.abort(new Error("stop")) },
  );
  await expect(call).rejects.toThrow("stop");
  await streamAborted.promise;
  const posted = seen.find((request) => request.method === "tools/call")!;
  expect(posted.headers["mcp-protocol-version"]).toBe("2026-07-28");
  expect(posted.headers["mcp-method"]).toBe("tools/call");
  expect(posted.headers["mcp-name"]).toBe("slow tool");
  expect(sent).toContain("tools/call");
  expect(sent).not.toContain("notifications/cancelled");
  await client.close();
});

test("2025 over HTTP: a 400 to the probe leads to initialize; session id and version go after it; cancel is a notification", async () => {
  seen.length = 0;
  const client = new RawClient(new HttpChannel({ url: `http://127.0.0.1:${server.port}/legacy` }), {
    clientInfo: { name: "t", version: "0" },
  });
  expect(await client.connect()).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25" });
  const aborter = new AbortController();
  const call = client.request("tools/call", { name: "x" }, { signal: aborter.signal, onprogress: () => aborter.abort(new Error("stop")) });
  await expect(call).rejects.toThrow("stop");
  await until(() => seen.some((request) => request.method === "notifications/cancelled"), "the cancel notification");
  const methods = seen.map((request) => request.method);
  expect(methods.slice(0, 3)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
  expect(methods).toContain("notifications/cancelled");
  const later = seen.find((request) => request.method === "tools/call")!;
  expect(later.headers["mcp-session-id"]).toBe("s-1");
  expect(later.headers["mcp-protocol-version"]).toBe("2025-11-25");
  expect(later.headers["mcp-method"]).toBeUndefined();
  await client.close();
  // Closing ends the session with a DELETE.
  expect(seen.at(-1)).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": "s-1" } });
});
