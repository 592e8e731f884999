// lib/transport/http/recovery: a request's response stream that ends before its response. First
// StreamRecovery against a scripted host, on a clock of its own (every wait is asserted to the
// millisecond, none is slept through); then an HttpChannel against a loopback server that breaks
// its streams, for what goes over the wire (Last-Event-ID, the new id, which methods go again).
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import {
  DEFAULT_RESUME_DELAY_MS,
  MAX_RESUME_DELAY_MS,
  MAX_STREAM_RECOVERIES,
  notReissuedReason,
  REISSUE_BACKOFF_MS,
  REISSUE_ID_PREFIX,
  type RecoveryHost,
  resumeDelayMs,
  type StreamRead,
  StreamRecovery,
} from "../../../../lib/transport/http/recovery.ts";
import { HttpChannel } from "../../../../lib/transport/http/streamable.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from "../../../../lib/wire/jsonrpc.ts";
import { SAFE_TO_REPEAT_METHODS } from "../../../../lib/wire/protocol.ts";
import { manualClock, realClock } from "../../../support/manual-clock.ts";

afterEach(realClock);

const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";

describe("resumeDelayMs", () => {
  const cases: [number | undefined, number][] = [
    [undefined, DEFAULT_RESUME_DELAY_MS],
    [0, 0],
    [250, 250],
    [MAX_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS],
    [MAX_RESUME_DELAY_MS + 1, MAX_RESUME_DELAY_MS],
    [10 ** 9, MAX_RESUME_DELAY_MS],
  ];
  for (const [retry, ms] of cases) test(`retry: ${retry} -> ${ms} ms`, () => expect(resumeDelayMs(retry)).toBe(ms));
});

test("notReissuedReason says what broke, that the method was not sent again, and why", () => {
  expect(notReissuedReason("tools/call", "the server's SSE stream ended")).toBe(
    "the server's SSE stream ended before the response; tools/call was not sent again, since the server may already have run it " +
      "(send it again if that is safe)",
  );
});

const broke = (over: Partial<StreamRead> = {}): StreamRead => ({ answered: false, delivered: 0, lastEventId: "", ...over });
const request = (method: string, id: JsonRpcId = 1): JsonRpcRequest => ({ jsonrpc: "2.0", id, method, params: {} });
const bodyOf = (message: JsonRpcRequest) => JSON.stringify(message);

/**
 * A channel as recovery sees it, scripted: each stream read gives the next of `reads`; `post`
 * follows the new request's stream as the channel does. `atWait()` settles when recovery has just
 * started a wait (it asks for the version right before one), so the test can move the clock.
 */
function scriptedHost(version: string | undefined, reads: StreamRead[]) {
  const resumed: string[] = [];
  const posted: { request: JsonRpcRequest; body: string; attempt: number }[] = [];
  const missing: { id: JsonRpcId; why: string }[] = [];
  const aborters = new Map<JsonRpcId, AbortController>();
  const aborterOf = (id: JsonRpcId) => aborters.get(id) ?? aborters.set(id, new AbortController()).get(id)!;
  const follows: Promise<void>[] = [];
  let wait = Promise.withResolvers<void>();
  const host: RecoveryHost = {
    readSse: async () => {
      const read = reads.shift();
      if (!read) throw new Error("the script has no more streams");
      return read;
    },
    resume: async (lastEventId) => {
      resumed.push(lastEventId);
      return new Response("");
    },
    post: async (again, body, attempt) => {
      posted.push({ request: again, body, attempt });
      follows.push(recovery.follow(new Response(""), again, body, aborterOf(again.id).signal, attempt));
    },
    answerMissing: (id, why) => void missing.push({ id, why }),
    versionOf: () => {
      const reached = wait;
      queueMicrotask(() => reached.resolve());
      return version;
    },
    signalOf: (id) => aborterOf(id).signal,
    abandoned: (id) => aborterOf(id).signal.aborted,
  };
  const recovery = new StreamRecovery(host);
  return {
    host,
    recovery,
    resumed,
    posted,
    missing,
    follows,
    abort: (id: JsonRpcId) => aborterOf(id).abort(),
    signalOf: (id: JsonRpcId) => aborterOf(id).signal,
    /** Settles once recovery is waiting (or has decided not to); re-armed for the next one. */
    async atWait(): Promise<void> {
      await wait.promise;
      wait = Promise.withResolvers<void>();
    },
  };
}

