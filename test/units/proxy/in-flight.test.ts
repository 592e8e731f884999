// The proxy's table of the client's requests in flight, keyed by the ids themselves: JSON-RPC's
// number 1 and string "1" are two requests, and a reuse is told only within one type.
import { describe, expect, test } from "bun:test";
import type { JsonRpcId, JsonRpcRequest } from "../../../lib/wire/jsonrpc.ts";
import { InFlightTable } from "../../../proxy/in-flight.ts";

const request = (id: JsonRpcId): JsonRpcRequest => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t" } });

describe("the proxy's in-flight table", () => {
  test('1 and "1" are two requests, neither a reuse of the other, each found and forgotten on its own', () => {
    const table = new InFlightTable(() => false);
    const number = table.track(request(1));
    const text = table.track(request("1"));
    expect(number.upstreamId).toBe(1);
    expect(text.upstreamId).toBe("1");
    expect(table.get(1)).toBe(number);
    expect(table.get("1")).toBe(text);
    table.forget(number);
    expect(table.get(1)).toBeUndefined();
    expect(table.inFlightAs(1)).toBe(false);
    expect(table.get("1")).toBe(text);
    expect(table.inFlightAs("1")).toBe(true);
  });

  test("an id reused while in flight goes upstream under an id of ours; once both are answered the id is free again", () => {
    const table = new InFlightTable(() => false);
    const first = table.track(request(7));
    const again = table.track(request(7), JSON.stringify(request(7)));
    expect(again.upstreamId).not.toBe(7);
    expect(again.message.id).toBe(again.upstreamId);
    expect(table.newest(7)).toBe(again);
    table.forget(first);
    expect(table.inFlightAs(7)).toBe(true);
    table.forget(again);
    expect(table.inFlightAs(7)).toBe(false);
    expect(table.track(request(7)).upstreamId).toBe(7);
  });
});
