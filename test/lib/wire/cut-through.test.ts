// The cut-through splitter and its scanner, fed by hand in pieces of every size.
import { describe, expect, test } from "bun:test";
import { CutThroughSplitter, HeadScanner, HOLD_BYTES, type MessageHead } from "../../../lib/wire/cut-through.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (parts: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(parts));

function feed(input: string, pieceBytes: number, stream = true, maxLineBytes?: number) {
  const whole: string[] = [];
  const streamed: { head: MessageHead; parts: Uint8Array[]; ended?: "end" | "abort"; last?: MessageHead; tail?: string }[] = [];
  const errors: string[] = [];
  const splitter = new CutThroughSplitter({
    online: (line) => whole.push(new TextDecoder().decode(line)),
    onlong: (head) => {
      if (!stream) return undefined;
      const entry: (typeof streamed)[number] = { head: { ...head }, parts: [] };
      streamed.push(entry);
      return {
        data: (piece) => entry.parts.push(piece.slice()),
        end: (last, tail) => Object.assign(entry, { ended: "end", last: { ...last }, tail: text([tail]) }),
        abort: (last) => Object.assign(entry, { ended: "abort", last: { ...last } }),
      };
    },
    onerror: (error) => errors.push(error.kind),
    ...(maxLineBytes ? { maxLineBytes } : {}),
  });
  const all = bytes(input);
  for (let at = 0; at < all.length; at += pieceBytes) splitter.push(all.slice(at, at + pieceBytes));
  splitter.end();
  return { whole, streamed, errors };
}