describe("StreamRecovery on a 2025-era server: resumed after retry: with Last-Event-ID", () => {
  test("a stream that ended after an event id is resumed after the server's retry: delay, from that id", async () => {
    const clock = manualClock();
    const h = scriptedHost(LEGACY, [broke({ delivered: 1, lastEventId: "e3", retry: 250 }), broke({ answered: true })]);
    const followed = h.recovery.follow(new Response(""), request("tools/call"), undefined, h.signalOf(1), 1);
    await h.atWait();
    expect(h.resumed).toEqual([]);
    expect(clock.pending).toEqual([250]);
    clock.elapse();
    await followed;
    expect(h.resumed).toEqual(["e3"]);
    expect(h.missing).toEqual([]);
  });

  test("without retry: the wait is EventSource's default", async () => {
    const clock = manualClock();
    const h = scriptedHost(LEGACY, [broke({ lastEventId: "7" }), broke({ answered: true })]);
    const followed = h.recovery.follow(new Response(""), request("tools/call"), undefined, h.signalOf(1), 1);
    await h.atWait();
    expect(clock.pending).toEqual([DEFAULT_RESUME_DELAY_MS]);
    clock.elapse();
    await followed;
    expect(h.resumed).toEqual(["7"]);
  });

  test("a huge retry: is honoured only up to the maximum", async () => {
    const clock = manualClock();
    const h = scriptedHost(LEGACY, [broke({ lastEventId: "7", retry: 86_400_000 }), broke({ answered: true })]);
    const followed = h.recovery.follow(new Response(""), request("ping"), undefined, h.signalOf(1), 1);
    await h.atWait();
    expect(clock.pending).toEqual([MAX_RESUME_DELAY_MS]);
    clock.elapse();
    await followed;
    expect(h.resumed).toEqual(["7"]);
  });

  test("a later stream that names no id or retry keeps the earlier ones (as EventSource does)", async () => {
    const clock = manualClock();
    const h = scriptedHost(LEGACY, [broke({ lastEventId: "a", retry: 40 }), broke({ lastEventId: "" }), broke({ answered: true })]);
    const followed = h.recovery.follow(new Response(""), request("tools/call"), undefined, h.signalOf(1), 1);
    await h.atWait();
    expect(clock.pending).toEqual([40]);
    clock.elapse();
    await h.atWait();
    expect(clock.pending).toEqual([40]);
    clock.elapse();
    await followed;
    expect(h.resumed).toEqual(["a", "a"]);
  });

  const unresumable: [string, StreamRead, string][] = [
    ["ended", broke(), "the server's SSE stream ended before the response arrived"],
    ["failed", broke({ failure: "reset" }), "the server's SSE stream failed (reset) before the response arrived"],
  ];
  for (const [what, read, why] of unresumable)
    test(`a stream that ${what} without an event id cannot be resumed: answered with why, nothing sent`, async () => {
      const h = scriptedHost(LEGACY, [read]);
      await h.recovery.follow(new Response(""), request("tools/call", 4), undefined, h.signalOf(4), 1);
      expect(h.missing).toEqual([{ id: 4, why }]);
      expect(h.resumed).toEqual([]);
      expect(h.posted).toEqual([]);
    });

  test("a resumption that fails answers the request with why", async () => {
    const h = scriptedHost(LEGACY, [broke({ lastEventId: "1", retry: 0 })]);
    h.host.resume = async () => {
      throw new Error("HTTP 405");
    };
    await h.recovery.follow(new Response(""), request("tools/call"), undefined, h.signalOf(1), 1);
    expect(h.missing).toEqual([{ id: 1, why: "the server's SSE stream ended before the response, and resuming it failed: HTTP 405" }]);
  });

  test(`a server that keeps breaking its streams gets ${MAX_STREAM_RECOVERIES} resumptions, then the request is answered`, async () => {
    const clock = manualClock();
    const reads = Array.from({ length: MAX_STREAM_RECOVERIES + 1 }, (_, n) => broke({ lastEventId: `e${n}`, retry: 10 }));
    const h = scriptedHost(LEGACY, reads);
    const followed = h.recovery.follow(new Response(""), request("tools/call"), undefined, h.signalOf(1), 1);
    for (let n = 0; n < MAX_STREAM_RECOVERIES; n++) {
      await h.atWait();
      expect(clock.pending).toEqual([10]);
      clock.elapse();
    }
    await followed;
    expect(h.resumed).toEqual(["e0", "e1", "e2"]);
    expect(h.missing).toEqual([
      {
        id: 1,
        why: `the server's SSE stream ended before the response, ${MAX_STREAM_RECOVERIES + 1} times; the request was not tried again`,
      },
    ]);
  });

  test("a subscription that carried messages before it broke keeps its tries; an empty break counts", async () => {
    const clock = manualClock();
    const working = Array.from({ length: MAX_STREAM_RECOVERIES + 2 }, () => broke({ delivered: 1, lastEventId: "x", retry: 0 }));
    const empty = Array.from({ length: MAX_STREAM_RECOVERIES }, () => broke({ lastEventId: "x", retry: 0 }));
    const h = scriptedHost(LEGACY, [...working, ...empty]);
    const followed = h.recovery.follow(new Response(""), request("subscriptions/listen"), undefined, h.signalOf(1), 1);
    // Every working break resumes; of the empty ones after them, the tries that were left.
    for (let n = 0; n < working.length + MAX_STREAM_RECOVERIES - 1; n++) {
      await h.atWait();
      expect(clock.pending).toEqual([0]);
      clock.elapse();
    }
    await followed;
    expect(h.resumed).toHaveLength(working.length + MAX_STREAM_RECOVERIES - 1);
    expect(h.missing).toHaveLength(1);
    expect(h.missing[0]!.why).toContain(`${MAX_STREAM_RECOVERIES + 1} times`);
  });

  test("cancelled during the wait before resuming: nothing is resumed and nothing answered", async () => {
    const clock = manualClock();
    const h = scriptedHost(LEGACY, [broke({ lastEventId: "e1", retry: 5_000 })]);
    const followed = h.recovery.follow(new Response(""), request("tools/call"), undefined, h.signalOf(1), 1);
    await h.atWait();
    expect(clock.pending).toHaveLength(1);
    h.abort(1);
    await followed;
    expect(clock.pending).toEqual([]); // the wait was cut short, and its timer cleared
    expect(h.resumed).toEqual([]);
    expect(h.missing).toEqual([]);
  });

  test("an answered stream, or one nobody wants any more, needs nothing", async () => {
    const answered = scriptedHost(LEGACY, [broke({ answered: true })]);
    await answered.recovery.follow(new Response(""), request("tools/call"), undefined, answered.signalOf(1), 1);
    const abandoned = scriptedHost(LEGACY, [broke({ lastEventId: "e" })]);
    abandoned.abort(1);
    await abandoned.recovery.follow(new Response(""), request("tools/call"), undefined, abandoned.signalOf(1), 1);
    for (const h of [answered, abandoned]) expect([h.resumed, h.posted, h.missing]).toEqual([[], [], []]);
  });
});

