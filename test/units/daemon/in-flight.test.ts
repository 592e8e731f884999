// The daemon session's one in-flight table: every lookup finds the same call, and follows it when
// the call changes hands (a parked question's call, taken by the call that answers it).
import { describe, expect, test } from "bun:test";
import { InFlight } from "../../../daemon/in-flight.ts";
import type { SessionClient } from "../../../daemon/session.ts";
import type { JsonRpcRequest } from "../../../lib/wire/jsonrpc.ts";

const client = (name: string): SessionClient => ({ name, send() {} });
const tokenOf = (sent: JsonRpcRequest) => (sent.params?._meta as { progressToken?: string } | undefined)?.progressToken;

describe("the daemon's in-flight table", () => {
  test("two clients with the same id and progress token get calls of their own, each found every way", () => {
    const table = new InFlight();
    const [a, b] = [client("a"), client("b")];
    const sentA = table.add(a, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", _meta: { progressToken: 1 } } });
    const sentB = table.add(b, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", _meta: { progressToken: 1 } } });
    expect(sentA.id).not.toBe(sentB.id);
    const tokenA = tokenOf(sentA);
    const tokenB = tokenOf(sentB);
    expect(tokenA).not.toBe(tokenB);
    expect(sentA.params?.name).toBe("t");
    expect(table.byUpstreamId(sentA.id)?.client).toBe(a);
    expect(table.byClientId(b, 1)?.upstreamId).toBe(String(sentB.id));
    expect(table.byProgressToken(tokenB)).toMatchObject({ client: b, progress: { token: 1 } });
    expect(table.ofClient(a).map((call) => call.upstreamId)).toEqual([String(sentA.id)]);
  });

  test('ids keep their JSON type: 1 and "1" are two calls; a request without params gets none', () => {
    const table = new InFlight();
    const a = client("a");
    const number = table.add(a, { jsonrpc: "2.0", id: 1, method: "ping" });
    const text = table.add(a, { jsonrpc: "2.0", id: "1", method: "ping" });
    expect(number).not.toHaveProperty("params");
    expect(table.byClientId(a, 1)?.upstreamId).toBe(String(number.id));
    expect(table.byClientId(a, "1")?.upstreamId).toBe(String(text.id));
  });

  test("a hand-over moves the answer, the progress and the client id lookup; the call keeps its place", () => {
    const table = new InFlight();
    const [a, b, waiting] = [client("a"), client("b"), client("waiting")];
    const first = table.add(a, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: { progressToken: "p" } } });
    const second = table.add(a, { jsonrpc: "2.0", id: 8, method: "tools/list" });
    table.handOver(String(first.id), waiting, 7);
    table.handOver(String(first.id), b, 42);
    expect(table.byClientId(a, 7)).toBeUndefined();
    expect(table.byClientId(b, 42)?.upstreamId).toBe(String(first.id));
    const token = tokenOf(first);
    expect(table.byProgressToken(token)).toMatchObject({ client: b, originalId: 42, progress: { token: "p" } });
    expect(table.calls().map((call) => call.upstreamId)).toEqual([String(first.id), String(second.id)]);
  });

  test("a call that is over is gone from every lookup; clear returns what was in flight and ids start over", () => {
    const table = new InFlight();
    const a = client("a");
    const sent = table.add(a, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: { progressToken: 1 } } });
    const token = tokenOf(sent);
    expect(table.delete(sent.id)?.originalId).toBe(1);
    expect(table.delete(sent.id)).toBeUndefined();
    expect([table.byUpstreamId(sent.id), table.byClientId(a, 1), table.byProgressToken(token)]).toEqual([undefined, undefined, undefined]);
    const again = table.add(a, { jsonrpc: "2.0", id: 2, method: "ping" });
    expect(table.clear().map((call) => call.originalId)).toEqual([2]);
    expect(table.calls()).toEqual([]);
    expect(table.add(a, { jsonrpc: "2.0", id: 3, method: "ping" }).id).toBe(sent.id);
    expect(again.id).not.toBe(sent.id);
  });

  test("a client that reuses an id in flight: the first stays findable by it until it is over", () => {
    const table = new InFlight();
    const a = client("a");
    const first = table.add(a, { jsonrpc: "2.0", id: 1, method: "ping" });
    const second = table.add(a, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(table.byClientId(a, 1)?.upstreamId).toBe(String(first.id));
    table.delete(second.id);
    expect(table.byClientId(a, 1)?.upstreamId).toBe(String(first.id));
    expect(table.byUpstreamId(null)).toBeUndefined();
  });
});
