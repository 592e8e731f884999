// Reading a node-style stream (our stdin, a child's stdout, a socket) so that it never starves the
// event loop and can be held back by a slow consumer. Bun reads an always-readable source (a file,
// /dev/zero) in one loop that never returns to the event loop: no timer fires, no signal is
// handled. Pausing after YIELD_AFTER_BYTES and resuming on the next turn breaks that loop.
import { YIELD_AFTER_BYTES } from "../wire/limits.ts";

/** Past this many bytes without a known turn of the loop, the next turn is watched for. */
const TURN_CHECK_BYTES = 64 * 1024;

export interface NodeReadable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "end" | "close", listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

export interface ReadHandlers {
  onchunk(chunk: Uint8Array): void;
  /** Once, at the end of the stream (or when it closes or fails). */
  onend(error?: Error): void;
}

/** Holds a reader back for any number of reasons at once (backpressure, a yield). */
export interface Flow {
  pause(reason?: string): void;
  resume(reason?: string): void;
  readonly paused: boolean;
}

export function readChunks(source: NodeReadable, handlers: ReadHandlers): Flow {
  const holds = new Set<string>();
  // Bytes read since the event loop last turned, as far as we know: the count is reset on the
  // next turn, which is only asked for once a chunk's worth has come (small messages, one at a
  // time, cost no extra scheduling).
  let readThisTurn = 0;
  let turnScheduled = false;
  let ended = false;
  const flow: Flow = {
    pause(reason = "consumer") {
      if (holds.size === 0) source.pause();
      holds.add(reason);
    },
    resume(reason = "consumer") {
      if (!holds.delete(reason) || holds.size > 0 || ended) return;
      source.resume();
    },
    get paused() {
      return holds.size > 0;
    },
  };
  const nextTurn = () => {
    turnScheduled = false;
    readThisTurn = 0;
    flow.resume("yield");
  };
  source.on("data", (chunk) => {
    handlers.onchunk(chunk);
    readThisTurn += chunk.length;
    if (!turnScheduled && readThisTurn >= TURN_CHECK_BYTES) {
      turnScheduled = true;
      setImmediate(nextTurn);
    }
    if (readThisTurn >= YIELD_AFTER_BYTES && !holds.has("yield")) flow.pause("yield");
  });
  const end = (error?: Error) => {
    if (ended) return;
    ended = true;
    handlers.onend(error);
  };
  source.once("end", () => end());
  source.once("close", () => end());
  source.on("error", (error) => end(error));
  return flow;
}

/** Waits `ms`, or less when `signal` aborts first (whoever waits then sees the signal's reason). */
export function waitMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    if (signal?.aborted) return done();
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Whether `promise` settles (either way) within `ms`; it goes on either way, and the timer keeps no process alive. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    (timer as { unref?: () => void }).unref?.();
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settled, settled);
  });
}

export interface PollOptions {
  /** The wait between two looks. */
  everyMs: number;
  /** Give up after this long (undefined is then the answer). */
  withinMs: number;
  /** Stops the polling: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Looks at once, then every `everyMs`, until `look` gives a value (anything but undefined or false),
 * for at most `withinMs`: for conditions no event announces (a process gone, a lock free, a socket
 * answering). Resolves with that value, or undefined when time ran out.
 */
export async function pollUntil<T>(
  look: () => T | undefined | false | Promise<T | undefined | false>,
  options: PollOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + options.withinMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const seen = await look();
    if (seen !== undefined && seen !== false) return seen;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    await waitMs(Math.min(options.everyMs, left), options.signal);
  }
}
