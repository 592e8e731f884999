// The sign-in's words on a terminal: lines on stderr (stdout is the command's answer, or the
// protocol), a yes/no question, and a line pasted back (the redirect URL, with --no-browser),
// read from the terminal or from stdin (lib/terminal/terminal-io.ts).

import type { AuthUi } from "../auth/oauth.ts";
import { askLine, confirm, printLine } from "./terminal-io.ts";

export { atTerminal } from "./terminal-io.ts";

export function terminalAuthUi(): AuthUi {
  return {
    print: printLine,
    confirm: (question) => confirm(question),
    readLine: async (prompt) => (await askLine(prompt)) ?? "",
  };
}

/** Only lines on stderr: for tools with no one to ask (a proxy started by a client, the daemon). */
export function printingAuthUi(): AuthUi {
  return { print: printLine };
}