const big = "x".repeat(HOLD_BYTES * 2);
const clientCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"${big}"}}}`;
const sdkAnswer = `{"result":{"content":[{"type":"text","text":"${big} \\"}{[ \\\\"}]},"jsonrpc":"2.0","id":"late"}`;

describe("cut-through splitter", () => {
  test("lines up to the hold size come whole, in order, whatever the pieces", () => {
    for (const size of [1, 3, 64, 100_000]) {
      const { whole, streamed } = feed('{"a":1}\n{"b":2}\r\n\n{"c":3}', size);
      expect(whole).toEqual(['{"a":1}', '{"b":2}', "", '{"c":3}']);
      expect(streamed).toEqual([]);
    }
  });

  test("a longer line is streamed byte for byte once its routing fields are read", () => {
    for (const size of [1000, 7919, 65_536, 1_000_000]) {
      const { whole, streamed } = feed(`${clientCall}\n{"after":1}\n`, size);
      expect(streamed).toHaveLength(1);
      expect(streamed[0]!.head).toMatchObject({ id: 7, method: "tools/call", body: "params", toolName: "echo", valid: true });
      expect(streamed[0]!.ended).toBe("end");
      expect(text(streamed[0]!.parts) + streamed[0]!.tail).toBe(`${clientCall}\n`);
      expect(whole).toEqual(['{"after":1}']);
    }
  });

  test("an id written after the result is read when it comes, past strings with escaped quotes and brackets", () => {
    for (const size of [1, 2, 13, 65_537]) {
      if (size < 100) {
        // Every piece size through the scanner alone (the splitter's pieces are at least the hold size).
        const scanner = new HeadScanner();
        const all = bytes(`{"result":{"t":"a\\"}\\\\"},"jsonrpc":"2.0","id":"late"}`);
        for (let at = 0; at < all.length; at += size) scanner.scan(all.slice(at, at + size));
        expect(scanner.head).toMatchObject({ id: "late", body: "result", complete: true });
        continue;
      }
      const { streamed } = feed(`${sdkAnswer}\n`, size);
      expect(streamed[0]!.head.id).toBeUndefined();
      expect(streamed[0]!.last).toMatchObject({ id: "late", body: "result", complete: true });
      expect(text(streamed[0]!.parts) + streamed[0]!.tail).toBe(`${sdkAnswer}\n`);
    }
  });

  test("a line the caller holds comes whole up to the cap, and past it is an oversize error", () => {
    const held = feed(`${clientCall}\n`, 10_000, false);
    expect(held.whole).toEqual([clientCall]);
    const over = feed(`${clientCall}\n{"next":1}\n`, 10_000, false, HOLD_BYTES + 10);
    expect(over.errors).toEqual(["oversize"]);
    expect(over.whole).toEqual(['{"next":1}']);
  });

  test("a streamed line's last bytes come with its newline, as one piece: the newline never goes on alone", () => {
    for (const size of [1000, 7919, 65_536, HOLD_BYTES + 1, 1_000_000]) {
      const [line] = feed(`${clientCall}\n{"after":1}\n`, size).streamed;
      const lastChunkStarts = Math.floor(clientCall.length / size) * size;
      expect(line!.tail).toBe(`${clientCall.slice(lastChunkStarts)}\n`);
      expect(text(line!.parts)).toBe(clientCall.slice(0, lastChunkStarts));
    }
    // A line whose last piece is its newline alone: then the tail is that newline.
    const split = clientCall.length;
    const [alone] = feed(`${clientCall}\n`, split).streamed;
    expect(alone!.tail).toBe("\n");
    expect(text(alone!.parts)).toBe(clientCall);
  });

  test("input that ends in the middle of a streamed line aborts it; a complete one without a newline ends, given one", () => {
    expect(feed(clientCall.slice(0, -5), 10_000).streamed[0]!.ended).toBe("abort");
    const [complete] = feed(clientCall, 10_000).streamed;
    expect(complete!.ended).toBe("end");
    expect(text(complete!.parts) + complete!.tail).toBe(`${clientCall}\n`);
  });

  test("text that is not a JSON object is never offered as a stream", () => {
    const { whole, streamed } = feed(`[${big}]\n`, 10_000);
    expect(streamed).toEqual([]);
    expect(whole).toEqual([`[${big}]`]);
  });
});

describe("head scanner", () => {
  /** What the scanner reads of a whole message, fed in pieces of every size up to 7 bytes. */
  function headOf(message: string): MessageHead {
    const all = bytes(message);
    const heads = [1, 2, 3, 7, all.length].map((size) => {
      const scanner = new HeadScanner();
      for (let at = 0; at < all.length; at += size) scanner.scan(all.slice(at, at + size));
      return scanner.head;
    });
    for (const head of heads) expect(head).toEqual(heads[0]!);
    return heads[0]!;
  }

  test("ids read as JSON.parse reads them: integers, signs, fractions, exponents, long ones; anything else leaves the id unknown", () => {
    for (const id of ["0", "-0", "7", "-42", "123456789012345", "1234567890123456789", "1.5", "1e3", "-2.5E-3"]) {
      expect(headOf(`{"jsonrpc":"2.0","id":${id},"result":{}}`).id).toBe(JSON.parse(id));
    }
    for (const id of ["007", "-", "1.", "true", "null", "0x10", "--1"]) {
      expect(headOf(`{"jsonrpc":"2.0","id":${id},"result":{}}`).id).toBeUndefined();
    }
  });

  test("keys and values written with escapes are read as their text; other keys route nothing", () => {
    const escaped = headOf(String.raw`{"\u0069d":"a\"b","m\u0065thod":"tools\/call","params":{"n\u0061me":"\u00e9cho"}}`);
    expect(escaped).toMatchObject({ id: 'a"b', method: "tools/call", body: "params", toolName: "\u00e9cho" });
    const unicode = headOf(`{"id":"\u00e9t\u00e9","method":"m\u00e9thode","params":{"name":"\u{1F600}"}}`);
    expect(unicode).toMatchObject({ id: "\u00e9t\u00e9", method: "m\u00e9thode", toolName: "\u{1F600}" });
    // A key that only starts like a routing key is just another key: its "name" is no tool's name.
    const lookalike = headOf(`{"params":{"names":"y","name":"restart_server"},"paramsX":{"name":"echo"},"ids":1,"methods":"x"}`);
    expect(lookalike).toMatchObject({ body: "params", toolName: "restart_server" });
    expect(lookalike.id).toBeUndefined();
    expect(lookalike.method).toBeUndefined();
  });
});
