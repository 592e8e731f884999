// A one-shot call whose argv early-server reads whole runs without citty (inspect/early-call.ts);
// the same call with one flag the early path does not take (--log-level) goes through citty. Both
// must print the same envelope (or text) and exit with the same code, success or failure.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  alive,
  BUN,
  daemonDir,
  FAULTY,
  inspect,
  REFERENCE_CMD,
  runTool,
  stopDaemons,
  TEST_GUARD_MS,
  tempDir,
  toolCommand,
  until,
} from "../../support/helpers.ts";

afterAll(stopDaemons);

/** The run's output with the fields that differ from run to run (the clock) blanked. */
function comparable(run: { code: number; stdout: string; stderr: string }) {
  return {
    code: run.code,
    stdout: run.stdout.replace(/"timestamp":"[^"]*"/g, '"timestamp":""').replace(/"durationMs":\d+/g, '"durationMs":0'),
    stderr: run.stderr,
  };
}

/** `--log-level warn` is a flag the early path does not take: the same call then goes through citty. */
const THROUGH_CITTY = ["--log-level", "warn"];

async function bothWays(args: string[], env: Record<string, string>, server = REFERENCE_CMD) {
  const early = await inspect([...args, "--", ...server], { env });
  const generic = await inspect([...args, ...THROUGH_CITTY, "--", ...server], { env });
  return { early: comparable(early), generic: comparable(generic) };
}

const NO_DAEMON = { MCPKIT_DAEMON_DIR: "/nonexistent" };

const CASES: [string, string[], number][] = [
  ["a tool's answer", ["call-tool", "echo", "message=same"], 0],
  ["a tool error (exit 6, with the data)", ["call-tool", "fail"], 6],
  ["an unknown tool (exit 1)", ["call-tool", "nope"], 1],
  ["arguments the schema refuses (exit 1)", ["call-tool", "add", "a=x", "b=2"], 1],
  ["a list", ["list-tools"], 0],
  ["--text", ["call-tool", "echo", "message=same", "--text"], 0],
  ["--text and a tool error", ["call-tool", "fail", "--text"], 6],
  ["--no-validate (the tool refuses instead)", ["call-tool", "echo", "--no-validate"], 6],
];

for (const stateful of [true, false]) {
  for (const [what, args, code] of CASES) {
    test(
      `${stateful ? "--stateful" : "one-shot"}: ${what}, the same without citty as through it`,
      async () => {
        const env = stateful ? { MCPKIT_DAEMON_DIR: sharedDaemon() } : NO_DAEMON;
        const { early, generic } = await bothWays(stateful ? [...args, "--stateful"] : args, env);
        expect(early).toEqual(generic);
        expect(early.code).toBe(code);
      },
      TEST_GUARD_MS,
    );
  }
}

let daemon: string | undefined;
function sharedDaemon(): string {
  daemon ??= daemonDir();
  return daemon;
}

describe("when the server or the daemon fails, the same without citty as through it", () => {
  test(
    "a server command that does not exist: exit 2, the same envelope",
    async () => {
      const { early, generic } = await bothWays(["call-tool", "echo", "message=x"], NO_DAEMON, ["/nonexistent/mcp-server"]);
      expect(early).toEqual(generic);
      expect(early.code).toBe(2);
      expect(early.stdout).toContain("command not found: /nonexistent/mcp-server");
    },
    TEST_GUARD_MS,
  );

  test(
    "one-shot: a server that exits at once: exit 2, the same envelope with its stderr",
    async () => {
      const { early, generic } = await bothWays(["list-tools"], NO_DAEMON, [BUN, FAULTY, "exit-now"]);
      expect(early).toEqual(generic);
      expect(early.code).toBe(2);
      expect(JSON.parse(early.stdout).error.details.serverStderr).toContain("boom");
    },
    TEST_GUARD_MS,
  );

  test(
    "--stateful: a server that exits at once: exit 2 and the server's exit code, the same envelope (a new daemon each way)",
    async () => {
      const server = [BUN, FAULTY, "exit-now"];
      const call = ["list-tools", "--stateful"];
      const early = comparable(await inspect([...call, "--", ...server], { env: { MCPKIT_DAEMON_DIR: daemonDir() } }));
      const generic = comparable(await inspect([...call, ...THROUGH_CITTY, "--", ...server], { env: { MCPKIT_DAEMON_DIR: daemonDir() } }));
      expect(early).toEqual(generic);
      expect(early.code).toBe(2);
      // Never a JavaScript error from inside the daemon: the request sent with the handshake once met a server
      // that was already gone ("undefined is not an object").
      expect(JSON.parse(early.stdout).error.message).toMatch(/^mcp-daemon: [^:]+: the server exited with code 3$/);
    },
    TEST_GUARD_MS,
  );

  test(
    "--stateful after SIGKILL of the daemon, its socket left behind: a new daemon answers, either way",
    async () => {
      const dir = daemonDir();
      const env = { MCPKIT_DAEMON_DIR: dir };
      const killDaemon = async () => {
        const { pid } = JSON.parse((await runTool("mcp-daemon.ts", ["status", "--json"], { env })).stdout);
        process.kill(pid, "SIGKILL");
        await until(() => !alive(pid), "the daemon gone");
        expect(existsSync(join(dir, "daemon.sock"))).toBe(true);
      };
      const call = ["call-tool", "echo", "message=after", "--stateful"];
      expect((await inspect(["ping", "--stateful", "--", ...REFERENCE_CMD], { env })).code).toBe(0);
      await killDaemon();
      const early = comparable(await inspect([...call, "--", ...REFERENCE_CMD], { env }));
      await killDaemon();
      const generic = comparable(await inspect([...call, ...THROUGH_CITTY, "--", ...REFERENCE_CMD], { env }));
      expect(early).toEqual(generic);
      expect(early.code).toBe(0);
      expect(early.stdout).toContain('"text":"after"');
    },
    TEST_GUARD_MS,
  );

  for (const stateful of [false, true]) {
    test(
      `${stateful ? "--stateful" : "one-shot"}: SIGTERM while the call runs: exit 143 and a CANCELLED envelope, either way`,
      async () => {
        const env = { ...process.env, ...(stateful ? { MCPKIT_DAEMON_DIR: daemonDir() } : NO_DAEMON) };
        // The server's stdin, copied to a file on its way: the call is in flight once its line is there.
        const seen = join(tempDir("mcpkit-early-"), "stdin");
        const interrupted = async (extra: string[]) => {
          writeFileSync(seen, "");
          const server = ["/bin/sh", "-c", 'tee -a "$0" | "$@"', seen, ...REFERENCE_CMD];
          const args = ["call-tool", "slow", "steps=100", "delayMs=100", ...(stateful ? ["--stateful"] : []), ...extra];
          const child = Bun.spawn([...toolCommand("mcp-inspect.ts"), ...args, "--", ...server], { env, stdout: "pipe", stderr: "pipe" });
          await until(() => readFileSync(seen, "utf8").includes('"tools/call"'), "the call at the server");
          child.kill("SIGTERM");
          const [code, stdout, stderr] = await Promise.all([
            child.exited,
            new Response(child.stdout).text(),
            new Response(child.stderr).text(),
          ]);
          return comparable({ code, stdout, stderr });
        };
        const early = await interrupted([]);
        const generic = await interrupted(THROUGH_CITTY);
        expect(early).toEqual(generic);
        expect(early.code).toBe(143);
        expect(JSON.parse(early.stdout).error.code).toBe("CANCELLED");
      },
      TEST_GUARD_MS,
    );
  }
});
