// wholeLines: a stream's lines, each handed on whole once it is complete, however it was cut; a
// line over the cap dropped, with the stream going on (onoversize) or ended with an error.
import { describe, expect, test } from "bun:test";
import { PassThrough, type Readable } from "node:stream";
import { type OversizeLine, wholeLines } from "../../../lib/io/whole-lines.ts";

const utf8 = new TextEncoder();

/** Everything `lines` hands on, chunk by chunk, and how it ended. */
function collect(lines: Readable): Promise<{ chunks: string[]; error?: Error }> {
  const chunks: string[] = [];
  return new Promise((resolve) => {
    lines.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
    lines.on("end", () => resolve({ chunks }));
    lines.on("error", (error) => resolve({ chunks, error }));
  });
}

describe("wholeLines", () => {
  test("a line cut into pieces comes out as one chunk with its newline; lines sharing a chunk come out apart", async () => {
    const input = new PassThrough();
    const done = collect(wholeLines(input, { maxLineBytes: 1024 }));
    for (const piece of ['{"a":', "1", '}\n{"b":2}\n{"c"', ":3}\n"]) input.write(utf8.encode(piece));
    input.end();
    expect((await done).chunks).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}\n']);
  });

  test("a line over the cap is dropped and named to onoversize (its edges kept), and the next line still comes", async () => {
    const input = new PassThrough();
    const dropped: OversizeLine[] = [];
    const done = collect(wholeLines(input, { maxLineBytes: 64, onoversize: (line) => dropped.push(line) }));
    input.write(utf8.encode(`{"id":7,"x":"${"y".repeat(40)}`));
    input.write(utf8.encode(`${"y".repeat(40)}"}\n{"id":8}\n`));
    input.end();
    const { chunks, error } = await done;
    expect(error).toBeUndefined();
    expect(chunks).toEqual(['{"id":8}\n']);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.bytes).toBe(95);
    expect(dropped[0]!.head).toStartWith('{"id":7,');
  });

  test("without onoversize, a line over the cap ends the stream with an error that names both sizes", async () => {
    const input = new PassThrough();
    const done = collect(wholeLines(input, { maxLineBytes: 16 }));
    input.write(utf8.encode(`${"z".repeat(20)}\n`));
    const { chunks, error } = await done;
    expect(chunks).toEqual([]);
    expect(error?.message).toBe("a message of 20 bytes is over the 16 cap");
  });

  test("pausing the lines pauses the input, and resuming them resumes it", async () => {
    const input = new PassThrough();
    const lines = wholeLines(input, { maxLineBytes: 16 });
    lines.pause();
    expect(input.isPaused()).toBe(true);
    // A stream says it resumed a tick later; wholeLines listened first, so the input has resumed by then.
    const resumed = new Promise((resolve) => lines.once("resume", resolve));
    lines.resume();
    await resumed;
    expect(input.isPaused()).toBe(false);
  });
});
