import { describe, expect, test } from "bun:test";
import { ServerStderr } from "../../../lib/transport/stderr.ts";
import { MAX_STDERR_LINE_BYTES, STDERR_TAIL_BYTES } from "../../../lib/wire/limits.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("a server's stderr, read the one way", () => {
  test("split into lines whatever the chunks, a character cut across chunks kept whole, control sequences stripped", () => {
    const lines: string[] = [];
    const stderr = new ServerStderr((line) => lines.push(line));
    const all = bytes("caf\u00e9 \u001b[31mred\u001b[0m\r\nsecond \u202eline\nthird");
    for (let i = 0; i < all.length; i++) stderr.push(all.subarray(i, i + 1));
    stderr.end();
    expect(lines).toEqual(["café red", "second line", "third"]);
    expect(stderr.tail).toBe("café red\nsecond line\nthird");
  });

  test("a line longer than the cap is cut and marked, never buffered whole; blank lines are skipped", () => {
    const lines: string[] = [];
    const stderr = new ServerStderr((line) => lines.push(line));
    stderr.push(bytes(`${"x".repeat(MAX_STDERR_LINE_BYTES * 3)}\n\n   \nafter\n`));
    expect(lines.length).toBe(2);
    expect(lines[0]!.length).toBeLessThan(2_000);
    expect(lines[0]).toContain(`a ${MAX_STDERR_LINE_BYTES * 3}-byte line, cut`);
    expect(lines[1]).toBe("after");
  });

  test("the tail keeps only the last STDERR_TAIL_BYTES, however much was written", () => {
    const stderr = new ServerStderr();
    for (let i = 0; i < 10_000; i++) stderr.push(bytes(`line ${i} ${"y".repeat(100)}\n`));
    expect(stderr.tail.length).toBeLessThanOrEqual(STDERR_TAIL_BYTES);
    expect(stderr.tail.endsWith(`line 9999 ${"y".repeat(100)}`)).toBe(true);
  });

  test("bytes that are not UTF-8 become replacement characters, not a lost line", () => {
    const lines: string[] = [];
    const stderr = new ServerStderr((line) => lines.push(line));
    stderr.push(new Uint8Array([0x62, 0x61, 0x64, 0xff, 0x0a]));
    expect(lines).toEqual(["bad\ufffd"]);
  });
});
