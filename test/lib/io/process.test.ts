// What /proc tells about another process (lib/io/process.ts): whether it runs, and when it started.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive, processStartTime } from "../../../lib/io/process.ts";
import { pollUntil } from "../../../lib/io/reading.ts";
import { readUntil, removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

/** Above Linux's PID_MAX_LIMIT (2^22): no process can have it. */
const NO_SUCH_PID = 2 ** 22 + 1;
const hasProc = processStartTime(process.pid) !== undefined;

/** The state letter of a process as the kernel gives it (field 3 of /proc/<pid>/stat). */
function kernelState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2);
  } catch {
    return undefined;
  }
}

describe("processAlive", () => {
  test("this process is alive", () => {
    expect(processAlive(process.pid)).toBe(true);
  });

  test("a pid no process can have is not alive, and has no start time", () => {
    expect(processAlive(NO_SUCH_PID)).toBe(false);
    expect(processStartTime(NO_SUCH_PID)).toBeUndefined();
  });

  test("pid 1 is alive, whether or not it is ours to signal (EPERM counts as alive)", () => {
    expect(processAlive(1)).toBe(true);
  });

  test("a child is alive while it runs and not once it has exited and been reaped", async () => {
    const child = Bun.spawn(["sleep", "1000"]);
    expect(processAlive(child.pid)).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
    expect(processAlive(child.pid)).toBe(false);
  });

  test.skipIf(!hasProc)(
    "a zombie (exited, its parent never reaping it) is not alive, though kill(0) still finds it",
    async () => {
      // sh starts a subshell that waits on a FIFO, then becomes cat, which never waits for a child.
      const fifo = join(tempDir(), "release");
      expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
      const parent = Bun.spawn(["sh", "-c", '(read x < "$0") & echo $!; exec cat', fifo], { stdin: "pipe", stdout: "pipe" });
      try {
        const reader = parent.stdout.getReader();
        const pid = Number((await readUntil(reader, (text) => text.includes("\n"))).trim());
        // cat echoing a line back: sh has become cat, and nobody will reap the subshell now.
        parent.stdin.write("echo\n");
        parent.stdin.flush();
        await readUntil(reader, (text) => text.includes("echo\n"));
        writeFileSync(fifo, "\n");
        // Nothing announces that a process became a zombie: the kernel's own word is polled for.
        expect(await pollUntil(() => kernelState(pid) === "Z", { everyMs: 5, withinMs: 10_000 })).toBe(true);
        expect(() => process.kill(pid, 0)).not.toThrow();
        expect(processAlive(pid)).toBe(false);
      } finally {
        parent.kill("SIGKILL");
        await parent.exited;
      }
    },
    20_000,
  );

  test.skipIf(!hasProc)('a process whose name holds ") Z " is read by its real state, not by its name', async () => {
    // The name in /proc/<pid>/stat is in parentheses and may contain them: only the last ")" ends it.
    const link = join(tempDir(), "x) Z 1 (y");
    symlinkSync("/bin/sleep", link);
    const child = Bun.spawn([link, "1000"]);
    try {
      // Until the exec, the child still carries our name.
      const named = () => readFileSync(`/proc/${child.pid}/stat`, "utf8").includes("(x) Z 1 (y) ");
      expect(await pollUntil(named, { everyMs: 5, withinMs: 10_000 })).toBe(true);
      expect(processAlive(child.pid)).toBe(true);
      const started = processStartTime(child.pid);
      expect(started).toMatch(/^\d+$/);
      expect(Number(started)).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)));
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }
  });
});

describe.skipIf(!hasProc)("processStartTime", () => {
  test("is clock ticks since boot, the same every time it is asked about the same process", () => {
    const started = processStartTime(process.pid);
    expect(started).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(started);
  });

  test("a child started after this process started no earlier than it", async () => {
    const child = Bun.spawn(["sleep", "1000"]);
    try {
      expect(Number(processStartTime(child.pid))).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)));
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }
  });
});
