// The byte scanner forwarders route large messages by, and the small-JSON decoders it shares with
// the cut-through head scanner: what they read must be what JSON.parse reads, or nothing.
import { describe, expect, test } from "bun:test";
import { decodeJsonNumber, decodeJsonString, isPartial, PEEK_ABOVE_CHARS, parseForRouting } from "../../../lib/wire/json-scan.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
/** A body big enough that parseForRouting peeks instead of parsing. */
const BIG = "x".repeat(PEEK_ABOVE_CHARS + 1);

/** What parseForRouting makes of a large message, given as bytes and as text (the two must agree). */
function routed(message: string) {
  const fromBytes = parseForRouting(bytes(message));
  const fromText = parseForRouting(message);
  expect(fromText).toEqual(fromBytes);
  return fromBytes;
}

describe("small JSON decoders", () => {
  test("numbers are read as JSON.parse reads them; what is not a JSON number is undefined", () => {
    for (const number of ["0", "-0", "7", "-42", "123456789012345", "1234567890123456789", "1.5", "1e3", "-2.5E-3"]) {
      expect(decodeJsonNumber(bytes(number))).toBe(JSON.parse(number));
      expect(decodeJsonNumber([...bytes(number)])).toBe(JSON.parse(number));
    }
    for (const junk of ["007", "-", "1.", "true", "0x10", "--1", "", "1e999"]) expect(decodeJsonNumber(bytes(junk))).toBeUndefined();
    // A range of a larger buffer: only its bytes count.
    expect(decodeJsonNumber(bytes('{"id":4711}'), 6, 10)).toBe(4711);
  });

  test("strings are read as JSON.parse reads them, escapes and UTF-8 included; an invalid one is undefined", () => {
    for (const inner of [
      "tools/call",
      "",
      String.raw`a\"b`,
      String.raw`tools\/call`,
      String.raw`\u00e9cho`,
      "\u00e9t\u00e9",
      "\u{1F600}",
    ]) {
      expect(decodeJsonString(bytes(inner))).toBe(JSON.parse(`"${inner}"`));
    }
    const long = "k".repeat(5000);
    expect(decodeJsonString(bytes(long))).toBe(long);
    for (const junk of [String.raw`bad\x`, "tab\there", String.raw`\u12`]) expect(decodeJsonString(bytes(junk))).toBeUndefined();
  });
});

describe("parseForRouting on a message over PEEK_ABOVE_CHARS", () => {
  test("reads the routing fields only, marked partial, from keys and values written with escapes", () => {
    const call = routed(
      String.raw`{"jsonrpc":"2.0","\u0069d":-17,"m\u0065thod":"tools\/call","params":{"n\u0061me":"\u00e9cho","arguments":{"m":"${BIG}"}}}`,
    );
    expect(call.ok && call.value).toEqual({ jsonrpc: "2.0", id: -17, method: "tools/call", params: { name: "\u00e9cho" } });
    expect(call.ok && isPartial(call.value)).toBe(true);
    const answer = routed(`{"result":{"content":[{"type":"text","text":"${BIG}"}]},"jsonrpc":"2.0","id":"r-\u00e9"}`);
    expect(answer.ok && answer.value).toEqual({ jsonrpc: "2.0", id: "r-\u00e9", result: {} });
  });

  test("a key that only starts like a routing key routes nothing; params.name is read only inside params", () => {
    const lookalike = routed(
      `{"jsonrpc":"2.0","ids":1,"id":2,"method":"tools/call","paramsX":{"name":"restart_server"},` +
        `"params":{"names":"y","name":"echo","a":"${BIG}"}}`,
    );
    expect(lookalike.ok && lookalike.value).toEqual({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo" } });
  });

  test("what the scanner cannot read goes to the full parser: an error for bad JSON, the whole message for odd but valid JSON", () => {
    const bad = routed(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"${BIG}"}`);
    expect(bad.ok).toBe(false);
    // An id the scanner does not read digit by digit (an exponent) is still JSON.parse's.
    const odd = routed(`{"jsonrpc":"2.0","id":1e2,"method":"x","params":{"a":"${BIG}"}}`);
    expect(odd.ok && (odd.value as { id?: unknown }).id).toBe(100);
  });
});
