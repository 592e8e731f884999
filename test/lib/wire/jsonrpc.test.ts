import { describe, expect, test } from "bun:test";
import { idFromEdges, oversizeRefusal } from "../../../lib/wire/json-scan.ts";
import { IdAllocator, isNotification, isRequest, isResponse, parseMessage } from "../../../lib/wire/jsonrpc.ts";

describe("parseMessage", () => {
  test.each([
    ['{"jsonrpc":"2.0","id":0,"method":"ping"}', "request"],
    ['{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}', "request"],
    ['{"jsonrpc":"2.0","method":"notifications/initialized"}', "notification"],
    ['{"jsonrpc":"2.0","id":0,"result":{}}', "response"],
    ['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}', "response"],
  ])("%s is a %s", (text, kind) => {
    const parsed = parseMessage(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const actual = isRequest(parsed.value)
      ? "request"
      : isNotification(parsed.value)
        ? "notification"
        : isResponse(parsed.value)
          ? "response"
          : "?";
    expect(actual).toBe(kind);
  });

  test.each([
    ["not json", "invalid JSON"],
    ["[1,2]", "not a JSON object"],
    ['{"id":1,"method":"x"}', "jsonrpc"],
    ['{"jsonrpc":"2.0","id":{},"method":"x"}', "id"],
    ['{"jsonrpc":"2.0","id":1,"method":5}', "method"],
    ['{"jsonrpc":"2.0","id":1,"error":"bad"}', "error"],
    ['{"jsonrpc":"2.0","id":null,"result":{}}', "id"],
    ['{"jsonrpc":"2.0","id":1}', "neither"],
  ])("%s is refused naming %s", (text, fragment) => {
    const parsed = parseMessage(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(fragment);
  });

  test("id 0 and string ids keep their exact JSON type", () => {
    const zero = parseMessage('{"jsonrpc":"2.0","id":0,"result":{}}');
    const text = parseMessage('{"jsonrpc":"2.0","id":"0","result":{}}');
    expect(zero.ok && isResponse(zero.value) && zero.value.id).toBe(0);
    expect(text.ok && isResponse(text.value) && text.value.id).toBe("0");
  });
});

describe("id bookkeeping", () => {
  test("allocated ids never collide with numeric or ordinary string ids", () => {
    const ids = new IdAllocator("mcpkit-");
    const first = ids.next();
    expect(first).not.toBe(ids.next());
    expect(ids.owns(first)).toBe(true);
    expect(ids.owns(1)).toBe(false);
    expect(ids.owns("1")).toBe(false);
  });
});

describe("idFromEdges", () => {
  test.each([
    ['{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"yyyy', "", 7],
    ['{"id":"a\\"b","jsonrpc":"2.0"', "", 'a"b'],
    ['  { "jsonrpc": "2.0", "id" : -3 , "method"', "", -3],
    ['{"jsonrpc":"2.0","method":"x","params":{"id":5', "", undefined],
    ['{"result":{"content":[{"type":"text","text":"xxxx', 'xxxx"}]},"jsonrpc":"2.0","id":"out"}', "out"],
    ['{"result":{"content":[{"type":"text","text":"xxxx', 'xxxx","id":9}]}}', undefined],
    ['{"jsonrpc":"2.0","method":"tools/call","params":{"message":"xxxxx', 'xxx"}}}', undefined],
    ["not json at all", '"id":1}', undefined],
  ])("%s ... %s -> %j", (head, tail, id) => {
    expect(idFromEdges(head, tail)).toBe(id as never);
  });
});

describe("oversizeRefusal", () => {
  test("a request whose id the edges show gets -32600 under that id, the speaker first", () => {
    const dropped = { bytes: 40_000_000, head: '{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"aaa', tail: 'aaa"}}' };
    expect(oversizeRefusal(dropped, 33_554_432, "mcp-proxy")).toEqual({
      jsonrpc: "2.0",
      id: "big",
      error: { code: -32600, message: "mcp-proxy: a 40000000-byte message is over the 33554432-byte limit" },
    });
    expect(oversizeRefusal(dropped, 16)?.error.message).toBe("a 40000000-byte message is over the 16-byte limit");
  });

  test("a notification, or an id the edges do not show, gets no answer", () => {
    expect(oversizeRefusal({ bytes: 99, head: '{"jsonrpc":"2.0","method":"x","params":{"a":"', tail: '"}}' }, 16)).toBeUndefined();
    expect(oversizeRefusal({ bytes: 99, head: "xxxx", tail: "xxxx" }, 16)).toBeUndefined();
  });
});
