// --timeout's clock, on bun's fake timers: it fires once the time passes with no word from the
// server, progress (reset) starts it again, a pause stops it, and it fires exactly once.
import { afterEach, beforeEach, expect, jest, test } from "bun:test";
import { Watchdog } from "../../../inspect/session.ts";

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function watch(ms: number) {
  const dog = new Watchdog(ms);
  let fired: Error | undefined;
  dog.fired.catch((reason: Error) => void (fired = reason));
  // The rejection is seen a microtask after the timer: flush both.
  const after = async (elapsed: number) => {
    jest.advanceTimersByTime(elapsed);
    await Promise.resolve();
    await Promise.resolve();
    return fired;
  };
  return { dog, after };
}

test("with no progress, --timeout fires once its time has passed, and says how to raise it", async () => {
  const { dog, after } = watch(800);
  expect(await after(799)).toBeUndefined();
  expect((await after(1))?.message).toBe("no answer within 800 ms (raise --timeout)");
  expect(dog.signal.aborted).toBe(true);
});

test("each progress notification starts the time again, so a long call that keeps reporting never times out", async () => {
  const { dog, after } = watch(800);
  for (let step = 0; step < 10; step++) {
    expect(await after(700)).toBeUndefined();
    dog.reset();
  }
  expect(dog.signal.aborted).toBe(false);
  expect(await after(800)).toBeDefined();
});

test("a pause (a person signing in) stops the clock until the next reset", async () => {
  const { dog, after } = watch(800);
  dog.pause();
  expect(await after(60_000)).toBeUndefined();
  dog.reset();
  expect(await after(800)).toBeDefined();
});

test("after it fired, a late reset changes nothing", async () => {
  const { dog, after } = watch(100);
  const first = await after(100);
  dog.reset();
  expect(await after(1_000)).toBe(first);
  expect(dog.signal.reason).toBe(first);
});
