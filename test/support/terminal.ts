// One pseudo-terminal for the tests that need a real TTY (Bun's PTY): what the program drew, read back
// without escape sequences, and waits that wake on each chunk drawn, never on a timer.

import { WAIT_GUARD_MS } from "./helpers.ts";

/** What a screen received, without escape sequences or carriage returns. */
export function plain(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "").replace(/\r/g, "");
}

export interface TerminalSession {
  readonly child: Bun.Subprocess;
  /** Everything drawn so far, plain. */
  screen(): string;
  /** Resolves once `wanted` is drawn after what earlier waits consumed; rejects if the program closes its terminal first. */
  see(wanted: string, withinMs?: number): Promise<void>;
  /** Resolves once `wanted` is anywhere on the screen, without moving past it (output of another stream may come later). */
  shows(wanted: string, withinMs?: number): Promise<void>;
  type(text: string): void;
  /** Resolves once the terminal has closed (the program and whatever shares its terminal are gone): all it drew has arrived. */
  readonly ended: Promise<void>;
  /** Kills the program and closes the terminal. */
  close(): void;
}

export function inTerminal(
  command: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; cols?: number; rows?: number } = {},
): TerminalSession {
  let drawn = "";
  let cursor = 0;
  // The PTY's end, not the process's exit: only then has everything the program drew arrived.
  let ended = false;
  const whenEnded = Promise.withResolvers<void>();
  const looks = new Set<() => void>();
  const lookAgain = () => {
    for (const look of looks) look();
  };
  const decoder = new TextDecoder();
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: options.env,
    terminal: {
      cols: options.cols ?? 200,
      rows: options.rows ?? 50,
      data: (_terminal, data) => {
        drawn += decoder.decode(data, { stream: true });
        lookAgain();
      },
      exit: () => {
        ended = true;
        whenEnded.resolve();
        lookAgain();
      },
    },
  });
  const screen = () => plain(drawn);

  const wait = (wanted: string, withinMs: number, consume: boolean) =>
    new Promise<void>((resolve, reject) => {
      const finish = (outcome: () => void) => {
        clearTimeout(timer);
        looks.delete(look);
        outcome();
      };
      const fail = (why: string) =>
        finish(() => reject(new Error(`${why} before drawing ${JSON.stringify(wanted)}; screen:\n${screen().slice(-3000)}`)));
      const look = () => {
        const index = screen().indexOf(wanted, consume ? cursor : 0);
        if (index !== -1) {
          if (consume) cursor = index + wanted.length;
          finish(resolve);
        } else if (ended) fail(`the program closed its terminal (exit ${child.exitCode ?? child.signalCode})`);
      };
      const timer = setTimeout(() => fail(`${withinMs} ms passed`), withinMs);
      looks.add(look);
      look();
    });

  return {
    child,
    screen,
    see: (wanted, withinMs = WAIT_GUARD_MS) => wait(wanted, withinMs, true),
    shows: (wanted, withinMs = WAIT_GUARD_MS) => wait(wanted, withinMs, false),
    type: (text) => child.terminal!.write(text),
    ended: whenEnded.promise,
    close: () => {
      child.kill("SIGKILL");
      child.terminal?.close();
    },
  };
}
