// Questions to the person at the terminal, for tools whose stdout is their answer: prompts and
// lines go to stderr, answers come from stdin (a terminal, or a pipe when a script answers).
// Everything shown is stripped of control sequences first: it may have come from a server.

import { ownStderr } from "../io/log.ts";
import { stripControl } from "../io/text.ts";
import type { FormIo } from "./elicitation-form.ts";

/** Whether a person is there to answer: stdin and stderr both terminals. */
export function atTerminal(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** One line typed after `prompt`, or null at end of input (or when `signal` aborts). */
export async function askLine(prompt: string, signal?: AbortSignal): Promise<string | null> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once("close", () => resolve(null));
      signal?.addEventListener("abort", () => resolve(null), { once: true });
      rl.question(stripControl(prompt), resolve);
    });
  } finally {
    rl.close();
  }
}

export function printLine(line: string): void {
  ownStderr().write(`${stripControl(line)}\n`);
}

export async function confirm(question: string, signal?: AbortSignal): Promise<boolean> {
  return /^y(es)?$/i.test(((await askLine(`${question} [y/N] `, signal)) ?? "").trim());
}

/** A form's view of this terminal (no colours: stderr may be a log). */
export function terminalFormIo(): FormIo {
  return { print: (line) => printLine(line), ask: (prompt, options) => askLine(prompt, options?.signal), confirm };
}
