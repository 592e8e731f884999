import { describe, expect, test } from "bun:test";
import { LineWriter } from "../../../lib/wire/line-writer.ts";

/** A sink that refuses everything past `accept` bytes until drained by the test. */
function stuckSink(accept = 0) {
  const written: (string | Uint8Array)[] = [];
  let taken = 0;
  const listeners: Record<string, (() => void)[]> = { drain: [], close: [] };
  return {
    written,
    write(chunk: string | Uint8Array) {
      written.push(chunk);
      taken += chunk.length;
      return taken <= accept;
    },
    once(event: "drain" | "close", listener: () => void) {
      listeners[event]!.push(listener);
    },
    off(event: "drain" | "close", listener: () => void) {
      listeners[event] = listeners[event]!.filter((l) => l !== listener);
    },
    drain() {
      taken = 0;
      for (const listener of listeners.drain!.splice(0)) listener();
    },
  };
}

describe("LineWriter", () => {
  test("lines of one turn go out in one write, each ending in a newline", async () => {
    const sink = stuckSink(1_000_000);
    const writer = new LineWriter(sink);
    void writer.write("a");
    void writer.write(new TextEncoder().encode("b"));
    await Promise.resolve();
    expect(sink.written.length).toBe(1);
    expect(new TextDecoder().decode(new TextEncoder().encode(String(sink.written[0])))).toBe("a\nb\n");
  });

  test("past the bound it has no room, and its promise waits; a drain gives room back and says so", async () => {
    const sink = stuckSink();
    const writer = new LineWriter(sink, { bufferBytes: 1_000 });
    let rooms = 0;
    writer.onroom = () => rooms++;
    let settled = false;
    for (let i = 0; i < 20; i++) void writer.write("x".repeat(99));
    const waiting = writer.write("x".repeat(99)).then(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(writer.hasRoom).toBe(false);
    expect(writer.bufferedBytes).toBeGreaterThanOrEqual(1_000);
    expect(settled).toBe(false);
    sink.drain();
    await waiting;
    expect(writer.hasRoom).toBe(true);
    expect(rooms).toBe(1);
  });

  test("flushed() settles once everything written was taken and the sink drained", async () => {
    const sink = stuckSink();
    const writer = new LineWriter(sink);
    void writer.write("one");
    let done = false;
    const flushed = writer.flushed().then(() => (done = true));
    await Promise.resolve();
    expect(sink.written.length).toBe(1);
    expect(done).toBe(false);
    sink.drain();
    await flushed;
    expect(done).toBe(true);
  });
});
