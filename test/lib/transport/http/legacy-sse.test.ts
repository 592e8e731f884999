// lib/transport/http/legacy-sse: the HTTP+SSE transport of 2024-11-05, against an injected fetch:
// the GET that opens the stream, the endpoint event (same origin only), messages on the stream,
// POSTs to the endpoint, and every way the stream can fail to be one.
import { afterEach, describe, expect, test } from "bun:test";
import { HttpStatusError } from "../../../../lib/io/fetch.ts";
import { LegacySseSession, SSE_ENDPOINT_TIMEOUT_MS } from "../../../../lib/transport/http/legacy-sse.ts";
import type { JsonRpcMessage } from "../../../../lib/wire/jsonrpc.ts";
import { manualClock, realClock } from "../../../support/manual-clock.ts";

afterEach(realClock);

const URL_ = "http://127.0.0.1:9/sse";
const encoder = new TextEncoder();

/** The server's event stream, fed by hand; `read` settles when its reader first asks for a chunk. */
function stream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled = Promise.withResolvers<void>();
  const read = Promise.withResolvers<void>();
  const body = new ReadableStream<Uint8Array>(
    { start: (c) => void (controller = c), pull: () => read.resolve(), cancel: () => cancelled.resolve() },
    { highWaterMark: 0 },
  );
  return {
    body,
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    cancelled: cancelled.promise,
    read: read.promise,
  };
}

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** A session whose fetch answers the GET with `get` and each POST with `post`; what it saw is kept. */
function session(get: () => Response, post: () => Response = () => new Response(null, { status: 202 })) {
  const seen: Seen[] = [];
  const delivered: { message: JsonRpcMessage; raw: string }[] = [];
  const errors: string[] = [];
  const closed = Promise.withResolvers<string>();
  const message = Promise.withResolvers<void>();
  const fetchImpl = (async (url: string | URL, init: RequestInit = {}) => {
    seen.push({
      url: String(url),
      method: init.method ?? "GET",
      headers: Object.fromEntries(new Headers(init.headers)),
      ...(typeof init.body === "string" ? { body: init.body } : {}),
    });
    return init.method === "POST" ? post() : get();
  }) as typeof fetch;
  const legacy = new LegacySseSession({
    url: URL_,
    headers: { "X-Api-Key": "k" },
    fetch: fetchImpl,
    signal: new AbortController().signal,
    deliver: (value, raw) => {
      delivered.push({ message: value, raw });
      message.resolve();
    },
    onerror: (error) => void errors.push(error.message),
    onclose: (reason) => closed.resolve(reason),
    whenReading: () => undefined,
  });
  return { legacy, seen, delivered, errors, closed: closed.promise, delivery: message.promise };
}

