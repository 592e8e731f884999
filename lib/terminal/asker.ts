// Whom a tool asks when it needs a person: to approve a project's server, to sign in, to type a
// VS Code input, to fill in a server's form. One interface for all of them, and its terminal
// implementation for tools whose stdout is their answer: lines and prompts on stderr, answers from
// stdin (a terminal, or a pipe when a script answers), everything shown stripped of control
// sequences first (it may have come from a server).

import { isTerminal } from "../io/runtime.ts";
import { ownStderr } from "../io/stderr.ts";
import { stripControl } from "../io/text.ts";

export type AskStyle = "yellow" | "dim" | "red" | "green";

export interface Asker {
  /** One line for the person (never on stdout). */
  print(line: string, style?: AskStyle): void;
  /** A yes/no question (null: the input ended unanswered); absent where nobody can answer (a proxy a client started, the daemon). */
  confirm?(question: string, signal?: AbortSignal): Promise<boolean | null>;
  /** One line typed after `prompt` (without an echo when hidden), or null at end of input or on abort; absent where nobody can answer. */
  ask?(prompt: string, options?: { hidden?: boolean; signal?: AbortSignal }): Promise<string | null>;
}

/** Whether a person is there to answer: stdin and stderr both terminals. */
export function atTerminal(): boolean {
  return isTerminal(0) && isTerminal(2);
}

/** The person at this terminal (no colours: stderr may be a log). */
export function terminalAsker(): Required<Asker> {
  return {
    print: printLine,
    ask: askLine,
    confirm: async (question, signal) => {
      const answer = await askLine(`${question} [y/N] `, { signal });
      return answer === null && !signal?.aborted ? null : /^y(es)?$/i.test((answer ?? "").trim());
    },
  };
}

/** Lines on stderr, and nobody to answer. */
export function printingAsker(): Asker {
  return { print: printLine };
}

function printLine(line: string): void {
  ownStderr().write(`${stripControl(line)}\n`);
}

/** One line read from stdin; a hidden one is echoed to nothing (the terminal's own echo turned off), the prompt to stderr. */
async function askLine(prompt: string, options: { hidden?: boolean; signal?: AbortSignal } = {}): Promise<string | null> {
  const [{ createInterface }, { Writable }] = await Promise.all([import("node:readline"), import("node:stream")]);
  const output = options.hidden ? new Writable({ write: (_chunk, _encoding, done) => done() }) : process.stderr;
  const rl = createInterface({ input: process.stdin, output, terminal: Boolean(process.stdin.isTTY) });
  if (options.hidden) process.stderr.write(stripControl(prompt));
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once("close", () => resolve(null));
      options.signal?.addEventListener("abort", () => resolve(null), { once: true });
      if (options.hidden) rl.once("line", resolve);
      else rl.question(stripControl(prompt), resolve);
    });
  } finally {
    rl.close();
    if (options.hidden) process.stderr.write("\n");
  }
}
