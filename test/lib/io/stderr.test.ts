import { expect, test } from "bun:test";
import { DroppingLineWriter } from "../../../lib/io/stderr.ts";

test("a stream nobody reads: lines past the bound are dropped and counted, and one line says so once it drains", () => {
  const writes: string[] = [];
  let drain: (() => void) | undefined;
  const sink = {
    write: (text: string) => (writes.push(text), false),
    once: (_event: string, listener: () => void) => void (drain = listener),
    off: () => {},
  };
  const lines = new DroppingLineWriter(sink, 100);
  for (let i = 0; i < 50; i++) lines.write(`line ${"x".repeat(20)} ${i}\n`);
  expect(writes.length).toBeLessThan(10);
  expect(lines.dropped).toBe(50 - writes.length);
  const dropped = lines.dropped;
  drain!();
  expect(writes.at(-1)).toBe(`[mcpkit] ${dropped} line(s) dropped while nothing read this stream\n`);
});
