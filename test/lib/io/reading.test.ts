// Reads that yield to the event loop and pause for any number of reasons (readChunks), and the one
// way to wait (waitMs, settlesWithin, pollUntil). Timers are faked where time matters; the real
// always-readable source is a child's stdin on /dev/zero.
import { afterEach, describe, expect, jest, test } from "bun:test";
import { closeSync, openSync } from "node:fs";
import { type NodeReadable, pollUntil, readChunks, settlesWithin, waitMs } from "../../../lib/io/reading.ts";
import { YIELD_AFTER_BYTES } from "../../../lib/wire/limits.ts";
import { BUN, ROOT } from "../../support/helpers.ts";

const CHUNK = 64 * 1024;
/** Past this much a source that never yields has starved the loop: the fake stops, so a regression fails instead of hanging. */
const STARVED_BYTES = 64 * 1024 * 1024;

/**
 * A source as Bun reads a file or /dev/zero: once flowing, it emits chunk after chunk in one
 * synchronous loop, until paused. `emit` pushes chunks by hand instead.
 */
class FakeSource implements NodeReadable {
  pauses = 0;
  resumes = 0;
  flowing = false;
  bytes = 0;
  endless = false;
  #data: ((chunk: Uint8Array) => void)[] = [];
  #once = new Map<string, (() => void)[]>();
  #error: ((error: Error) => void)[] = [];
  #looping = false;

