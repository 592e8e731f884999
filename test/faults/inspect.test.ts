// mcp-inspect against input that never ends: --params from /dev/zero or from a stdin that never
// closes, and a config file that is /dev/zero. Caps, --timeout and signals all hold.
import { expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { openSync } from "node:fs";
import { join } from "node:path";
import { BUN, FAULTY, inspect, ROOT, TEST_GUARD_MS } from "../support/helpers.ts";

/** A 32 MB cap on what is read, plus the runtime itself. */
const READ_BOUND_MB = 160;

test(
  "--params @/dev/zero and --params - </dev/zero: over the 32 MB limit, a usage error, a bounded memory",
  async () => {
    const fromFile = await inspect(["call-tool", "echo", "--params", "@/dev/zero", "--", BUN, FAULTY], { watchRss: true });
    expect(fromFile.code).toBe(1);
    expect(fromFile.json.error.message).toContain("over the 33554432-byte limit");
    expect(fromFile.peakRssMb!).toBeLessThan(READ_BOUND_MB);
    const fromStdin = await inspect(["call-tool", "echo", "--params", "-", "--", BUN, FAULTY], {
      stdin: openSync("/dev/zero", "r"),
      watchRss: true,
    });
    expect(fromStdin.code).toBe(1);
    expect(fromStdin.json.error.message).toContain("over the 33554432-byte limit");
    expect(fromStdin.peakRssMb!).toBeLessThan(READ_BOUND_MB);
  },
  TEST_GUARD_MS,
);

test(
  "--params - from a stdin that never ends: --timeout covers the read (exit 4), and a signal ends it (143)",
  async () => {
    const args = [join(ROOT, "mcp-inspect.ts"), "call-tool", "echo", "--params", "-", "--", BUN, FAULTY];
    const timed = spawn(BUN, [...args.slice(0, 3), "--timeout", "300", ...args.slice(3)], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    timed.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timedCode = await new Promise<number | null>((resolve) => timed.once("exit", (code) => resolve(code)));
    expect(timedCode).toBe(4);
    expect(JSON.parse(out).error.message).toContain("reading the arguments took longer than --timeout (300 ms)");

    const signalled = spawn(BUN, args, { stdio: ["pipe", "pipe", "pipe"] });
    signalled.stdout.resume();
    signalled.stderr.resume();
    const exited = new Promise<number | null>((resolve) => signalled.once("exit", (code) => resolve(code)));
    // 4 MB of spaces cannot fit in a pipe: once they drain, mcp-inspect is reading (its handlers are set).
    if (!signalled.stdin.write(Buffer.alloc(4 * 1024 * 1024, 0x20))) await new Promise((resolve) => signalled.stdin.once("drain", resolve));
    signalled.kill("SIGTERM");
    expect(await exited).toBe(143);
  },
  TEST_GUARD_MS,
);

test(
  "--config /dev/zero: a one-line error over the limit, not all the memory there is",
  async () => {
    const run = await inspect(["list-tools", "--config", "/dev/zero", "--server", "x"], { watchRss: true });
    expect(run.code).toBe(1);
    expect(run.json.error.message).toContain("over the 33554432-byte limit");
    expect(run.peakRssMb!).toBeLessThan(READ_BOUND_MB);
  },
  TEST_GUARD_MS,
);
