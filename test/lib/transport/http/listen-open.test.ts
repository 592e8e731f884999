// A 2025 session's standalone GET stream opens before what the client sends after
// notifications/initialized: a server that asks something on that stream at once (outside any call)
// would otherwise ask into no stream, and the question is lost. The wait is bounded, for a server
// that never answers the GET.
import { afterAll, expect, test } from "bun:test";
import { HttpChannel } from "../../../../lib/transport/http/streamable.ts";
import { until } from "../../../support/helpers.ts";

/** What the server saw, in order; `answerGet` lets the held GET answer. */
const events: string[] = [];
let answerGet = Promise.withResolvers<void>();
let getAnswers = true;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(request) {
    if (request.method === "GET") {
      events.push("GET");
      if (getAnswers) await answerGet.promise;
      else await new Promise<void>((stop) => request.signal.addEventListener("abort", () => stop()));
      events.push("GET answered");
      // Bun sends a stream's headers with its first bytes: a comment opens it at once.
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(": open\n\n")) }), {
        headers: { "Content-Type": "text/event-stream" },
      });
    }
    if (request.method === "DELETE") return new Response(null, { status: 200 });
    const message = (await request.json()) as { id?: number; method: string };
    events.push(message.method);
    if (message.method === "initialize")
      return Response.json(
        {
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "0" } },
        },
        { headers: { "Mcp-Session-Id": "s-1" } },
      );
    if (message.id === undefined) return new Response(null, { status: 202 });
    return Response.json({ jsonrpc: "2.0", id: message.id, result: { content: [] } });
  },
});
afterAll(() => server.stop(true));

async function session() {
  events.length = 0;
  const answers: unknown[] = [];
  const channel = new HttpChannel({ url: `http://127.0.0.1:${server.port}/mcp`, listen: true });
  channel.onmessage = (message) => void answers.push(message);
  await channel.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  });
  await until(() => answers.length === 1, "the initialize answer");
  // Sent back to back, as a client that does not wait for the first to be posted.
  void channel.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  void channel.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: {} } });
  return { channel, answers };
}

test("the first call after notifications/initialized waits until the GET stream is open", async () => {
  getAnswers = true;
  answerGet = Promise.withResolvers<void>();
  const { channel, answers } = await session();
  await until(() => events.includes("GET"), "the GET");
  // The GET is held: the call must not have been posted yet.
  expect(events).toEqual(["initialize", "notifications/initialized", "GET"]);
  answerGet.resolve();
  await until(() => answers.length === 2, "the call's answer");
  expect(events).toEqual(["initialize", "notifications/initialized", "GET", "GET answered", "tools/call"]);
  await channel.close();
});

test("a GET the server never answers holds the call a bounded while only, then it goes", async () => {
  getAnswers = false;
  const { channel, answers } = await session();
  await until(() => answers.length === 2, "the call's answer");
  expect(events).toEqual(["initialize", "notifications/initialized", "GET", "tools/call"]);
  await channel.close();
});
