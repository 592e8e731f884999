// The HTTP channel lists a 2026-07-28 server's tools itself before a call to a tool it has not seen,
// so the call carries its Mcp-Param headers: every page read, the listing never shown to the caller,
// and a listing that never answers given up with the call that waited for it.
import { afterAll, expect, test } from "bun:test";
import { HttpChannel } from "../../../../lib/transport/http/streamable.ts";
import { MAX_TOOL_LIST_PAGES } from "../../../../lib/transport/http/tool-listing.ts";
import type { JsonRpcMessage } from "../../../../lib/wire/jsonrpc.ts";
import { until } from "../../../support/helpers.ts";

const META = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } };
const posted: { method: string; cursor?: unknown; headers: Record<string, string> }[] = [];
let listingClosed = Promise.withResolvers<void>();

const tool = (name: string, header?: string) => ({
  name,
  inputSchema: { type: "object", properties: { region: { type: "string", ...(header ? { "x-mcp-header": header } : {}) } } },
});

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const message = (await request.json()) as { id?: string | number; method: string; params?: Record<string, unknown> };
    posted.push({ method: message.method, cursor: message.params?.cursor, headers: Object.fromEntries(request.headers) });
    const path = new URL(request.url).pathname;
    const answer = (result: unknown) => Response.json({ jsonrpc: "2.0", id: message.id, result });
    if (message.method === "tools/list" && path === "/silent") {
      // Never answers: the stream stays open until the client closes it.
      return new Response(new ReadableStream({ cancel: () => listingClosed.resolve() }), {
        headers: { "Content-Type": "text/event-stream" },
      });
    }
    if (message.method === "tools/list" && path === "/endless")
      return answer({ tools: [], nextCursor: `${Number(message.params?.cursor ?? 0) + 1}` });
    if (message.method === "tools/list")
      return answer(message.params?.cursor === "2" ? { tools: [tool("regional", "Region")] } : { tools: [tool("plain")], nextCursor: "2" });
    if (message.method === "tools/call") return answer({ content: [{ type: "text", text: "called" }] });
    return new Response(null, { status: 202 });
  },
});
afterAll(() => server.stop(true));

function channel(path: string) {
  const http = new HttpChannel({ url: `http://127.0.0.1:${server.port}${path}` });
  const delivered: JsonRpcMessage[] = [];
  http.onmessage = (message) => delivered.push(message);
  return { http, delivered };
}

const call = (id: string, name: string) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { region: "eu" }, ...META } }) as const;

test(
  "a first call to a tool on page two: both pages are listed, the call carries Mcp-Param-Region, the caller sees only its " + "answer",
  async () => {
    posted.length = 0;
    const { http, delivered } = channel("/paged");
    await http.send(call("c1", "regional"));
    expect(posted.map((p) => [p.method, p.cursor])).toEqual([
      ["tools/list", undefined],
      ["tools/list", "2"],
      ["tools/call", undefined],
    ]);
    expect(posted[0]!.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(posted[2]!.headers["mcp-param-region"]).toBe("eu");
    expect(delivered.map((m) => ("id" in m ? m.id : undefined))).toEqual(["c1"]);

    // Known now: the next call goes at once; a tool the full listing did not show is not listed for again.
    posted.length = 0;
    await http.send(call("c2", "regional"));
    await http.send(call("c3", "nowhere"));
    await http.send(call("c4", "nowhere"));
    expect(posted.map((p) => p.method)).toEqual(["tools/call", "tools/list", "tools/list", "tools/call", "tools/call"]);
    await http.close();
  },
);

test("a listing that never answers: cancelling the call that waits for it settles the send and closes the listing's stream", async () => {
  posted.length = 0;
  listingClosed = Promise.withResolvers<void>();
  const { http, delivered } = channel("/silent");
  const sending = http.send(call("c1", "regional"));
  await until(() => posted.some((p) => p.method === "tools/list"), "the listing to be posted");
  expect(http.cancel("c1")).toBe(true);
  await sending;
  await listingClosed.promise;
  expect(posted.map((p) => p.method)).toEqual(["tools/list"]);
  expect(delivered).toEqual([]);
  await http.close();
});

test("a server that pages its tool list forever is listed for at most MAX_TOOL_LIST_PAGES pages; then the call goes", async () => {
  posted.length = 0;
  const { http, delivered } = channel("/endless");
  await http.send(call("c1", "regional"));
  expect(posted.filter((p) => p.method === "tools/list")).toHaveLength(MAX_TOOL_LIST_PAGES);
  expect(posted.at(-1)!.method).toBe("tools/call");
  expect(delivered.map((m) => ("id" in m ? m.id : undefined))).toEqual(["c1"]);
  posted.length = 0;
  await http.send(call("c2", "regional"));
  expect(posted.map((p) => p.method)).toEqual(["tools/call"]);
  await http.close();
});

test("2025 sessions and stdio-era calls are not listed for: only 2026-07-28 mirrors parameters", async () => {
  posted.length = 0;
  const { http } = channel("/paged");
  http.protocolVersion = "2025-11-25";
  await http.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "regional", arguments: { region: "eu" } } });
  expect(posted.map((p) => p.method)).toEqual(["tools/call"]);
  await http.close();
});
