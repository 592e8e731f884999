// A one-shot call whose argv early-server reads whole runs without citty (inspect/early-call.ts);
// the same call with one flag the early path does not take (--log-level) goes through citty. Both
// must print the same envelope (or text) and exit with the same code, success or failure.
import { afterAll, expect, test } from "bun:test";
import { daemonDir, inspect, REFERENCE_CMD, stopDaemons, TEST_GUARD_MS } from "../../support/helpers.ts";

afterAll(stopDaemons);

/** The run's output with the fields that differ from run to run (the clock) blanked. */
function comparable(run: { code: number; stdout: string; stderr: string }) {
  return {
    code: run.code,
    stdout: run.stdout.replace(/"timestamp":"[^"]*"/g, '"timestamp":""').replace(/"durationMs":\d+/g, '"durationMs":0'),
    stderr: run.stderr,
  };
}

async function bothWays(args: string[], env: Record<string, string>) {
  const [command, ...rest] = args;
  const early = await inspect([command!, ...rest, "--", ...REFERENCE_CMD], { env });
  const generic = await inspect([command!, ...rest, "--log-level", "warn", "--", ...REFERENCE_CMD], { env });
  return { early: comparable(early), generic: comparable(generic) };
}

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
        const env = { MCPKIT_DAEMON_DIR: stateful ? sharedDaemon() : "/nonexistent" };
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
