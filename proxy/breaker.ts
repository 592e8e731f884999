// When a crashing server is restarted, and when the proxy stops trying: exponential backoff from
// --restart-delay, and an open circuit after more than --max-restarts crashes within the window.

/** Crashes counted for the circuit breaker are those within this window. */
export const CRASH_WINDOW_MS = 60_000;
export const MAX_BACKOFF_MS = 30_000;

export type CrashVerdict = { restartInMs: number } | { open: true; crashes: number };

export class CircuitBreaker {
  #crashes: number[] = [];

  constructor(
    readonly maxRestarts: number,
    readonly restartDelayMs: number,
  ) {}

  /** Records a crash: restart after a delay, or give up for now (the circuit opens). */
  crashed(now = Date.now()): CrashVerdict {
    this.#crashes = this.#crashes.filter((at) => now - at < CRASH_WINDOW_MS);
    this.#crashes.push(now);
    if (this.#crashes.length > this.maxRestarts) return { open: true, crashes: this.#crashes.length };
    return { restartInMs: Math.min(this.restartDelayMs * 2 ** (this.#crashes.length - 1), MAX_BACKOFF_MS) };
  }

  /** A restart someone asked for (the tool, a watched file) worked: the count starts over. */
  reset(): void {
    this.#crashes = [];
  }
}
