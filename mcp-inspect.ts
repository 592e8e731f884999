#!/usr/bin/env bun
// mcp-inspect: an MCP client on the command line. Each command connects to one server (a stdio
// command after `--`, a URL, or a config entry), does one thing, prints one result, and exits
// with a code that says what happened. `mcp` turns it into an MCP server of inspection tools.
//
// Start-up: for a one-shot command against a plain stdio server, inspect/early-server.ts spawns the
// server first (or attaches to its mcp-daemon session) and only then is the rest loaded, so that
// the two start-ups overlap; such a command then runs from early-server's reading of argv, without
// citty (inspect/early-call.ts). That is why modules are imported with `await import()` where they
// are used and each command loads only when it runs; a static import is loaded before the first line
// of this file runs. New imports belong with them.
import type { CommandDef } from "citty";
import { discardEarly, earlyCall, earlyInterruption, startEarly } from "./inspect/early-server.ts";
import { ONE_SHOT, type OneShotName } from "./inspect/flags.ts";
import type { Invocation } from "./lib/cli/argv.ts";
import pkg from "./package.json" with { type: "json" };

// The server first: a plain stdio server of a one-shot command is spawned before the rest loads.
if (import.meta.main) {
  await startEarly(process.argv.slice(2));
  (await import("./lib/io/runtime.ts")).normalJitAfterStartUp();
}
/** What the command line needs beyond early-server, loaded only when argv goes through citty. */
const loadCli = async () => ({
  ...(await import("citty")),
  ...(await import("./lib/cli/argv.ts")),
  ...(await import("./lib/cli/args.ts")),
  ...(await import("./lib/cli/help.ts")),
  ...(await import("./lib/cli/exit-codes.ts")),
  ...(await import("./inspect/command-flags.ts")),
});
type Cli = Awaited<ReturnType<typeof loadCli>>;

/** Each command, loaded only when it runs (or when --help lists them all), reading this run's argv. */
type LazyCommand = (invocation: Invocation) => () => Promise<CommandDef<any>>;
const oneShot =
  (name: OneShotName): LazyCommand =>
  (invocation) =>
  async () =>
    (await import("./inspect/commands/one-shot.ts")).oneShotCommand(name, invocation, pkg.version);

/** Built only when argv goes through citty: the early path runs no more of this file than it must. */
const commandTable = (): Record<string, LazyCommand> => ({
  ...Object.fromEntries(Object.keys(ONE_SHOT).map((name) => [name, oneShot(name as OneShotName)])),
  mcp: (invocation) => async () => (await import("./inspect/commands/mcp.ts")).mcpCommand(invocation, pkg.version),
  auth: (invocation) => async () => (await import("./inspect/commands/auth.ts")).authCommand(invocation),
  grep: (invocation) => async () => (await import("./inspect/commands/search.ts")).grepCommand(invocation, pkg.version),
  skill: (invocation) => async () => (await import("./inspect/commands/search.ts")).skillCommand(invocation, pkg.version),
  servers: (invocation) => async () => (await import("./inspect/commands/servers.ts")).serversCommand(invocation),
  // The server developer's kit.
  test: (invocation) => async () => (await import("./inspect/commands/test.ts")).testCommand(invocation, pkg.version),
  snapshot: (invocation) => async () => (await import("./inspect/commands/contract.ts")).snapshotCommand(invocation, pkg.version),
  mock: (invocation) => async () => (await import("./inspect/commands/mock.ts")).mockCommand(invocation),
  diff: (invocation) => async () => (await import("./inspect/commands/contract.ts")).diffCommand(invocation, pkg.version),
  // Listed in --help; `config` is run before citty sees argv (its flags pass on into the entry it prints).
  config: () => async () => {
    const { defineCommand, CONFIG_ARGS } = await loadCli();
    return defineCommand({
      meta: {
        name: "config",
        description:
          "Print (or --write) the entry a client needs to run `mcp-inspect mcp` against a server: config --client <name> [--write] " +
          "-- <server command>",
      },
      args: CONFIG_ARGS,
    });
  },
});

