// lib/transport/http/bodies: the messages in a JSON body (one, or a batch), in an SSE stream
// (each event capped, the stream cut once its request is answered), and in an error page.
import { describe, expect, test } from "bun:test";
import { deliverJson, jsonRpcErrorIn, readSseStream, type SseReading } from "../../../../lib/transport/http/bodies.ts";
import type { JsonRpcId, JsonRpcMessage } from "../../../../lib/wire/jsonrpc.ts";
import { MAX_MESSAGE_BYTES } from "../../../../lib/wire/limits.ts";

const encoder = new TextEncoder();

function collector() {
  const delivered: { message: JsonRpcMessage; raw?: string }[] = [];
  const errors: string[] = [];
  return {
    delivered,
    errors,
    deliver: (message: JsonRpcMessage, raw?: string) => void delivered.push({ message, raw }),
    onerror: (error: Error) => void errors.push(error.message),
  };
}

describe("deliverJson", () => {
  test("one message is delivered with the body as its raw text", () => {
    const reader = collector();
    const body = '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}';
    expect(deliverJson(body, reader)).toBe(true);
    expect(reader.delivered).toEqual([{ message: { jsonrpc: "2.0", id: 1, result: { ok: true } }, raw: body }]);
    expect(reader.errors).toEqual([]);
  });

  test("a batch (2025-03-26) is delivered message by message, in order, without raw text", () => {
    const reader = collector();
    const batch = [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } },
    ];
    expect(deliverJson(JSON.stringify(batch), reader)).toBe(true);
    expect(reader.delivered).toEqual(batch.map((message) => ({ message: message as JsonRpcMessage, raw: undefined })));
  });

  test("junk in a batch is skipped with an error each, and the rest still arrives", () => {
    const reader = collector();
    const batch = [1, { jsonrpc: "2.0", id: 1, result: {} }, { id: 2, result: {} }, null, { jsonrpc: "2.0", method: 5 }];
    expect(deliverJson(JSON.stringify(batch), reader)).toBe(true);
    expect(reader.delivered.map(({ message }) => message)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    expect(reader.errors).toEqual([
      "skipped a message from the server that is not JSON-RPC (not a JSON object)",
      'skipped a message from the server that is not JSON-RPC (missing "jsonrpc": "2.0")',
      "skipped a message from the server that is not JSON-RPC (not a JSON object)",
      "skipped a message from the server that is not JSON-RPC (method is not a string)",
    ]);
  });

  const unusable: [string, string, number][] = [
    ["not JSON", "<html>oops</html>", 0],
    ["empty", "", 0],
    ["an empty batch", "[]", 0],
    ["a batch of junk only", '[1, "two", {"id": 3}]', 3],
    ["one message that is not JSON-RPC", '{"hello":"world"}', 1],
  ];
  for (const [what, body, errors] of unusable)
    test(`${what}: nothing usable (false), ${errors} errors`, () => {
      const reader = collector();
      expect(deliverJson(body, reader)).toBe(false);
      expect(reader.delivered).toEqual([]);
      expect(reader.errors).toHaveLength(errors);
    });
});

/** An SSE body we feed by hand: `push` an event's text, `fail` it, `end` it; `cancelled` settles when the reader lets go. */
function sseSource() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled = Promise.withResolvers<void>();
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => cancelled.resolve(),
  });
  return {
    response: new Response(stream, { headers: { "content-type": "text/event-stream" } }),
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    fail: (error: Error) => controller.error(error),
    cancelled: cancelled.promise,
  };
}

/** An SSE body that gives one step per read: a chunk of text, or an error that breaks the stream there. */
function scripted(steps: (string | Error)[]): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const step = steps.shift();
      if (step === undefined) controller.close();
      else if (step instanceof Error) controller.error(step);
      else controller.enqueue(encoder.encode(step));
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

const event = (message: unknown, extra = "") => `${extra}data: ${JSON.stringify(message)}\n\n`;

function reading(requestId?: JsonRpcId, options: { abandoned?: () => boolean; whenReading?: () => Promise<void> | undefined } = {}) {
  const base = collector();
  const oversized: JsonRpcId[] = [];
  const sse: SseReading = {
    ...base,
    ...(requestId !== undefined ? { requestId } : {}),
    oversize: (id) => void oversized.push(id),
    whenReading: options.whenReading ?? (() => undefined),
    abandoned: options.abandoned ?? (() => false),
  };
  return { ...base, oversized, sse };
}

