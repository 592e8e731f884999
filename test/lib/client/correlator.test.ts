import { describe, expect, test } from "bun:test";
import { type McpError, RequestCorrelator } from "../../../lib/client/correlator.ts";
import type { JsonRpcRequest } from "../../../lib/wire/jsonrpc.ts";

function peer() {
  const sent: JsonRpcRequest[] = [];
  const cancelled: unknown[] = [];
  return {
    sent,
    cancelled,
    send: async (request: JsonRpcRequest) => void sent.push(request),
    cancel: (id: unknown, reason: string) => void cancelled.push([id, reason]),
  };
}

describe("RequestCorrelator", () => {
  test("each request gets its own id; its answer settles it, an error answer rejects it with the server's error", async () => {
    let next = 0;
    const requests = new RequestCorrelator(() => `own-${++next}`);
    const link = peer();
    const first = requests.request(link, "a", {}, { timeoutMs: 60_000 });
    const second = requests.request(link, "b", {}, { timeoutMs: 60_000 });
    expect(link.sent.map((r) => r.id)).toEqual(["own-1", "own-2"]);
    expect(requests.settle({ jsonrpc: "2.0", id: "own-2", error: { code: -32601, message: "no" } })).toBe(true);
    expect(requests.settle({ jsonrpc: "2.0", id: "own-1", result: { ok: 1 } })).toBe(true);
    expect(requests.settle({ jsonrpc: "2.0", id: "someone-else", result: {} })).toBe(false);
    expect(await first).toEqual({ ok: 1 });
    const error = (await second.catch((e: unknown) => e)) as McpError;
    expect(error.kind).toBe("protocol");
    expect(error.rpc?.code).toBe(-32601);
    expect(requests.size).toBe(0);
  });

  test("a request that gets no answer times out, and the peer is told", async () => {
    const requests = new RequestCorrelator(() => 1);
    const link = peer();
    const error = (await requests.request(link, "slow", {}, { timeoutMs: 5 }).catch((e: unknown) => e)) as McpError;
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe("slow got no answer within 5 ms");
    expect(link.cancelled).toEqual([[1, "timed out after 5 ms"]]);
  });

  test("an abort rejects with the signal's reason and tells the peer; close rejects everything, now and later", async () => {
    const requests = new RequestCorrelator(() => "x");
    const link = peer();
    const controller = new AbortController();
    const aborted = requests.request(link, "m", {}, { timeoutMs: 60_000, signal: controller.signal });
    controller.abort(new Error("because"));
    expect(((await aborted.catch((e: unknown) => e)) as Error).message).toBe("because");
    expect(link.cancelled.length).toBe(1);
    const waiting = requests.request(link, "m", {}, { timeoutMs: 60_000 });
    requests.close("gone");
    expect(((await waiting.catch((e: unknown) => e)) as McpError).kind).toBe("closed");
    expect(((await requests.request(link, "m", {}, { timeoutMs: 60_000 }).catch((e: unknown) => e)) as McpError).message).toBe("gone");
  });

  test("progress for a request reaches its callback and restarts its timer; progress for others is not ours", async () => {
    const requests = new RequestCorrelator(() => 7);
    const link = peer();
    const seen: number[] = [];
    const pending = requests.request(link, "m", {}, { timeoutMs: 60_000, onprogress: (p) => seen.push(p.progress) });
    expect(link.sent[0]!.params?._meta).toEqual({ progressToken: 7 });
    expect(requests.progress({ progressToken: 7, progress: 1 })).toBe(true);
    expect(requests.progress({ progressToken: 8, progress: 1 })).toBe(false);
    requests.settle({ jsonrpc: "2.0", id: 7, result: {} });
    await pending;
    expect(seen).toEqual([1]);
  });

  test("while a person is waited for (a sign-in), no timer runs; after, each request gets its whole timeout again", async () => {
    const armed = new Map<number, { fire: () => void; ms: number }>();
    let handles = 0;
    const timers = {
      set: (fire: () => void, ms: number) => (armed.set(++handles, { fire, ms }), handles),
      clear: (handle: unknown) => void armed.delete(handle as number),
    };
    const requests = new RequestCorrelator(() => 1, timers);
    const link = peer();
    const pending = requests.request(link, "server/discover", {}, { timeoutMs: 5_000 });
    expect([...armed.values()].map((t) => t.ms)).toEqual([5_000]);
    requests.userWaiting(true);
    expect(armed.size).toBe(0);
    // Progress during the wait arms nothing either.
    requests.progress({ progressToken: 1, progress: 1 });
    expect(armed.size).toBe(0);
    requests.userWaiting(false);
    expect([...armed.values()].map((t) => t.ms)).toEqual([5_000]);
    [...armed.values()][0]!.fire();
    expect(((await pending.catch((e: unknown) => e)) as McpError).kind).toBe("timeout");
    expect(link.cancelled).toHaveLength(1);
  });
});
