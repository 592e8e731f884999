// mcp-host against piped input it must not hold: a line over the 1 MB input cap is skipped with one
// line on stderr and the chat goes on; a line without end (/dev/zero) leaves memory bounded, and a
// signal still ends the host.
import { expect, test } from "bun:test";
import { openSync, readFileSync } from "node:fs";
import { MAX_INPUT_LINE_BYTES } from "../../lib/wire/limits.ts";
import { NO_VENDOR_KEYS, PeakRss, runTool, TEST_GUARD_MS, toolCommand, until, WAIT_GUARD_MS } from "../support/helpers.ts";

/** What the host reads before the signal: far past the cap, so holding it would show. */
const READ_BEFORE_SIGNAL_BYTES = 256 * 1024 * 1024;
/** The runtime, the chat and the reference server's answers; holding the line would be past it. */
const MEMORY_BOUND_MB = 200;

const bytesRead = (pid: number) => Number(readFileSync(`/proc/${pid}/io`, "utf8").match(/^rchar: (\d+)$/m)?.[1] ?? 0);

test(
  "a piped line over the 1 MB cap is skipped with one line on stderr, and the next line is answered",
  async () => {
    const long = "a".repeat(MAX_INPUT_LINE_BYTES + 1);
    const { code, stdout, stderr } = await runTool("mcp-host.ts", ["--provider", "scripted"], {
      stdin: `hello\n${long}\nwhat tools\n`,
      env: NO_VENDOR_KEYS,
    });
    expect(code).toBe(0);
    expect(stderr).toContain(
      `mcp-host: skipped an input line of ${MAX_INPUT_LINE_BYTES + 1} bytes (over the ${MAX_INPUT_LINE_BYTES}-byte limit)\n`,
    );
    expect(stdout).toContain('You said: "what tools"');
    expect(stdout).not.toContain("aaaa");
  },
  TEST_GUARD_MS,
);

test(
  "a piped line without end: memory stays bounded while it is read, and SIGINT ends the host (130)",
  async () => {
    const host = Bun.spawn([...toolCommand("mcp-host.ts"), "--provider", "scripted"], {
      stdin: openSync("/dev/zero", "r"),
      stdout: "ignore",
      stderr: "ignore",
      env: { ...process.env, ...NO_VENDOR_KEYS },
    });
    const rss = new PeakRss(host.pid);
    try {
      await until(() => bytesRead(host.pid) > READ_BEFORE_SIGNAL_BYTES, "the host to read 256 MB of the line");
      host.kill("SIGINT");
      // A hang guard, not a speed bound: one that ignored the signal fails here, not at bun's timeout.
      expect(await Promise.race([host.exited, Bun.sleep(WAIT_GUARD_MS).then(() => "still running")])).toBe(130);
      expect(rss.stop()).toBeLessThan(MEMORY_BOUND_MB);
    } finally {
      // A host that ignored the signal must not go on reading /dev/zero after the test.
      host.kill("SIGKILL");
    }
  },
  TEST_GUARD_MS,
);
