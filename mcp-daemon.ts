#!/usr/bin/env bun
// mcp-daemon: keeps MCP sessions alive between command-line calls. It starts on demand (the first
// `mcp-inspect --stateful` call starts it), listens on a private Unix socket, keeps one server
// process per server definition, and ends sessions (and itself) when they sit idle.
import { type ArgsDef, defineCommand, runMain } from "citty";
import { LOGS_ARGS, RUN_ARGS, STATUS_ARGS } from "./daemon/flags.ts";
import { prepareArgv, unknownCommandProblem, valueFlags } from "./lib/cli/argv.ts";
import { fail } from "./lib/cli/fail.ts";
import { showHelp, withExamples } from "./lib/cli/help.ts";
import { normalJitAfterStartUp } from "./lib/io/runtime.ts";
import pkg from "./package.json" with { type: "json" };

const commands = () => import("./daemon/commands.ts");

const SUBCOMMANDS = {
  start: defineCommand({
    meta: { name: "start", description: "Start the daemon in the background (a no-op when it already runs)." },
    args: RUN_ARGS,
    run: async ({ args }) => (await commands()).startInBackground(args),
  }),
  stop: defineCommand({
    meta: { name: "stop", description: "Stop the daemon and every server it keeps." },
    run: async () => (await commands()).stop(),
  }),
  status: defineCommand({
    meta: {
      name: "status",
      description: "Show the daemon and its sessions: server, pid, uptime, calls, last use, state, recent notifications.",
    },
    args: STATUS_ARGS,
    run: async ({ args }) => (await commands()).status(args),
  }),
  restart: defineCommand({
    meta: { name: "restart", description: "Stop the daemon (and its servers), then start a fresh one." },
    args: RUN_ARGS,
    run: async ({ args }) => (await commands()).restart(args),
  }),
  logs: defineCommand({
    meta: { name: "logs", description: "Print the end of the daemon's log file." },
    args: LOGS_ARGS,
    run: async ({ args }) => (await commands()).logs(args),
  }),
  run: defineCommand({
    meta: { name: "run", description: "Run the daemon in the foreground (what `start` runs in the background); logs go to stderr too." },
    args: RUN_ARGS,
    run: async ({ args }) => (await commands()).runForeground(args, pkg.version),
  }),
};

export const main = defineCommand({
  meta: {
    name: "mcp-daemon",
    version: pkg.version,
    description:
      "Keeps stateful MCP sessions alive across command-line calls, on a private Unix socket. It starts by itself on the first " +
      "`mcp-inspect --stateful` call; you rarely need these commands. `status` exits 9 when no daemon runs.",
  },
  subCommands: SUBCOMMANDS,
});
withExamples(main, [
  "mcp-inspect --stateful call-tool begin_session -- node server.js   # starts it",
  "mcp-daemon status",
  "mcp-daemon logs --lines 50",
  "mcp-daemon stop",
  "mcp-daemon run --idle-timeout 60000 --log-level debug              # in the foreground, for debugging",
]);

/** Runs mcp-daemon with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  const names = Object.keys(SUBCOMMANDS);
  const defs: ArgsDef[] = [RUN_ARGS, STATUS_ARGS, LOGS_ARGS];
  const { rawArgs } = prepareArgv(argv, { commands: names, defs });
  const badCommand = unknownCommandProblem(rawArgs, names, "mcp-daemon", valueFlags(defs));
  if (badCommand) {
    fail(badCommand);
    return;
  }
  await runMain(main, { rawArgs, showUsage: showHelp });
}

if (import.meta.main) {
  normalJitAfterStartUp();
  await run(process.argv.slice(2));
}
