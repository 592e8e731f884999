// Whom discovery asks, and how: the person at the terminal approves a project's server before it
// first runs, and types VS Code's `${input:...}` values (a password-like one without an echo).
// Lines go to stderr; stdout is the command's answer.

import { stripControl } from "../../io/text.ts";
import { terminalAuthUi } from "../../terminal/auth-ui.ts";

export interface DiscoveryAsk {
  print(line: string): void;
  confirm(question: string): Promise<boolean>;
  readLine(prompt: string, options?: { hidden?: boolean }): Promise<string>;
}

export function terminalAsk(): DiscoveryAsk {
  const ui = terminalAuthUi();
  return {
    print: (line) => ui.print(line),
    confirm: (question) => ui.confirm!(question),
    readLine: (prompt, options) => (options?.hidden ? readHidden(prompt) : ui.readLine!(prompt)),
  };
}

/** A line read without showing it: readline writes its echo to a sink, the prompt goes to stderr. */
async function readHidden(prompt: string): Promise<string> {
  const [{ createInterface }, { Writable }] = await Promise.all([import("node:readline"), import("node:stream")]);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  // The interface first: it turns the terminal's own echo off, so nothing typed after the prompt shows.
  const rl = createInterface({ input: process.stdin, output: sink, terminal: Boolean(process.stdin.isTTY) });
  process.stderr.write(stripControl(prompt));
  try {
    return await new Promise<string>((resolve) => {
      rl.once("close", () => resolve(""));
      rl.once("line", resolve);
    });
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}
