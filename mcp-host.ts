#!/usr/bin/env bun
// mcp-host: a chat host with no tools of its own. Everything the model can do comes from the MCP
// servers it connects to, and every client-side feature is wired: tools, resources, subscriptions,
// prompts, completions, sampling, elicitation, roots, logging, progress, cancellation and OAuth.
// With no key in the environment it runs the keyless `scripted` provider; with no server given it
// starts the reference server built into this binary, so `mcp-host` alone is a working tour.
import { type CommandDef, defineCommand, runMain } from "citty";
import { PROVIDER_NAMES } from "./host/provider.ts";
import { SERVE_REFERENCE_ENV } from "./host/serve-reference.ts";
import { AUTH_ARGS, LOG_ARGS, PROTOCOL_VERSION_ARGS, REPEATABLE_TARGET_FLAGS, TARGET_ARGS } from "./lib/cli/args.ts";
import { type Invocation, prepareArgv } from "./lib/cli/argv.ts";
import { showHelp, withExamples } from "./lib/cli/help.ts";
import type { FlagDef } from "./lib/cli/values.ts";
import { normalJitAfterStartUp } from "./lib/io/runtime.ts";
import pkg from "./package.json" with { type: "json" };

const ARGS = {
  ...TARGET_ARGS,
  server: {
    ...TARGET_ARGS.server,
    description:
      "an entry of --config, else an http(s) URL (OAuth on demand), else a stdio command line; repeatable (with --config and no " +
      "--server: every entry)",
  },
  url: { ...TARGET_ARGS.url, description: "a Streamable HTTP server URL; repeatable" },
  config: { ...TARGET_ARGS.config, description: "an mcpServers config file (Claude Desktop, .mcp.json, Cursor, VS Code)" },
  stateful: { type: "boolean", description: "reach every server through mcp-daemon, which keeps it running after the chat" },
  provider: {
    type: "string",
    description: `${PROVIDER_NAMES.join(" | ")} (default: the first with a key in the environment, else scripted)`,
    valueHint: "name",
  },
  model: {
    type: "string",
    description: "pin a model id (default: the provider's newest mid-tier model, or <VENDOR>_MODEL)",
    valueHint: "id",
  },
  root: {
    type: "string",
    description: "a directory servers may see through roots/list; repeatable (default: the current directory)",
    valueHint: "dir",
  },
  legacy: { type: "boolean", description: "use the 2025 initialize handshake instead of probing for 2026-07-28" },
  ...PROTOCOL_VERSION_ARGS,
  print: {
    type: "string",
    description: "one-shot: answer this message, print the answer and exit (6 when a tool failed and the model gave up)",
    alias: ["p"],
    valueHint: "message",
  },
  ...AUTH_ARGS,
  ...LOG_ARGS,
} as const satisfies Record<string, FlagDef>;

/** The command of one run, reading the argv it was prepared from. */
function mainCommand(invocation: Invocation): CommandDef<typeof ARGS> {
  const main = defineCommand({
    meta: {
      name: "mcp-host",
      version: pkg.version,
      description:
        "A chat host for MCP servers, with every client feature and no tools of its own. With no key in the environment it runs the " +
        "keyless scripted model; with no server, the reference server built into it. In the chat: /help lists commands; @server:uri " +
        "attaches a resource; /server:prompt k=v runs a prompt; Tab completes; Ctrl-C cancels a running tool call, and at an empty " +
        "prompt exits.",
    },
    args: ARGS,
    async run({ args }) {
      const { runHost } = await import("./host/run.ts");
      process.exitCode = await runHost(args as Record<string, unknown>, { invocation, entryUrl: import.meta.url, defs: ARGS });
    },
  });
  return withExamples(main, [
    "mcp-host                                         # the keyless tour: scripted model + built-in reference server",
    'mcp-host --server "npx -y @modelcontextprotocol/server-everything"',
    "mcp-host -- node server.js",
    "mcp-host --server http://127.0.0.1:3000/mcp --provider anthropic",
    "mcp-host --config .mcp.json --server github --root ~/project",
    'mcp-host -p "call add a=2 b=3"                   # one answer on stdout, then exit',
    "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=ollama mcp-host --model llama3.2",
  ]);
}

/** Runs mcp-host with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  if (process.env[SERVE_REFERENCE_ENV] === "1") {
    const { runReferenceServer } = await import("./host/reference/main.ts");
    await runReferenceServer();
    return;
  }
  const invocation = prepareArgv(argv, { defs: [ARGS], repeatable: { server: [], url: [], root: [], ...REPEATABLE_TARGET_FLAGS } });
  if (invocation.missing) {
    const { fail } = await import("./lib/cli/fail.ts");
    fail(`${invocation.missing} needs a value`);
    return;
  }
  await runMain(mainCommand(invocation), { rawArgs: invocation.rawArgs, showUsage: showHelp });
}

if (import.meta.main) {
  normalJitAfterStartUp();
  await run(process.argv.slice(2));
}
