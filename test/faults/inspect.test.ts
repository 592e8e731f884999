// mcp-inspect against input that never ends: --params from /dev/zero or from a stdin that never
// closes, and a config file that is /dev/zero. Caps, --timeout and signals all hold.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { openSync } from "node:fs";
import { join } from "node:path";
import { MAX_MESSAGE_BYTES } from "../../lib/wire/limits.ts";
import { BUN, FAULTY, inspect, LinePeer, REFERENCE_CMD, TEST_GUARD_MS, toolCommand } from "../support/helpers.ts";

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
    const [command, ...start] = toolCommand("mcp-inspect.ts");
    const args = [...start, "call-tool", "echo", "--params", "-", "--", BUN, FAULTY];
    const at = start.length + 2;
    const timed = spawn(command!, [...args.slice(0, at), "--timeout", "300", ...args.slice(at)], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    timed.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timedCode = await new Promise<number | null>((resolve) => timed.once("exit", (code) => resolve(code)));
    expect(timedCode).toBe(4);
    expect(JSON.parse(out).error.message).toContain("reading the arguments took longer than --timeout (300 ms)");

    const signalled = spawn(command!, args, { stdio: ["pipe", "pipe", "pipe"] });
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

// Every character a server could use to rewrite or disguise the screen (lib/io/text.ts's list).
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

test(
  "a server whose name, version and instructions carry C1 controls, bidi overrides and zero-width characters: on a terminal " +
    "--text strips them and --json escapes them (the data intact); the ZWJ emoji survives both",
  async () => {
    const { inTerminal } = await import("../support/terminal.ts");
    for (const mode of ["--text", "--json"]) {
      const term = inTerminal([...toolCommand("mcp-inspect.ts"), "server-info", mode, "--", BUN, FAULTY, "hostile-text"], {
        env: { ...process.env, NO_COLOR: "1", TERM: "xterm" },
        cols: 1000,
      });
      try {
        await term.ended;
        expect(await term.child.exited).toBe(0);
        const screen = term.screen().replace(/\n/g, "");
        expect(screen).toContain(mode === "--text" ? "evil2Jredaehname" : "evil\\u009b2J\\u202eredaeh\\u202c\\u200bname");
        expect(screen.match(TERMINAL_UNSAFE) ?? []).toEqual([]);
        expect(screen).toContain("👨\u200d👩\u200d👧");
      } finally {
        term.close();
      }
    }
    // Piped, the JSON is the server's data exactly, escaped.
    const piped = await inspect(["server-info", "--json", "--", BUN, FAULTY, "hostile-text"]);
    expect(piped.stdout).toContain("evil\\u009b2J\\u202eredaeh");
    expect(piped.stdout.match(TERMINAL_UNSAFE) ?? []).toEqual([]);
    expect(piped.json.data.serverInfo.name).toBe("evil\u009b2J\u202eredaeh\u202c\u200bname");
  },
  TEST_GUARD_MS,
);

test(
  "skill --out into a folder whose SKILL.md is a link to a file elsewhere: refused in one line, the file elsewhere untouched; " +
    "a plain SKILL.md is replaced whole",
  async () => {
    const { mkdirSync, readFileSync, symlinkSync, writeFileSync, lstatSync } = await import("node:fs");
    const { tempDir, removeTempDirs } = await import("../support/helpers.ts");
    try {
      const dir = tempDir();
      const outside = join(dir, "precious.txt");
      writeFileSync(outside, "keep me\n");
      const planted = join(dir, "cloned-skills");
      mkdirSync(planted);
      symlinkSync(outside, join(planted, "SKILL.md"));
      const refused = await inspect(["skill", "--out", planted, "--", BUN, FAULTY]);
      expect(refused.code).toBe(1);
      expect(refused.json.error.message).toBe(
        `${join(planted, "SKILL.md")} is a symbolic link: not writing through it (remove it, or write elsewhere)`,
      );
      expect(readFileSync(outside, "utf8")).toBe("keep me\n");
      expect(lstatSync(join(planted, "SKILL.md")).isSymbolicLink()).toBe(true);

      const plain = join(dir, "mine");
      mkdirSync(plain);
      writeFileSync(join(plain, "SKILL.md"), "old");
      expect((await inspect(["skill", "--out", plain, "--", BUN, FAULTY])).code).toBe(0);
      // The skill is named after its folder, as the loaders want.
      expect(readFileSync(join(plain, "SKILL.md"), "utf8")).toStartWith("---\nname: mine\n");
    } finally {
      removeTempDirs();
    }
  },
  TEST_GUARD_MS,
);

describe("a hostile task server", () => {
  const task = (how: string, extra: string[] = []) =>
    inspect(["call-tool", "echo", "message=hi", ...extra, "--", BUN, FAULTY, "task-hostile", how], { watchRss: true });

  test(
    "a status that changes at every poll still ends at --timeout (exit 4, the task's id given)",
    async () => {
      const run = await task("chatty", ["--timeout", "1500"]);
      expect(run.code).toBe(4);
      expect(run.json.error.details.taskId).toBe("t-1");
      expect(run.stderr).toContain("task t-1: working (poll 2)");
    },
    TEST_GUARD_MS,
  );

  test(
    "a 20 MB status message is shown clipped to one line of 1,000 characters, and clipped in the error it ends with",
    async () => {
      const run = await task("huge");
      expect(run.code).toBe(6);
      expect(run.json.error.message).toStartWith("task t-1 was cancelled: xxx");
      expect(run.json.error.message.length).toBeLessThanOrEqual(1_100);
      expect(run.stdout.length).toBeLessThan(20_000);
      const lines = run.stderr.split("\n").filter((line) => line.startsWith("task t-1: working (x"));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(1_000);
      expect(run.stderr.length).toBeLessThan(20_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tasks/get answered about another task is refused: exit 5, naming both ids",
    async () => {
      const run = await task("other-id");
      expect(run.code).toBe(5);
      expect(run.json.error.message).toBe("asked about task t-1, the server answered about task not-yours");
      expect(run.json.error.details.taskId).toBe("t-1");
    },
    TEST_GUARD_MS,
  );
});

test(
  "mcp mode, a client line over the 32 MB cap in 64 KB pieces: refused under its id, the next request answered, exit 0 at end of input",
  async () => {
    // The SDK's own buffer stopped reading for good past its cap (the writer waited forever) and
    // spent a core on joining pieces until then.
    const inspector = new LinePeer([...toolCommand("mcp-inspect.ts"), "mcp", "--", ...REFERENCE_CMD]);
    const bytes = await inspector.sendLongRequest("big", MAX_MESSAGE_BYTES);
    await inspector.request(2, "ping");
    expect(inspector.messages.map((message) => message.id)).toEqual(["big", 2]);
    expect(inspector.responseTo("big").error).toEqual({
      code: -32600,
      message: `mcp-inspect: a ${bytes}-byte message is over the ${MAX_MESSAGE_BYTES}-byte limit`,
    });
    expect(await inspector.close()).toBe(0);
    expect(inspector.stderr).toContain(`dropped a ${bytes}-byte message from the client`);
  },
  TEST_GUARD_MS,
);
