// Which argv the early path takes (spawning its server before the rest of mcp-inspect loads) and how
// it reads each flag: looked up in the declarations of inspect/flags.ts, a spelling at a time. Each
// case runs in a process of its own (the early path starts once per process) with `true` as the
// server, and prints what earlyCall() read, or null for an argv left to citty.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT } from "../../support/helpers.ts";

const PROBE = `
const early = await import(${JSON.stringify(join(ROOT, "inspect/early-server.ts"))});
await early.startEarly(JSON.parse(process.argv[1]));
const call = early.earlyCall();
await early.discardEarly();
const reading = call && { command: call.command, positionals: call.positionals, flags: call.flags, env: call.target.env };
console.log(JSON.stringify(reading ?? null));
`;

function earlyReading(argv: string[]): unknown {
  const run = Bun.spawnSync([BUN, "-e", PROBE, JSON.stringify([...argv, "--", "true"])], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString());
}

test("the early path reads each flag as its declaration says: switches, values, pairs, aliases and --no-", () => {
  expect(earlyReading(["--json", "--timeout", "5000", "list-tools", "-v"])).toEqual({
    command: "list-tools",
    positionals: [],
    flags: { json: true, timeout: "5000", verbose: true },
    env: {},
  });
  expect(earlyReading(["call-tool", "echo", "message=hi", "--no-validate", "--env", "A=1", "--env=B=2", "--format=text"])).toEqual({
    command: "call-tool",
    positionals: ["echo", "message=hi"],
    flags: { validate: false, env: "B=2", format: "text" },
    env: { A: "1", B: "2" },
  });
});

test("an argv the early path cannot tell is right goes to citty: nothing is read early", () => {
  for (const argv of [
    ["list-tools", "--v"], // an alias of one letter is spelled -v only
    ["list-tools", "--no-validate"], // call-tool's flag, not list-tools'
    ["list-tools", "--no-json"], // --json is off by default: no --no- form
    ["list-tools", "--constructor"], // not a declaration, whatever the prototype has
    ["list-tools", "--__proto__"],
    ["list-tools", "--toString=1"],
    ["list-tools", "--log-level", "warn"], // a flag without `early`
    ["list-tools", "--timeout", "soon"], // a value its kind refuses
    ["list-tools", "--json", "--text"],
    ["list-tools", "--verbose=yes"], // a switch given a value
    ["list-tools", "extra"], // list-tools takes no positionals
    ["call-tool"], // call-tool needs a tool name
    ["complete", "--prompt", "p"], // a command the early path never takes
    ["nope"],
    ["-x", "list-tools"],
  ])
    expect({ argv, reading: earlyReading(argv) }).toEqual({ argv, reading: null });
});
