// A clock the test moves by hand: while it is installed, every setTimeout it holds is kept with
// its delay instead of running, until the test says its time has come; clearTimeout drops it. For
// code whose waits are the point (a backoff, a retry: delay, a grace period): the test asserts
// each wait's length and never sleeps through one. Timers it does not hold run on the real clock.
// A suite that uses it has `afterEach(realClock)`: every suite runs in one process, so a hook
// here would belong to whichever suite loaded this first.
import { spyOn } from "bun:test";

export interface ManualClock {
  /** The delays of the held waits under way, in the order they began. */
  readonly pending: number[];
  /** Every held wait under way ends, as if its time had come (waits begun meanwhile stay pending). */
  elapse(): void;
  /** Settles once a held wait of `ms` is under way (at once if one is): the code under test is waiting now. */
  whenPending(ms: number): Promise<void>;
}

/** A held timer, shaped as the real ones are where code uses them (`unref()`). */
interface HeldTimer {
  ms: number;
  run: () => void;
  unref(): HeldTimer;
  ref(): HeldTimer;
  hasRef(): boolean;
}

let uninstall: (() => void) | undefined;

/** Back to the real clock (an afterEach of each suite that installs the manual one). */
export function realClock(): void {
  uninstall?.();
  uninstall = undefined;
}

/** Installs the clock until realClock(); `hold` picks the delays it holds (all of them by default). */
export function manualClock(hold: (ms: number) => boolean = () => true): ManualClock {
  realClock();
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const held = new Set<HeldTimer>();
  let waiters: { ms: number; resolve: () => void }[] = [];
  const set = spyOn(globalThis, "setTimeout").mockImplementation(((run: () => void, ms = 0, ...args: unknown[]) => {
    if (!hold(ms)) return realSet(run, ms, ...args);
    const timer: HeldTimer = {
      ms,
      run,
      unref: () => timer,
      ref: () => timer,
      hasRef: () => true,
    };
    held.add(timer);
    waiters = waiters.filter((waiter) => waiter.ms !== ms || (waiter.resolve(), false));
    return timer;
  }) as unknown as typeof setTimeout);
  const clear = spyOn(globalThis, "clearTimeout").mockImplementation(((timer: unknown) => {
    if (!held.delete(timer as HeldTimer)) realClear(timer as Parameters<typeof clearTimeout>[0]);
  }) as typeof clearTimeout);
  uninstall = () => {
    set.mockRestore();
    clear.mockRestore();
  };
  return {
    get pending() {
      return [...held].map(({ ms }) => ms);
    },
    elapse() {
      for (const timer of [...held]) {
        held.delete(timer);
        timer.run();
      }
    },
    whenPending(ms) {
      if ([...held].some((timer) => timer.ms === ms)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ ms, resolve }));
    },
  };
}