describe("StreamRecovery on a 2026-07-28 server: re-issued under a new id, only what is safe", () => {
  test("a kept request goes again after the backoff under a new id, and its answer comes back under the caller's", async () => {
    const clock = manualClock();
    const h = scriptedHost(MODERN, [broke({ lastEventId: "ignored", delivered: 2 }), broke({ answered: true })]);
    const original = request("tools/list", "caller-1");
    const followed = h.recovery.follow(new Response(""), original, bodyOf(original), h.signalOf("caller-1"), 1);
    await h.atWait();
    // During the backoff the caller's id is still the one in flight (a cancel finds it).
    expect(h.recovery.currentId("caller-1")).toBe("caller-1");
    expect(clock.pending).toEqual([REISSUE_BACKOFF_MS]);
    clock.elapse();
    await followed;
    await Promise.all(h.follows);
    const id = `${REISSUE_ID_PREFIX}1`;
    expect(h.posted).toEqual([{ request: { ...original, id }, body: JSON.stringify({ ...original, id }), attempt: 2 }]);
    expect(h.resumed).toEqual([]); // 2026-07-28 has no resumption, whatever the stream's event ids
    expect(h.recovery.currentId("caller-1")).toBe(id);
    const answer: JsonRpcMessage = { jsonrpc: "2.0", id, result: { tools: [] } };
    expect(h.recovery.answered(answer)).toEqual({ ...answer, id: "caller-1" });
    // Answered once: the alias is gone, and the same id later is nobody's.
    expect(h.recovery.currentId("caller-1")).toBe("caller-1");
    expect(h.recovery.answered(answer)).toBe(answer);
    expect(h.missing).toEqual([]);
  });

  test("a request not kept (it may change something) is answered with why, and never sent again", async () => {
    const h = scriptedHost(MODERN, [broke({ failure: "reset" })]);
    await h.recovery.follow(new Response(""), request("tools/call", 9), undefined, h.signalOf(9), 1);
    expect(h.posted).toEqual([]);
    expect(h.missing).toEqual([{ id: 9, why: notReissuedReason("tools/call", "the server's SSE stream failed (reset)") }]);
  });

  test(`re-issues back off ${REISSUE_BACKOFF_MS} ms more each time, ${MAX_STREAM_RECOVERIES} at most, then answer`, async () => {
    const clock = manualClock();
    const h = scriptedHost(
      MODERN,
      Array.from({ length: MAX_STREAM_RECOVERIES + 1 }, () => broke()),
    );
    const original = request("resources/read", 3);
    const followed = h.recovery.follow(new Response(""), original, bodyOf(original), h.signalOf(3), 1);
    for (let n = 1; n <= MAX_STREAM_RECOVERIES; n++) {
      await h.atWait();
      expect(clock.pending).toEqual([REISSUE_BACKOFF_MS * n]);
      clock.elapse();
    }
    await followed;
    await Promise.all(h.follows);
    expect(h.posted.map(({ request, attempt }) => [request.id, attempt])).toEqual([
      [`${REISSUE_ID_PREFIX}1`, 2],
      [`${REISSUE_ID_PREFIX}2`, 3],
      [`${REISSUE_ID_PREFIX}3`, 4],
    ]);
    const last = `${REISSUE_ID_PREFIX}3`;
    expect(h.missing).toEqual([
      {
        id: last,
        why: `the server's SSE stream ended before the response, ${MAX_STREAM_RECOVERIES + 1} times; the request was not tried again`,
      },
    ]);
    // That answer, under the last new id, reaches the caller under its own.
    expect(h.recovery.answered({ jsonrpc: "2.0", id: last, error: { code: -32000, message: "x" } })).toMatchObject({ id: 3 });
  });

  test("a cancel during the backoff wait: nothing is posted, nothing answered, no alias left", async () => {
    const clock = manualClock();
    const h = scriptedHost(MODERN, [broke()]);
    const original = request("tools/list", 5);
    const followed = h.recovery.follow(new Response(""), original, bodyOf(original), h.signalOf(5), 1);
    await h.atWait();
    expect(clock.pending).toHaveLength(1);
    h.abort(5);
    await followed;
    expect(clock.pending).toEqual([]);
    expect(h.posted).toEqual([]);
    expect(h.missing).toEqual([]);
    expect(h.recovery.currentId(5)).toBe(5);
  });

  test("a re-issue that cannot be sent answers the caller with why", async () => {
    const clock = manualClock();
    const h = scriptedHost(MODERN, [broke()]);
    h.host.post = async () => {
      throw new Error("connection refused");
    };
    const original = request("ping", 2);
    const followed = h.recovery.follow(new Response(""), original, bodyOf(original), h.signalOf(2), 1);
    await h.atWait();
    expect(clock.pending).toEqual([REISSUE_BACKOFF_MS]);
    clock.elapse();
    await followed;
    expect(h.missing).toEqual([
      {
        id: `${REISSUE_ID_PREFIX}1`,
        why: "the server's SSE stream ended before the response, and sending it again failed: connection refused",
      },
    ]);
  });

  test("forget drops a given-up re-issue's alias, so a later id is nobody's", () => {
    const h = scriptedHost(MODERN, []);
    h.recovery.forget("never-seen"); // nothing to forget: no harm
    const answer: JsonRpcMessage = { jsonrpc: "2.0", id: `${REISSUE_ID_PREFIX}1`, result: {} };
    expect(h.recovery.answered(answer)).toBe(answer);
    // Requests and notifications pass untouched.
    const req: JsonRpcMessage = { jsonrpc: "2.0", id: `${REISSUE_ID_PREFIX}1`, method: "ping" };
    expect(h.recovery.answered(req)).toBe(req);
  });
});

