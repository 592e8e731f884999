import { describe, expect, test } from "bun:test";
import { ByteLineSplitter, type LineError, LineSplitter } from "../../../lib/wire/lines.ts";

const encoder = new TextEncoder();

function splitAll(chunks: Uint8Array[], maxLineBytes?: number) {
  const lines: string[] = [];
  const errors: LineError[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), { maxLineBytes, onerror: (e) => errors.push(e) });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { lines, errors };
}

/** Every way of cutting the bytes into two chunks. */
function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [];
  for (let cut = 0; cut <= bytes.length; cut++) out.push([bytes.slice(0, cut), bytes.slice(cut)]);
  return out;
}

describe("LineSplitter", () => {
  test("a multi-byte character split at every byte boundary decodes whole", () => {
    const text = '{"x":"héllo 🎉 日本"}\n{"y":"€"}\n';
    const bytes = encoder.encode(text);
    for (const chunks of everySplit(bytes)) {
      expect(splitAll(chunks).lines).toEqual(['{"x":"héllo 🎉 日本"}', '{"y":"€"}']);
    }
  });

  test("a CRLF split between chunks yields the line without the CR", () => {
    const bytes = encoder.encode("one\r\ntwo\r\n");
    for (const chunks of everySplit(bytes)) expect(splitAll(chunks).lines).toEqual(["one", "two"]);
  });

  test("a last line without a trailing newline is flushed at the end", () => {
    expect(splitAll([encoder.encode("a\nb")]).lines).toEqual(["a", "b"]);
  });

  test("one byte at a time gives the same lines", () => {
    const bytes = encoder.encode("ab\ncd€\n\nef");
    const chunks = [...bytes].map((b) => new Uint8Array([b]));
    expect(splitAll(chunks).lines).toEqual(["ab", "cd€", "", "ef"]);
  });

  test("20,000 empty lines come out as 20,000 empty strings", () => {
    const { lines } = splitAll([encoder.encode("\n".repeat(20_000))]);
    expect(lines.length).toBe(20_000);
    expect(lines.every((line) => line === "")).toBe(true);
  });

  test("one 20 MB line arriving in 64 KB chunks is delivered whole", () => {
    const line = "x".repeat(20 * 1024 * 1024);
    const bytes = encoder.encode(`${line}\nafter\n`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
    const { lines, errors } = splitAll(chunks);
    expect(errors).toEqual([]);
    expect(lines.length).toBe(2);
    expect(lines[0]!.length).toBe(line.length);
    expect(lines[1]).toBe("after");
  });

  test("a line over the cap is dropped with an error and the next line survives", () => {
    const { lines, errors } = splitAll([encoder.encode("short\n"), encoder.encode("y".repeat(100)), encoder.encode("yy\nnext\n")], 50);
    expect(lines).toEqual(["short", "next"]);
    expect(errors).toEqual([{ kind: "oversize", bytes: 102, head: "y".repeat(100), tail: "y".repeat(102) }]);
  });

  test("invalid UTF-8 drops only that line", () => {
    const bad = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
    const { lines, errors } = splitAll([encoder.encode("ok\n"), bad, encoder.encode("fine\n")]);
    expect(lines).toEqual(["ok", "fine"]);
    expect(errors[0]?.kind).toBe("invalid-utf8");
  });

  test("the caller may reuse its chunk buffer after push", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    const buffer = encoder.encode("abc");
    splitter.push(buffer);
    buffer.fill(0x7a);
    splitter.push(encoder.encode("\n"));
    expect(lines).toEqual(["abc"]);
  });
});

describe("ByteLineSplitter.pushLine", () => {
  const decoder = new TextDecoder();
  const collect = (maxLineBytes?: number) => {
    const lines: string[] = [];
    const errors: LineError[] = [];
    const splitter = new ByteLineSplitter((line) => lines.push(decoder.decode(line)), {
      maxLineBytes,
      chunksAreOwned: true,
      onerror: (error) => errors.push(error),
    });
    return { splitter, lines, errors };
  };

  test("a whole line is handed over as a view into the chunk, without its CR", () => {
    const { splitter, lines } = collect();
    const chunk = encoder.encode('{"a":1}\r\n{"b":2}\n');
    splitter.pushLine(chunk, 0, 8);
    splitter.pushLine(chunk, 9, 16);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  test("behind an unfinished line it joins that line, as push would; over the cap it is dropped with an error", () => {
    const joined = collect();
    joined.splitter.push(encoder.encode('{"a":'));
    const rest = encoder.encode("1}\n");
    joined.splitter.pushLine(rest, 0, 2);
    expect(joined.lines).toEqual(['{"a":1}']);

    const capped = collect(4);
    capped.splitter.pushLine(encoder.encode("123456\nok\n"), 0, 6);
    expect(capped.lines).toEqual([]);
    expect(capped.errors.map((error) => error.kind)).toEqual(["oversize"]);
  });
});
