// lib/io/bun-pipes in process: a FileSink as a LineSink (a full pipe is "false, then drain"; a
// closed one is "close", once, and every later write refused) and a web byte stream as a readable
// (chunks kept while paused and handed over in order before the end; an error, then close).
import { describe, expect, test } from "bun:test";
import { type BunFileSink, FileSinkOutput, OnceListeners, WebStreamSource } from "../../../lib/io/bun-pipes.ts";
import { until } from "../../support/helpers.ts";

/** A FileSink whose flush answers what the test says: a number (all written), a promise (full), undefined (closed). */
function fakeSink(flushes: (number | Promise<number> | undefined)[]) {
  const written: string[] = [];
  const sink: BunFileSink & { ended: boolean } = {
    ended: false,
    write: (chunk) => (written.push(String(chunk)), String(chunk).length),
    flush: () => (flushes.length > 0 ? flushes.shift() : 0),
    end() {
      this.ended = true;
    },
  };
  return { sink, written };
}

describe("FileSinkOutput", () => {
  test("a write the pipe takes at once is true; a full pipe is false until its flush settles, then drain", async () => {
    const full = Promise.withResolvers<number>();
    const { sink, written } = fakeSink([0, full.promise]);
    const output = new FileSinkOutput(sink);
    expect(output.write("one\n")).toBe(true);
    expect(output.write("two\n")).toBe(false);
    let drained = false;
    output.once("drain", () => (drained = true));
    // Written while waiting: buffered by the sink, still false.
    expect(output.write("three\n")).toBe(false);
    full.resolve(4);
    await until(() => drained, "drain");
    expect(written).toEqual(["one\n", "two\n", "three\n"]);
    expect(output.write("four\n")).toBe(true);
  });

  test("Bun's undocumented `true` from write and flush is all written, never a failure (stdout a regular file)", async () => {
    const full = Promise.withResolvers<number>();
    const flushes: (boolean | number | Promise<number>)[] = [true, full.promise, true];
    const written: string[] = [];
    const sink: BunFileSink = { write: (chunk) => (written.push(String(chunk)), true), flush: () => flushes.shift() ?? 0, end: () => {} };
    const output = new FileSinkOutput(sink);
    expect(output.write("one\n")).toBe(true);
    expect(output.write("two\n")).toBe(false);
    let drained = false;
    output.once("drain", () => (drained = true));
    full.resolve(4);
    await until(() => drained, "drain after a flush that answered true");
    expect(output.failed).toBe(false);
    expect(output.write("three\n")).toBe(true);
    expect(written).toEqual(["one\n", "two\n", "three\n"]);
  });

  test("a closed pipe is close and onfailure, once; later writes are refused and end does nothing", () => {
    const { sink, written } = fakeSink([undefined]);
    const output = new FileSinkOutput(sink);
    const events: string[] = [];
    output.once("close", () => events.push("close"));
    output.onfailure = () => events.push("failure");
    expect(output.write("lost\n")).toBe(false);
    expect(output.failed).toBe(true);
    expect(output.write("after\n")).toBe(false);
    output.end();
    expect(events).toEqual(["close", "failure"]);
    expect(written).toEqual(["lost\n"]);
    expect(sink.ended).toBe(false);
  });

  test("a write that rejects (the pipe broke while full) fails the output", async () => {
    const broken = Promise.withResolvers<number>();
    const sink: BunFileSink = { write: () => broken.promise, flush: () => 0, end: () => {} };
    const output = new FileSinkOutput(sink);
    let closed = false;
    output.once("close", () => (closed = true));
    output.write("x");
    broken.reject(new Error("EPIPE"));
    await until(() => closed, "close");
    expect(output.failed).toBe(true);
  });
});

describe("WebStreamSource", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const decoded = (chunks: unknown[]) => chunks.map((chunk) => new TextDecoder().decode(chunk as Uint8Array));

  test("paused inside a chunk, the rest is kept and handed over in order on resume, before the end", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const text of ["a", "b", "c"]) controller.enqueue(bytes(text));
        controller.close();
      },
    });
    const source = new WebStreamSource(stream);
    const events: unknown[] = [];
    source.on("data", (chunk) => {
      events.push(new TextDecoder().decode(chunk));
      if (events.length === 1) source.pause();
    });
    source.once("end", () => events.push("end"));
    source.once("close", () => events.push("close"));
    await until(() => events.length === 1, "the first chunk");
    source.resume();
    await until(() => events.includes("close"), "close");
    expect(events).toEqual(["a", "b", "c", "end", "close"]);
  });

  test("a stream that errors is error, then close; destroy is close once and cancels the stream", async () => {
    let pull = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pull++ === 0) controller.enqueue(bytes("first"));
        else controller.error(new Error("gone"));
      },
    });
    const events: string[] = [];
    const chunks: unknown[] = [];
    const source = new WebStreamSource(failing);
    source.on("data", (chunk) => chunks.push(chunk));
    source.once("error", (error) => events.push(`error ${(error as Error).message}`));
    source.once("close", () => events.push("close"));
    await until(() => events.includes("close"), "close");
    expect(decoded(chunks)).toEqual(["first"]);
    expect(events).toEqual(["error gone", "close"]);

    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(bytes("x")),
      cancel: () => void (cancelled = true),
    });
    const destroyed = new WebStreamSource(endless);
    let closes = 0;
    destroyed.on("close", () => closes++);
    destroyed.pause();
    destroyed.destroy();
    destroyed.destroy();
    await until(() => cancelled, "the stream cancelled");
    expect(closes).toBe(1);
  });
});

describe("OnceListeners", () => {
  test("each listener hears its event once, with its arguments; a removed one never; other events keep theirs", () => {
    const heard: string[] = [];
    const listeners = new OnceListeners<"exit" | "close">();
    const removed = () => heard.push("removed");
    listeners.add("exit", (code: number, signal: string | null) => heard.push(`first ${code} ${signal}`));
    listeners.add("exit", () => heard.push("second"));
    listeners.add("exit", removed);
    listeners.delete("exit", removed);
    listeners.add("close", () => heard.push("close"));
    expect(listeners.count("exit")).toBe(2);
    listeners.emit("exit", 3, null);
    listeners.emit("exit", 4, null);
    expect(heard).toEqual(["first 3 null", "second"]);
    expect(listeners.count("exit")).toBe(0);
    expect(listeners.count("close")).toBe(1);
    listeners.emit("close");
    expect(heard).toEqual(["first 3 null", "second", "close"]);
  });

  test("a listener added twice is called twice, and deleting it removes one registration, as node's do", () => {
    let calls = 0;
    const listener = () => calls++;
    const listeners = new OnceListeners<"drain">();
    listeners.add("drain", listener);
    listeners.add("drain", listener);
    listeners.add("drain", listener);
    listeners.delete("drain", listener);
    listeners.emit("drain");
    expect(calls).toBe(2);
  });
});