// ---- over the wire --------------------------------------------------------------------------------

/**
 * A server whose first response stream for each request breaks after one progress event (its
 * event id "p1", `retry: 0`); a GET with Last-Event-ID and every later POST are answered.
 */
const wire: { method: string; id?: JsonRpcId; lastEventId?: string | null }[] = [];
const broken = new Set<string>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const sse = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });
    if (req.method === "GET") {
      wire.push({ method: "GET", lastEventId: req.headers.get("last-event-id") });
      return sse(`id: p2\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { resumed: true } })}\n\n`);
    }
    const message = (await req.json()) as JsonRpcRequest;
    wire.push({ method: message.method, id: message.id });
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } };
    if (!broken.has(message.method)) {
      broken.add(message.method);
      return sse(`retry: 0\nid: p1\ndata: ${JSON.stringify(progress)}\n\n`);
    }
    return sse(`data: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { again: true } })}\n\n`);
  },
});
afterAll(() => server.stop(true));

/** One request on a fresh channel of `version`, and the one answer it gets. */
async function oneRequest(version: string, method: string): Promise<JsonRpcMessage> {
  wire.length = 0;
  broken.clear();
  const channel = new HttpChannel({ url: `http://127.0.0.1:${server.port}/mcp` });
  channel.protocolVersion = version;
  const answer = Promise.withResolvers<JsonRpcMessage>();
  channel.onmessage = (message) => {
    if ("id" in message && !("method" in message)) answer.resolve(message);
  };
  await channel.start();
  await channel.send({ jsonrpc: "2.0", id: 1, method, params: {} });
  const answered = await answer.promise;
  await channel.close();
  return answered;
}

