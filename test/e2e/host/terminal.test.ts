// The compiled mcp-host (the release binary, by its tool link), driven in a real pseudo-terminal (Bun's PTY): start with no key
// and no server (the keyless tour), type a message and read the answer, complete with Tab, Ctrl-C
// a running tool call, then Ctrl-C at the empty prompt to leave.
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { compiledTools } from "../../support/binary.ts";
import { NO_VENDOR_KEYS, ROOT, TEST_GUARD_MS } from "../../support/helpers.ts";
import { inTerminal } from "../../support/terminal.ts";

let binary = "";

beforeAll(async () => {
  binary = join(await compiledTools(), "mcp-host");
}, TEST_GUARD_MS);

test(
  "the compiled host in a terminal: chat, Tab completion, Ctrl-C cancels a tool call and a question, Ctrl-C at an empty prompt " +
    "exits 130",
  async () => {
    const term = inTerminal([binary], {
      cwd: ROOT,
      env: { ...process.env, ...NO_VENDOR_KEYS, NO_COLOR: "1", TERM: "xterm-256color" },
      cols: 160,
    });
    const { see } = term;
    try {
      await see(`connected to "mcpkit-reference" as reference (2026-07-28, 18 tools`);
      await see("you> ");
      term.type("call add a=20 b=22\r");
      await see("mcp__reference__add returned: 42");
      await see("you> ");

      // Tab asks the server for prompt argument values (completion/complete).
      term.type("/reference:greet name=a\t");
      await see("/reference:greet name=alice");
      term.type("\r");
      await see("[user] Hello, alice!");
      await see("you> ");

      term.type("slow steps=300 delayMs=50\r");
      await see("reference/slow 2/300");
      term.type("\u0003");
      await see("reference/slow: cancelled");
      await see("you> ");
      // The server's own stderr says it stopped early (it may arrive after the prompt).
      await term.shows("[reference] slow: cancelled after");

      // Ctrl-C at a server's question (sampling approval) cancels the turn it belongs to.
      term.type("sample\r");
      await see("Allow reference to sample scripted/scripted? [y/N]");
      term.type("\u0003");
      await see("reference/sample: cancelled");
      await see("you> ");
      term.type("call add a=1 b=1\r");
      await see("mcp__reference__add returned: 2");
      await see("you> ");

      // Ctrl-C at the empty prompt leaves, as a signal would: 130.
      term.type("\u0003");
      expect(await term.child.exited).toBe(130);
    } finally {
      term.close();
    }
  },
  TEST_GUARD_MS,
);