const sse = (body: ReadableStream<Uint8Array> | string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/event-stream" } });

describe("LegacySseSession", () => {
  test("opens with a GET for the event stream, POSTs to the endpoint it names, and delivers what the stream carries", async () => {
    const server = stream();
    const s = session(() => sse(server.body));
    server.push("event: endpoint\ndata: /messages?sessionId=abc\n\n");
    await s.legacy.open();
    expect(s.seen[0]).toEqual({ url: URL_, method: "GET", headers: { "x-api-key": "k", accept: "text/event-stream" } });

    const request = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    await s.legacy.post(request);
    expect(s.seen[1]).toEqual({
      url: "http://127.0.0.1:9/messages?sessionId=abc",
      method: "POST",
      headers: { "x-api-key": "k", "content-type": "application/json" },
      body: request,
    });

    const answer = '{"jsonrpc":"2.0","id":1,"result":{}}';
    server.push(`: comment\n\nevent: ping\ndata: {}\n\ndata: ${answer}\n\n`);
    await s.delivery;
    expect(s.delivered).toEqual([{ message: { jsonrpc: "2.0", id: 1, result: {} }, raw: answer }]);
    server.end();
    expect(await s.closed).toBe("the server closed the SSE stream");
    expect(s.errors).toEqual([]);
  });

  const notSse: [string, () => Response, number][] = [
    ["a 404", () => new Response("no", { status: 404 }), 404],
    ["a 405", () => new Response(null, { status: 405 }), 405],
    ["a 200 with JSON", () => Response.json({ jsonrpc: "2.0", id: 1, result: {} }), 200],
    ["a 500 that says it is an event stream", () => sse("data: x\n\n", 500), 500],
  ];
  for (const [what, answer, status] of notSse)
    test(`${what} to the GET is no HTTP+SSE endpoint (an HttpStatusError with that status)`, async () => {
      const s = session(answer);
      const error = await s.legacy.open().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HttpStatusError);
      expect((error as HttpStatusError).status).toBe(status);
      expect((error as Error).message).toBe(`HTTP ${status} from ${URL_}: not an HTTP+SSE endpoint`);
    });

  test("the body of a refused GET is let go", async () => {
    const server = stream();
    const s = session(() => new Response(server.body, { headers: { "content-type": "application/json" } }));
    await expect(s.legacy.open()).rejects.toThrow("not an HTTP+SSE endpoint");
    await server.cancelled;
  });

  const foreign = ["https://evil.example/messages", "http://127.0.0.1:10/messages", "//evil.example/messages"];
  for (const endpoint of foreign)
    test(`an endpoint on another origin (${endpoint}) is refused`, async () => {
      const server = stream();
      const s = session(() => sse(server.body));
      server.push(`event: endpoint\ndata: ${endpoint}\n\n`);
      await expect(s.legacy.open()).rejects.toThrow("the SSE server named an endpoint on another origin (");
      expect(s.seen.filter(({ method }) => method === "POST")).toEqual([]);
    });

  test("a stream that ends before the endpoint event fails the open, and closes the session", async () => {
    const s = session(() => sse('data: {"jsonrpc":"2.0","method":"x"}\n\n'));
    await expect(s.legacy.open()).rejects.toThrow("the SSE stream ended before the endpoint event");
    expect(await s.closed).toBe("the server closed the SSE stream");
  });

  test(`no endpoint event within ${SSE_ENDPOINT_TIMEOUT_MS} ms fails the open`, async () => {
    const clock = manualClock();
    const server = stream();
    const s = session(() => sse(server.body));
    const opened = s.legacy.open();
    const outcome = opened.then(
      () => "opened",
      (error: Error) => error.message,
    );
    // The stream is being read: the wait for the endpoint began before, and is the only timer.
    await server.read;
    expect(clock.pending).toEqual([SSE_ENDPOINT_TIMEOUT_MS]);
    clock.elapse();
    expect(await outcome).toBe("no endpoint event from the SSE server");
    server.end();
  });

  test("the endpoint's timer is cleared once the endpoint came", async () => {
    const clock = manualClock();
    const s = session(() => sse("event: endpoint\ndata: /m\n\n"));
    await s.legacy.open();
    expect(clock.pending).toEqual([]);
  });

  test("an event that is not JSON-RPC is reported and skipped; the stream goes on", async () => {
    const server = stream();
    const s = session(() => sse(server.body));
    server.push('event: endpoint\ndata: /m\n\ndata: not json\n\ndata: {"jsonrpc":"2.0","method":"n"}\n\n');
    await s.legacy.open();
    server.end();
    await s.closed;
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0]).toStartWith("skipped an SSE event that is not JSON-RPC (");
    expect(s.delivered.map(({ message }) => message)).toEqual([{ jsonrpc: "2.0", method: "n" }]);
  });

  test("a POST the server refuses is an HttpStatusError naming the endpoint and what it said", async () => {
    const s = session(
      () => sse("event: endpoint\ndata: /m\n\n"),
      () => new Response("session not found", { status: 404 }),
    );
    await s.legacy.open();
    const error = await s.legacy.post("{}").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(404);
    expect((error as Error).message).toBe("HTTP 404 from http://127.0.0.1:9/m: session not found");
  });
});