  on(event: "data" | "error", listener: (arg: any) => void): this {
    if (event === "data") this.#data.push(listener);
    else this.#error.push(listener);
    return this;
  }
  once(event: "end" | "close", listener: () => void): this {
    this.#once.set(event, [...(this.#once.get(event) ?? []), listener]);
    return this;
  }
  pause(): void {
    this.pauses++;
    this.flowing = false;
  }
  resume(): void {
    this.resumes++;
    this.flowing = true;
    if (this.endless) this.#loop();
  }
  /** Starts the endless loop (as a stream does once its reader attaches). */
  flowEndlessly(): void {
    this.endless = true;
    this.flowing = true;
    this.#loop();
  }
  emit(bytes: number): void {
    this.bytes += bytes;
    for (const listener of this.#data) listener(new Uint8Array(bytes));
  }
  fire(event: "end" | "close"): void {
    for (const listener of this.#once.get(event) ?? []) listener();
    this.#once.delete(event);
  }
  fail(error: Error): void {
    for (const listener of this.#error) listener(error);
  }
  #loop(): void {
    if (this.#looping) return;
    this.#looping = true;
    while (this.flowing && this.endless && this.bytes < STARVED_BYTES) this.emit(CHUNK);
    this.#looping = false;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("readChunks", () => {
  test("a source that is always readable yields to the event loop: a timer set while it is read fires", async () => {
    const source = new FakeSource();
    let bytesWhenFired = -1;
    readChunks(source, { onchunk() {}, onend() {} });
    const fired = new Promise<void>((resolve) =>
      setTimeout(() => {
        bytesWhenFired = source.bytes;
        source.endless = false;
        resolve();
      }, 0),
    );
    source.flowEndlessly();
    await fired;
    expect(bytesWhenFired).toBeGreaterThanOrEqual(YIELD_AFTER_BYTES);
    expect(bytesWhenFired).toBeLessThan(STARVED_BYTES);
  });

  test("a child reading stdin from /dev/zero hears its timer fire within a few yields", async () => {
    // Bun reads a stdin that is always readable in one loop that never returns to the event loop;
    // without the yield the timer below would fire only after the cap (and then say so).
    const script = `
      import { readChunks } from ${JSON.stringify(`${ROOT}/lib/io/reading.ts`)};
      let bytes = 0, armed = false;
      readChunks(process.stdin, {
        onchunk(chunk) {
          bytes += chunk.length;
          if (!armed) { armed = true; setTimeout(() => { console.log("fired", bytes); process.exit(0); }, 0); }
          if (bytes > ${STARVED_BYTES * 4}) { console.log("starved", bytes); process.exit(1); }
        },
        onend() { console.log("ended"); process.exit(2); },
      });
    `;
    const zero = openSync("/dev/zero", "r");
    const child = Bun.spawn([BUN, "-e", script], { stdin: zero, stdout: "pipe", stderr: "inherit" });
    closeSync(zero);
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(out).toStartWith("fired ");
    expect(code).toBe(0);
  });

  test("several reasons hold the source: it pauses on the first, resumes only when the last is gone", () => {
    const source = new FakeSource();
    const flow = readChunks(source, { onchunk() {}, onend() {} });
    flow.pause("backpressure");
    flow.pause("consumer");
    flow.pause("backpressure"); // a reason held twice is still one reason
    expect([source.pauses, flow.paused]).toEqual([1, true]);
    flow.resume("backpressure");
    expect([source.resumes, flow.paused]).toEqual([0, true]);
    flow.resume("consumer");
    expect([source.resumes, flow.paused]).toEqual([1, false]);
  });

  test("resuming for a reason never held changes nothing; pause() and resume() without one are the consumer's", () => {
    const source = new FakeSource();
    const flow = readChunks(source, { onchunk() {}, onend() {} });
    flow.resume("nobody");
    expect(source.resumes).toBe(0);
    flow.pause();
    flow.resume("other");
    expect(flow.paused).toBe(true);
    flow.resume();
    expect([flow.paused, source.resumes]).toEqual([false, 1]);
  });

  test("the yield does not undo a consumer's pause: the source stays paused across turns until the consumer resumes", async () => {
    const source = new FakeSource();
    let seen = 0;
    const flow = readChunks(source, {
      onchunk(chunk) {
        seen += chunk.length;
        if (seen === YIELD_AFTER_BYTES) flow.pause("backpressure");
      },
      onend() {},
    });
    source.flowEndlessly();
    expect(seen).toBe(YIELD_AFTER_BYTES);
    await nextTurn();
    await nextTurn();
    expect([source.flowing, seen]).toEqual([false, YIELD_AFTER_BYTES]);
    source.endless = false;
    flow.resume("backpressure");
    expect(source.flowing).toBe(true);
  });

  test("a source that lets the loop turn is never held back, however much it brings in all", async () => {
    const source = new FakeSource();
    readChunks(source, { onchunk() {}, onend() {} });
    for (let turn = 0; turn < 10; turn++) {
      for (let bytes = 0; bytes < YIELD_AFTER_BYTES / 2; bytes += CHUNK) source.emit(CHUNK);
      await nextTurn();
    }
    expect(source.bytes).toBe(5 * YIELD_AFTER_BYTES);
    expect(source.pauses).toBe(0);
  });

  test("chunks arrive in order, and the end is told once, though both end and close come", () => {
    const source = new FakeSource();
    const sizes: number[] = [];
    const ends: (Error | undefined)[] = [];
    readChunks(source, { onchunk: (chunk) => void sizes.push(chunk.length), onend: (error) => void ends.push(error) });
    source.emit(1);
    source.emit(2);
    source.fire("end");
    source.fire("close");
    expect(sizes).toEqual([1, 2]);
    expect(ends).toEqual([undefined]);
  });

  test("a failing source ends the read with its error, once", () => {
    const source = new FakeSource();
    const ends: (Error | undefined)[] = [];
    readChunks(source, { onchunk() {}, onend: (error) => void ends.push(error) });
    const error = new Error("EIO");
    source.fail(error);
    source.fire("close");
    expect(ends).toEqual([error]);
  });

  test("after the end, resuming does not touch the source", () => {
    const source = new FakeSource();
    const flow = readChunks(source, { onchunk() {}, onend() {} });
    flow.pause();
    source.fire("close");
    flow.resume();
    expect([source.resumes, flow.paused]).toEqual([0, false]);
  });
});

describe("with a fake clock", () => {
  afterEach(() => jest.useRealTimers());

  /** Advances the fake clock `ms` at a time, letting promise callbacks run in between. */
  async function advance(total: number, step: number): Promise<void> {
    for (let elapsed = 0; elapsed < total; elapsed += step) {
      await flush();
      jest.advanceTimersByTime(step);
    }
    await flush();
  }
  const flush = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };

  test("waitMs resolves after its time, not before", async () => {
    jest.useFakeTimers();
    let done = false;
    void waitMs(1000).then(() => (done = true));
    await advance(999, 999);
    expect(done).toBe(false);
    await advance(1, 1);
    expect(done).toBe(true);
  });

  test("settlesWithin: true for a promise that settles (either way) in time, false for one that does not", async () => {
    jest.useFakeTimers();
    const results: boolean[] = [];
    void settlesWithin(Promise.resolve(1), 100).then((settled) => results.push(settled));
    void settlesWithin(Promise.reject(new Error("no")), 100).then((settled) => results.push(settled));
    void settlesWithin(new Promise(() => {}), 100).then((settled) => results.push(settled));
    let late: (value: unknown) => void = () => {};
    void settlesWithin(new Promise((resolve) => (late = resolve)), 100).then((settled) => results.push(settled));
    await flush();
    expect(results).toEqual([true, true]);
    await advance(100, 100);
    late(0);
    await flush();
    expect(results).toEqual([true, true, false, false]);
  });

  test("pollUntil looks at once and resolves with the first value, looking no more", async () => {
    jest.useFakeTimers();
    let looks = 0;
    const result = pollUntil(() => (++looks >= 3 ? { found: looks } : undefined), { everyMs: 100, withinMs: 10_000 });
    await advance(1000, 100);
    expect(await result).toEqual({ found: 3 });
    expect(looks).toBe(3);
  });

  test("pollUntil takes 0 and the empty string as values; only undefined and false mean not yet", async () => {
    jest.useFakeTimers();
    const answers = [undefined, false, 0];
    const zero = pollUntil(() => answers.shift(), { everyMs: 10, withinMs: 1000 });
    await advance(100, 10);
    expect(await zero).toBe(0);
    expect(await pollUntil(() => "", { everyMs: 10, withinMs: 0 })).toBe("");
  });

  test("pollUntil awaits an async look", async () => {
    jest.useFakeTimers();
    let looks = 0;
    const result = pollUntil(async () => (++looks === 2 ? "ready" : false), { everyMs: 50, withinMs: 1000 });
    await advance(100, 50);
    expect(await result).toBe("ready");
  });

  test("pollUntil times out with undefined, having looked every everyMs and once more at the deadline", async () => {
    jest.useFakeTimers();
    let looks = 0;
    let answer: unknown = "pending";
    void pollUntil(() => void looks++, { everyMs: 100, withinMs: 250 }).then((value) => (answer = value));
    await advance(400, 50);
    expect(answer).toBeUndefined();
    expect(looks).toBe(4); // at 0, 100, 200 and 250
  });

  test("pollUntil with no time at all looks once", async () => {
    let looks = 0;
    expect(await pollUntil(() => void looks++, { everyMs: 100, withinMs: 0 })).toBeUndefined();
    expect(looks).toBe(1);
  });
});

describe("stopped by a signal", () => {
  test("waitMs ends early when its signal aborts, and at once when it already has", async () => {
    const aborter = new AbortController();
    const waiting = waitMs(2_000_000_000, aborter.signal);
    aborter.abort();
    expect(await waiting).toBeUndefined();
    expect(await waitMs(2_000_000_000, AbortSignal.abort())).toBeUndefined();
  });

  test("pollUntil rejects with the signal's reason when it aborts between looks, and looks no more", async () => {
    const aborter = new AbortController();
    let looks = 0;
    const polling = pollUntil(
      () => {
        looks++;
        if (looks === 2) queueMicrotask(() => aborter.abort(new Error("shutting down")));
        return false;
      },
      { everyMs: 0, withinMs: 2_000_000_000, signal: aborter.signal },
    );
    await expect(polling).rejects.toThrow("shutting down");
    expect(looks).toBe(2);
  });

  test("pollUntil rejects before looking when its signal has already aborted", async () => {
    let looks = 0;
    const reason = new Error("gone");
    await expect(pollUntil(() => ++looks, { everyMs: 10, withinMs: 1000, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(looks).toBe(0);
  });

  test("pollUntil aborted during a long wait rejects at once, not at the next look", async () => {
    const aborter = new AbortController();
    const polling = pollUntil(() => false, { everyMs: 2_000_000_000, withinMs: 2_000_000_000, signal: aborter.signal });
    aborter.abort(new Error("now"));
    await expect(polling).rejects.toThrow("now");
  });
});

test("settlesWithin's timer keeps no process alive: a child waiting on a promise that never settles exits", async () => {
  const script = `
    import { settlesWithin } from ${JSON.stringify(`${ROOT}/lib/io/reading.ts`)};
    void settlesWithin(new Promise(() => {}), 2_000_000_000);
    console.log("waiting");
  `;
  const child = Bun.spawn([BUN, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  expect([out, code]).toEqual(["waiting\n", 0]);
});
