// A clock the test moves by hand: while it is installed, every setTimeout is kept with its delay
// instead of running, until the test says its time has come; clearTimeout drops it. For code
// whose waits are the point (a backoff, a retry: delay, a timeout): the test asserts each wait's
// length and never sleeps through one. A suite that uses it has `afterEach(realClock)`: every
// suite runs in one process, so a hook here would belong to whichever suite loaded this first.
import { spyOn } from "bun:test";

export interface ManualClock {
  /** The delays of the waits under way, in the order they began. */
  readonly pending: number[];
  /** Every wait under way ends, as if its time had come (waits begun meanwhile stay pending). */
  elapse(): void;
}

let uninstall: (() => void) | undefined;

/** Back to the real clock (an afterEach of each suite that installs the manual one). */
export function realClock(): void {
  uninstall?.();
  uninstall = undefined;
}

/** Installs the clock until realClock(). */
export function manualClock(): ManualClock {
  uninstall?.();
  const timers = new Map<number, { ms: number; run: () => void }>();
  let next = 1;
  const set = spyOn(globalThis, "setTimeout").mockImplementation(((run: () => void, ms = 0) => {
    timers.set(next, { ms, run });
    return next++;
  }) as unknown as typeof setTimeout);
  const clear = spyOn(globalThis, "clearTimeout").mockImplementation(((id: number) => void timers.delete(id)) as typeof clearTimeout);
  uninstall = () => {
    set.mockRestore();
    clear.mockRestore();
  };
  return {
    get pending() {
      return [...timers.values()].map(({ ms }) => ms);
    },
    elapse() {
      for (const [id, timer] of [...timers]) {
        timers.delete(id);
        timer.run();
      }
    },
  };
}