describe("readSseStream", () => {
  test("delivers each message event with its data as raw text, and stops at the answer to its request", async () => {
    const source = sseSource();
    const r = reading(5);
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 5, progress: 1 } };
    source.push(event(progress, "id: e1\n"));
    source.push(`${event({ jsonrpc: "2.0", id: 5, result: { done: true } }, "id: e2\nretry: 250\n")}`);
    source.push(event({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "late" } }));
    const read = await readSseStream(source.response, r.sse);
    await source.cancelled; // the stream is let go once it carried the answer
    expect(read).toEqual({ answered: true, delivered: 2, lastEventId: "e2", retry: 250 });
    expect(r.delivered.map(({ raw }) => raw)).toEqual([
      JSON.stringify(progress),
      JSON.stringify({ jsonrpc: "2.0", id: 5, result: { done: true } }),
    ]);
    expect(r.errors).toEqual([]);
  });

  test("another request's answer does not end the stream; events of other types and comments are skipped", async () => {
    const source = sseSource();
    const r = reading(5);
    source.push(": keep-alive\n\n");
    source.push(`event: ping\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 5, result: {} })}\n\n`);
    source.push(event({ jsonrpc: "2.0", id: 6, result: {} }));
    source.end();
    const read = await readSseStream(source.response, r.sse);
    expect(read).toEqual({ answered: false, delivered: 1, lastEventId: "" });
    expect(r.delivered.map(({ message }) => message)).toEqual([{ jsonrpc: "2.0", id: 6, result: {} }]);
  });

  test("an event that is not JSON-RPC is skipped with an error, and the stream goes on", async () => {
    const source = sseSource();
    const r = reading(1);
    source.push("data: not json\n\n");
    source.push(event({ hello: 1 }));
    source.push(event({ jsonrpc: "2.0", id: 1, result: {} }));
    const read = await readSseStream(source.response, r.sse);
    expect(read.answered).toBe(true);
    expect(read.delivered).toBe(1);
    expect(r.errors).toHaveLength(2);
    for (const error of r.errors) expect(error).toStartWith("skipped an SSE event that is not JSON-RPC (");
  });

  test("an event over the cap on a request's stream answers that request (once) and cuts the stream", async () => {
    const source = sseSource();
    const r = reading("big");
    // One data line that never ends: the cap, not the end of the line, must stop the reading.
    const megabyte = "x".repeat(1 << 20);
    source.push(`data: {"jsonrpc":"2.0","id":"big","result":{"text":"`);
    for (let sent = 0; sent <= MAX_MESSAGE_BYTES; sent += megabyte.length) source.push(megabyte);
    const read = await readSseStream(source.response, r.sse);
    await source.cancelled;
    expect(read.answered).toBe(true);
    expect(read.delivered).toBe(0);
    expect(r.oversized).toEqual(["big"]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(new RegExp(`^dropped a \\d+-byte SSE event \\(over the ${MAX_MESSAGE_BYTES}-byte limit\\)$`));
  });

  test("an event over the cap on the standalone stream is dropped, and the events after it arrive", async () => {
    const source = sseSource();
    const r = reading();
    source.push(`data: ${"y".repeat(MAX_MESSAGE_BYTES + 1)}\n\n`);
    source.push(event({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }));
    source.end();
    const read = await readSseStream(source.response, r.sse);
    expect(read).toEqual({ answered: false, delivered: 1, lastEventId: "" });
    expect(r.oversized).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toStartWith("dropped a ");
  });

  test("a stream that fails midway: what came is kept, the failure is reported and returned", async () => {
    const r = reading(9);
    const progress = event({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 9, progress: 1 } }, "id: 41\n");
    // Half an event, then the connection breaks.
    const response = scripted([progress, 'data: {"jsonrpc":"2.0","id":9,', new Error("connection reset")]);
    const read = await readSseStream(response, r.sse);
    expect(read).toEqual({ answered: false, delivered: 1, lastEventId: "41", failure: "connection reset" });
    expect(r.errors).toEqual(["the server's SSE stream failed: connection reset"]);
  });

  test("a stream nobody wants any more fails quietly (the failure is still returned)", async () => {
    const source = sseSource();
    const r = reading(9, { abandoned: () => true });
    source.fail(new Error("aborted"));
    const read = await readSseStream(source.response, r.sse);
    expect(read.failure).toBe("aborted");
    expect(r.errors).toEqual([]);
  });

  test("each read waits for whenReading (backpressure): no event is read while the consumer holds it", async () => {
    const source = sseSource();
    let waits = 0;
    const deliveredAtWait: number[] = [];
    const r = reading(3, {
      whenReading: () => {
        waits++;
        deliveredAtWait.push(r.delivered.length);
        // Held until the source has more for it: the next event is pushed only now.
        return Promise.resolve().then(() => {
          if (waits <= 2) source.push(event({ jsonrpc: "2.0", method: "notifications/message", params: { n: waits } }));
          else source.push(event({ jsonrpc: "2.0", id: 3, result: {} }));
        });
      },
    });
    const read = await readSseStream(source.response, r.sse);
    expect(read.delivered).toBe(3);
    // Every wait came before the read of the event after it.
    expect(deliveredAtWait).toEqual([0, 1, 2]);
  });
});

describe("jsonRpcErrorIn", () => {
  const cases: [string, string, boolean][] = [
    ["a JSON-RPC error", '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}', true],
    ["a JSON-RPC error with id null", '{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"version"}}', true],
    ["a result", '{"jsonrpc":"2.0","id":1,"result":{}}', false],
    ["a request", '{"jsonrpc":"2.0","id":1,"method":"ping"}', false],
    ["an HTML page", "<h1>502 Bad Gateway</h1>", false],
    ["an OAuth error", '{"error":"invalid_token"}', false],
    ["empty", "", false],
  ];
  for (const [what, body, isError] of cases)
    test(`${what}: ${isError ? "the error" : "none"}`, () => {
      const found = jsonRpcErrorIn(body);
      if (isError) expect(found).toEqual(JSON.parse(body));
      else expect(found).toBeUndefined();
    });
});
