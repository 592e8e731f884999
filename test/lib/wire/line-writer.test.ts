import { describe, expect, test } from "bun:test";
import { LineWriter, ROOM } from "../../../lib/wire/line-writer.ts";

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

  test("a line written in pieces ends with its tail in the same write; lines written meanwhile follow it", async () => {
    const sink = stuckSink(1_000_000);
    const writer = new LineWriter(sink);
    const line = writer.openLine()!;
    line.write(new TextEncoder().encode('{"a":'));
    void writer.write("waits");
    line.end(new TextEncoder().encode("1}\n"));
    await Promise.resolve();
    const texts = sink.written.map((chunk) => (typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk)));
    expect(texts).toEqual(['{"a":', "1}\n", "waits\n"]);
    // Without a tail (a line cut short), the newline alone ends it.
    const cut = writer.openLine()!;
    cut.write(new TextEncoder().encode('{"b"'));
    cut.end();
    expect(new TextDecoder().decode(sink.written.at(-1) as Uint8Array)).toBe("\n");
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

  test("lines one after another in one chunk, each with its newline there, go out as that run of the chunk, uncopied", async () => {
    const sink = stuckSink(1_000_000);
    const writer = new LineWriter(sink);
    const chunk = new TextEncoder().encode('{"a":1}\n{"b":2}\n{"c":3}\n');
    void writer.write(chunk.subarray(0, 7));
    void writer.write(chunk.subarray(8, 15));
    await Promise.resolve();
    const out = sink.written[0] as Uint8Array;
    expect(sink.written.length).toBe(1);
    expect(new TextDecoder().decode(out)).toBe('{"a":1}\n{"b":2}\n');
    expect(out.buffer).toBe(chunk.buffer);
    expect(out.byteOffset).toBe(0);
  });

  test("other lines are copied into one batch: apart, out of order, a CR before the newline, no newline after the last", async () => {
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const batch = async (lines: Uint8Array[]) => {
      const sink = stuckSink(1_000_000);
      const writer = new LineWriter(sink);
      for (const line of lines) void writer.write(line);
      await Promise.resolve();
      expect(sink.written.length).toBe(1);
      return sink.written[0] as Uint8Array;
    };
    const apart = encoder.encode("a\n\nb\n");
    const crlf = encoder.encode("a\r\nb\r\n");
    const last = encoder.encode("a\nbX");
    for (const [lines, text] of [
      [[apart.subarray(0, 1), apart.subarray(3, 4)], "a\nb\n"],
      [[apart.subarray(3, 4), apart.subarray(0, 1)], "b\na\n"],
      [[crlf.subarray(0, 1), crlf.subarray(3, 4)], "a\nb\n"],
      [[last.subarray(0, 1), last.subarray(2, 3)], "a\nb\n"],
    ] as const) {
      const out = await batch([...lines]);
      expect(decoder.decode(out)).toBe(text);
      expect(out.buffer).not.toBe(lines[0]!.buffer);
    }
  });

  test("a write with room returns ROOM, which callers may leave unhandled; a full writer returns another promise", () => {
    const writer = new LineWriter(stuckSink(), { bufferBytes: 10 });
    expect(writer.write("short")).toBe(ROOM);
    void writer.write("x".repeat(20));
    expect(writer.write("more")).not.toBe(ROOM);
  });
});
