// The signals that end a tool, and the exit code each gives: 128 + N, as shells report them
// (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP). One mapping for every tool.

export const EXIT_SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
export type ExitSignal = keyof typeof EXIT_SIGNALS;

export function signalExitCode(signal: ExitSignal): number {
  return 128 + EXIT_SIGNALS[signal];
}

/** Calls `handler` on each SIGINT, SIGTERM and SIGHUP with the exit code it maps to; returns an unsubscribe. */
export function onExitSignals(handler: (signal: ExitSignal, code: number) => void): () => void {
  const listeners = (Object.keys(EXIT_SIGNALS) as ExitSignal[]).map((signal) => {
    const listener = () => handler(signal, signalExitCode(signal));
    process.on(signal, listener);
    return () => process.off(signal, listener);
  });
  return () => {
    for (const off of listeners) off();
  };
}
