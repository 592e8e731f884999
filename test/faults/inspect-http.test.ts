// mcp-inspect against HTTP servers that fail in the ways real ones do: refused connections,
// auth walls, missing endpoints, crashes, and SSE streams cut in the middle of an event.
import { afterAll, describe, expect, test } from "bun:test";
import { closedPort, inspect } from "../support/helpers.ts";

const DISCOVER_RESULT = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete" };

/** A loopback server speaking just enough 2026-07-28 to get past discovery, then failing on tools/list. */
const fake = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/401") return new Response("unauthorized", { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="mcp"' } });
    if (path === "/403") return new Response("forbidden", { status: 403 });
    if (path === "/404") return new Response("not found", { status: 404 });
    if (path === "/500") return new Response("internal kaboom", { status: 500 });
    if (request.method !== "POST") return new Response("no", { status: 405 });
    const message = (await request.json()) as { id: number; method: string };
    if (message.method === "server/discover") return Response.json({ jsonrpc: "2.0", id: message.id, result: DISCOVER_RESULT });
    if (path === "/cut") {
      // One complete progress event, then half of the response event, then the stream ends.
      const body =
        `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\ndata: ` +
        `{"jsonrpc":"2.0","id":${message.id},"res`;
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    }
    if (path === "/html") return new Response("<html>oops</html>", { headers: { "Content-Type": "text/html" } });
    return new Response("?", { status: 400 });
  },
});
afterAll(() => fake.stop(true));
const url = (path: string) => `http://127.0.0.1:${fake.port}${path}`;

describe("HTTP faults", () => {
  test("a refused connection is exit 2 with a clear message", async () => {
    const { code, json } = await inspect(["list-tools", "--url", `http://127.0.0.1:${closedPort()}/mcp`]);
    expect(code).toBe(2);
    expect(json.error.code).toBe("CONNECTION_FAILED");
    expect(json.error.message.length).toBeGreaterThan(10);
  });

  test.each([
    ["/401", 401],
    ["/403", 403],
  ])("%s is exit 3 (auth required) with a hint", async (path, status) => {
    const { code, json } = await inspect(["list-tools", "--url", url(path)]);
    expect(code).toBe(3);
    expect(json.error.code).toBe("AUTH_REQUIRED");
    expect(json.error.details.httpStatus).toBe(status);
    expect(json.error.message).toContain("mcp-inspect auth");
    // A 401 with a Bearer challenge is OAuth's; a bare 403 may want another credential.
    if (status === 403) expect(json.error.message).toContain('--header "Authorization: Bearer <token>"');
  });

  test("404 on every transport is exit 2 naming the status", async () => {
    const { code, json } = await inspect(["list-tools", "--url", url("/404")]);
    expect(code).toBe(2);
    expect(json.error.message).toContain("HTTP 404");
  });

  test("500 is exit 2 with the server's words", async () => {
    const { code, json } = await inspect(["list-tools", "--url", url("/500")]);
    expect(code).toBe(2);
    expect(json.error.message).toContain("HTTP 500");
    expect(json.error.message).toContain("internal kaboom");
  });

  test("an SSE stream cut mid-event is a connection failure, not a hang", async () => {
    const { code, json } = await inspect(["list-tools", "--url", url("/cut"), "--timeout", "20000"]);
    expect(code).toBe(2);
    expect(json.error.message).toContain("SSE stream ended before the response");
  });

  test("a reply that is neither JSON nor SSE is reported", async () => {
    const { code, json } = await inspect(["list-tools", "--url", url("/html")]);
    expect(code).toBe(2);
    expect(json.error.message).toContain("text/html");
  });
});
