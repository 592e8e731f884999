// The compiled mcp-host binary, driven in a real pseudo-terminal (Bun's PTY): start with no key
// and no server (the keyless tour), type a message and read the answer, complete with Tab, Ctrl-C
// a running tool call, then Ctrl-C at the empty prompt to leave.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../../../build.ts";
import { NO_VENDOR_KEYS, ROOT } from "../../support/helpers.ts";

const COMPILE_MS = 180_000;
let dir = "";
let binary = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-host-pty-"));
  binary = join(dir, "mcp-host");
  await compile("mcp-host.ts", binary);
}, COMPILE_MS);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the screen received, without escape sequences. */
function plain(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "").replace(/\r/g, "");
}

test("the compiled host in a terminal: chat, Tab completion, Ctrl-C cancels a tool call and a question, Ctrl-C at an empty prompt " +
  "exits 130", async () => {
  let screen = "";
  const env = { ...process.env, ...NO_VENDOR_KEYS, NO_COLOR: "1", TERM: "xterm-256color" };
  const child = Bun.spawn([binary], {
    cwd: ROOT,
    env,
    terminal: { cols: 160, rows: 50, data: (_terminal, data) => void (screen += new TextDecoder().decode(data)) },
  });
  const terminal = child.terminal!;
  let cursor = 0;
  const see = async (wanted: string, ms = 15_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const index = plain(screen).indexOf(wanted, cursor);
      if (index !== -1) {
        cursor = index + wanted.length;
        return;
      }
      if (Date.now() > deadline) throw new Error(`never saw ${JSON.stringify(wanted)}; screen:\n${plain(screen).slice(-3000)}`);
      await Bun.sleep(20);
    }
  };
  try {
    await see(`connected to "mcpkit-reference" as reference (2026-07-28, 18 tools`);
    await see("you> ");
    terminal.write("call add a=20 b=22\r");
    await see("mcp__reference__add returned: 42");
    await see("you> ");

    // Tab asks the server for prompt argument values (completion/complete).
    terminal.write("/reference:greet name=a\t");
    await see("/reference:greet name=alice");
    terminal.write("\r");
    await see("[user] Hello, alice!");
    await see("you> ");

    terminal.write("slow steps=300 delayMs=50\r");
    await see("reference/slow 2/300");
    terminal.write("\u0003");
    await see("reference/slow: cancelled");
    await see("you> ");
    // The server's own stderr says it stopped early (it may arrive after the prompt).
    const deadline = Date.now() + 10_000;
    while (!plain(screen).includes("[reference] slow: cancelled after") && Date.now() < deadline) await Bun.sleep(20);
    expect(plain(screen)).toContain("[reference] slow: cancelled after");

    // Ctrl-C at a server's question (sampling approval) cancels the turn it belongs to.
    terminal.write("sample\r");
    await see("Allow reference to sample scripted/scripted? [y/N]");
    terminal.write("\u0003");
    await see("reference/sample: cancelled");
    await see("you> ");
    terminal.write("call add a=1 b=1\r");
    await see("mcp__reference__add returned: 2");
    await see("you> ");

    // Ctrl-C at the empty prompt leaves, as a signal would: 130.
    terminal.write("\u0003");
    expect(await child.exited).toBe(130);
  } finally {
    child.kill("SIGKILL");
    terminal.close();
  }
}, 60_000);
