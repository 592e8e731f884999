// The sign-in's words on a terminal: lines on stderr (stdout is the command's answer, or the
// protocol), a yes/no question, and a line pasted back (the redirect URL, with --no-browser),
// read from the terminal or from stdin.
import { ownStderr, stripControl } from "../log.ts";
import type { AuthUi } from "./oauth.ts";

/** Whether a person is there to answer: stdin and stderr both terminals. */
export function atTerminal(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

export function terminalAuthUi(): AuthUi {
  return {
    print: (line) => ownStderr().write(`${stripControl(line)}\n`),
    confirm: async (question) => /^y(es)?$/i.test((await ask(`${stripControl(question)} [y/N] `)).trim()),
    readLine: (prompt) => ask(prompt),
  };
}

/** Only lines on stderr: for tools with no one to ask (a proxy started by a client, the daemon). */
export function printingAuthUi(): AuthUi {
  return { print: (line) => ownStderr().write(`${stripControl(line)}\n`) };
}

async function ask(prompt: string): Promise<string> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
  try {
    return await new Promise<string>((resolve) => {
      rl.once("close", () => resolve(""));
      rl.question(prompt, resolve);
    });
  } finally {
    rl.close();
  }
}