describe("HttpChannel with a server that breaks its streams", () => {
  test("2025: the request is resumed by a GET carrying the last event id, not sent again", async () => {
    const answer = await oneRequest(LEGACY, "tools/call");
    expect(answer).toEqual({ jsonrpc: "2.0", id: 1, result: { resumed: true } });
    expect(wire).toEqual([
      { method: "tools/call", id: 1 },
      { method: "GET", lastEventId: "p1" },
    ]);
  });

  for (const method of ["tools/list", "resources/read", "ping", "tools/call", "resources/subscribe", "sampling/createMessage"]) {
    const safe = SAFE_TO_REPEAT_METHODS.has(method);
    const outcome = safe ? "re-issued under a new id, answered under the caller's" : "answered with an error, sent once";
    test(`2026-07-28: ${method} is ${outcome}`, async () => {
      const answer = await oneRequest(MODERN, method);
      if (safe) {
        expect(answer).toEqual({ jsonrpc: "2.0", id: 1, result: { again: true } });
        expect(wire).toEqual([
          { method, id: 1 },
          { method, id: `${REISSUE_ID_PREFIX}1` },
        ]);
      } else {
        expect(answer).toMatchObject({
          jsonrpc: "2.0",
          id: 1,
          error: { message: notReissuedReason(method, "the server's SSE stream ended") },
        });
        expect(wire).toEqual([{ method, id: 1 }]);
      }
    });
  }
});
