#!/usr/bin/env bun
// mcp-proxy: sits between an MCP client and your server, forwards every message untouched, and
// restarts the server (on the restart_server tool, a watched file, or a crash) without the client
// ever noticing more than a list_changed notification. stdout carries protocol bytes only.
import { type CommandDef, defineCommand, runMain } from "citty";
import { REPEATABLE_TARGET_FLAGS } from "./lib/cli/args.ts";
import { type Invocation, splitAtDoubleDash, splitServerCommand, takeRepeatable, valueFlags } from "./lib/cli/argv.ts";
import { fail } from "./lib/cli/fail.ts";
import { showHelp, withExamples } from "./lib/cli/help.ts";
import { normalJitAfterStartUp } from "./lib/io/runtime.ts";
import pkg from "./package.json" with { type: "json" };
import { ARGS, REPEATABLE_PROXY_FLAGS, readSettings } from "./proxy/settings.ts";

/** After the proxy is done, how long a lingering handle may keep the process alive. */
const EXIT_GRACE_MS = 200;

/** The command of one run, reading the argv it was prepared from. */
function mainCommand(invocation: Invocation): CommandDef<typeof ARGS> {
  const main = defineCommand({
    meta: {
      name: "mcp-proxy",
      version: pkg.version,
      description:
        "A transparent, hot-reloading proxy between an MCP client and your server. Every message passes as the bytes that came; the " +
        "server gains a restart_server tool; the client's session survives every restart. The server comes after `--`, or as " +
        "--server, --url or --config. `mcp-proxy config --client <name> ... -- <server>` prints (or --writes) the entry a client " +
        "needs.",
    },
    args: ARGS,
    async run({ args }) {
      const settings = await readSettings(args as Record<string, unknown>, invocation);
      if (!settings.ok) {
        fail(settings.error);
        return;
      }
      const { runProxy } = await import("./proxy/run.ts");
      process.exitCode = await runProxy(settings.value);
      // Whatever handle is still open (a keep-alive socket) must not hold the exit up.
      setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
    },
  });
  return withExamples(main, [
    "mcp-proxy -- node server.js",
    'mcp-proxy --watch src --build "npm run build" -- node dist/server.js',
    'mcp-proxy --watch "src/**/*.py" -- uv run server.py',
    'mcp-proxy --url https://example.com/mcp -H "Authorization: Bearer $TOKEN"',
    'mcp-proxy --server "npx -y @modelcontextprotocol/server-everything"',
    "mcp-proxy config --client claude-desktop --watch src -- node server.js",
    "mcp-proxy --record session.jsonl -- node server.js   (then: mcp-inspect mock session.jsonl)",
    "mcp-proxy serve --port 3000 -- node server.js   (the server on Streamable HTTP; mcp-proxy serve --help)",
    `in a client config: { "command": "mcp-proxy", "args": ["--watch", "src", "--", "node", "server.js"] }`,
  ]);
}

/** Runs mcp-proxy with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  if (argv[0] === "config") {
    const { own, command } = splitAtDoubleDash(argv.slice(1));
    const { runConfigCommand } = await import("./lib/cli/config-command.ts");
    process.exitCode = await runConfigCommand("mcp-proxy", own, command, {
      example: "--watch src -- node server.js",
      entryScript: new URL(import.meta.url).pathname,
    });
    return;
  }
  // `serve` is ours; a server whose command is `serve` runs as `mcp-proxy -- serve`.
  const serving = argv[0] === "serve";
  // `bun mcp-proxy.ts -- cmd`: bun takes that first `--` for its own, so the first word that is not ours starts the command.
  const { own, command } = serving
    ? splitServerCommand(argv.slice(1), valueFlags([(await import("./proxy/serve/settings.ts")).SERVE_ARGS]))
    : splitServerCommand(argv, valueFlags([ARGS]));
  const taken = takeRepeatable(own, { ...REPEATABLE_TARGET_FLAGS, ...REPEATABLE_PROXY_FLAGS });
  const invocation: Invocation = {
    rawArgs: taken.rest,
    command,
    repeated: taken.values,
    ...(taken.missing ? { missing: taken.missing } : {}),
  };
  if (serving) {
    const { serveCommand } = await import("./proxy/serve/command.ts");
    await runMain(serveCommand(invocation, pkg.version), { rawArgs: invocation.rawArgs, showUsage: showHelp });
    return;
  }
  await runMain(mainCommand(invocation), { rawArgs: invocation.rawArgs, showUsage: showHelp });
}

if (import.meta.main) {
  normalJitAfterStartUp();
  await run(process.argv.slice(2));
}