/** The command tree of one run: every subcommand reads the argv it was prepared from. */
function mainCommand({ defineCommand, withExamples }: Cli, invocation: Invocation, commands: Record<string, LazyCommand>): CommandDef<any> {
  const main = defineCommand({
    meta: {
      name: "mcp-inspect",
      version: pkg.version,
      description:
        "Inspect any MCP server from the command line: list and call tools, read resources, get prompts. Options go before or after " +
        "the command; the server comes after `--`, or as --server, --url or --config. Off a terminal the answer is one JSON envelope " +
        "on stdout, with a stable exit code.",
    },
    subCommands: Object.fromEntries(Object.entries(commands).map(([name, lazy]) => [name, lazy(invocation)])),
  });
  return withExamples(main, [
    "mcp-inspect list-tools -- node server.js",
    "mcp-inspect call-tool add a=2 b=3 -- node server.js",
    "mcp-inspect --stateful call-tool begin_session -- node server.js",
    'mcp-inspect call-tool search --params @query.json --url https://example.com/mcp -H "Authorization: Bearer $TOKEN"',
    'mcp-inspect list-prompts --server "npx -y @modelcontextprotocol/server-everything"',
    "mcp-inspect get-prompt greet name=alice --config ~/.cursor/mcp.json --server mine",
    "mcp-inspect config --client claude-desktop -- node server.js",
    "mcp-inspect test --junit checks.xml -- node server.js",
    "mcp-inspect diff mcp-contract.json --format markdown -- node server.js",
    "mcp-inspect mock session.jsonl",
  ]);
}

/** Runs mcp-inspect with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  const interrupted = earlyInterruption();
  if (interrupted) {
    // A signal while this file loaded, with a server started early (and now stopped): said as a signal during a command is.
    const by = interrupted.signal === "SIGINT" ? "Ctrl-C" : interrupted.signal;
    await endBeforeCommand(`interrupted by ${by} before the server was asked anything`, interrupted.code, interrupted.command);
    await discardEarly();
    return;
  }
  try {
    const call = earlyCall();
    if (call) await (await import("./inspect/early-call.ts")).runEarlyCall(call, pkg.version);
    else await runCommand(argv);
  } finally {
    // A server started early that no session took (a usage error, --help after all) goes now.
    await discardEarly();
    const late = earlyInterruption();
    if (late) process.exitCode = late.code;
  }
}

/** The command argv names: `config` before citty, an unknown one as a usage error, the rest through citty. */
async function runCommand(argv: string[]): Promise<void> {
  // Answers go out through writeStdout, which takes a reader that hangs up (`| head`) quietly; a command that
  // streams to process.stdout asks for quietStdout() (lib/io/runtime.ts).
  const cli = await loadCli();
  const { prepareArgv, separateServerCommand, unknownCommandProblem, valueFlags, COMMAND_ARGS, REPEATABLE_TARGET_FLAGS, EXIT } = cli;
  const table = commandTable();
  const commands = Object.keys(table);
  const defs = Object.values(COMMAND_ARGS);
  const separated = separateServerCommand(argv, "mcp", valueFlags(defs));
  const invocation = prepareArgv(separated, { commands, defs, repeatable: REPEATABLE_TARGET_FLAGS });
  const own = invocation.rawArgs;
  if (own[0] === "config") {
    const { runConfigCommand } = await import("./lib/cli/config-command.ts");
    process.exitCode = await runConfigCommand("mcp-inspect", own.slice(1), invocation.command, {
      leadingArgs: ["mcp"],
      repeated: invocation.repeated,
      example: "-- node server.js",
      entryScript: new URL(import.meta.url).pathname,
    });
    return;
  }
  const badCommand = unknownCommandProblem(own, commands, "mcp-inspect", valueFlags(defs));
  if (badCommand) return endBeforeCommand(badCommand, EXIT.usage, own.find((arg) => !arg.startsWith("-")) ?? "");
  await cli.runMain(mainCommand(cli, invocation, table), { rawArgs: own, showUsage: cli.showHelp });
}

async function endBeforeCommand(message: string, exitCode: number, command: string): Promise<void> {
  const [{ endBeforeCommand: end }, { CommandError }] = await Promise.all([import("./inspect/report.ts"), import("./inspect/output.ts")]);
  end(new CommandError(exitCode, message), command);
}

if (import.meta.main) await run(process.argv.slice(2));
