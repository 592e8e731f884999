#!/usr/bin/env bun
// mcp-host: a chat host with no tools of its own. Everything the model can do comes from the MCP
// servers it connects to, and every client-side feature is wired: tools, resources, subscriptions,
// prompts, completions, sampling, elicitation, roots, logging, progress, cancellation and OAuth.
// With no key in the environment it runs the keyless `scripted` provider; with no server given it
// starts the reference server built into this binary, so `mcp-host` alone is a working tour.
import { defineCommand, runMain, type ArgsDef } from "citty";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareArgv, unknownFlagsProblem, type Invocation } from "./lib/cli/argv.ts";
import { AUTH_ARGS, authFlags, LOG_ARGS, REPEATABLE_TARGET_FLAGS, TARGET_ARGS } from "./lib/cli/args.ts";
import { showHelp, withExamples } from "./lib/cli/help.ts";
import { isLogLevelName, type LogLevelName } from "./lib/io/log.ts";
import { KNOWN_PROTOCOL_VERSIONS } from "./lib/wire/protocol.ts";
import { applyOverrides, discoveredTarget, loadConfigTarget, loadConfigTargets, parseOverrides, serverTarget, type StdioTarget, type Target } from "./lib/targets/target.ts";
import { atTerminal } from "./lib/terminal/auth-ui.ts";
import { terminalAsk } from "./lib/targets/discovery/ask.ts";
import { createProvider, pickProvider, PROVIDER_NAMES, type LLMProvider, type ProviderName } from "./host/provider.ts";
import { EXIT, eraChoice, rootFor } from "./host/options.ts";
import pkg from "./package.json" with { type: "json" };

/** Set in the environment of the process that serves the embedded reference server. */
const SERVE_REFERENCE_ENV = "MCPKIT_SERVE_REFERENCE";

const ARGS = {
  ...TARGET_ARGS,
  server: { ...TARGET_ARGS.server, description: "an entry of --config, else an http(s) URL (OAuth on demand), else a stdio command line; repeatable (with --config and no --server: every entry)" },
  url: { ...TARGET_ARGS.url, description: "a Streamable HTTP server URL; repeatable" },
  config: { ...TARGET_ARGS.config, description: "an mcpServers config file (Claude Desktop, .mcp.json, Cursor, VS Code)" },
  stateful: { type: "boolean", description: "reach every server through mcp-daemon, which keeps it running after the chat" },
  provider: { type: "string", description: `${PROVIDER_NAMES.join(" | ")} (default: the first with a key in the environment, else scripted)`, valueHint: "name" },
  model: { type: "string", description: "pin a model id (default: the provider's newest mid-tier model, or <VENDOR>_MODEL)", valueHint: "id" },
  root: { type: "string", description: "a directory servers may see through roots/list; repeatable (default: the current directory)", valueHint: "dir" },
  legacy: { type: "boolean", description: "use the 2025 initialize handshake instead of probing for 2026-07-28" },
  "protocol-version": { type: "string", description: `negotiate exactly this revision or fail (${KNOWN_PROTOCOL_VERSIONS.join(", ")})`, valueHint: "v" },
  print: { type: "string", description: "one-shot: answer this message, print the answer and exit (6 when a tool failed and the model gave up)", alias: ["p"], valueHint: "message" },
  ...AUTH_ARGS,
  ...LOG_ARGS,
} as const satisfies ArgsDef;

/** This run's argv: our flags, a server command after `--`, the repeatable flags' values. */
let invocation: Invocation = { rawArgs: [], command: [], repeated: {} };

export const main = defineCommand({
  meta: {
    name: "mcp-host",
    version: pkg.version,
    description:
      "A chat host for MCP servers, with every client feature and no tools of its own. With no key in the environment it runs the keyless scripted model; with no server, the reference server built into it. In the chat: /help lists commands; @server:uri attaches a resource; /server:prompt k=v runs a prompt; Tab completes; Ctrl-C cancels a running tool call, and at an empty prompt exits.",
  },
  args: ARGS,
  async run({ args }) {
    process.exitCode = await host(args as Record<string, unknown>);
  },
});
withExamples(main, [
  "mcp-host                                         # the keyless tour: scripted model + built-in reference server",
  'mcp-host --server "npx -y @modelcontextprotocol/server-everything"',
  "mcp-host -- node server.js",
  "mcp-host --server http://127.0.0.1:3000/mcp --provider anthropic",
  "mcp-host --config .mcp.json --server github --root ~/project",
  'mcp-host -p "call add a=2 b=3"                   # one answer on stdout, then exit',
  "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=ollama mcp-host --model llama3.2",
]);

/** Runs mcp-host with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  if (process.env[SERVE_REFERENCE_ENV] === "1") {
    const { runReferenceServer } = await import("./host/reference/server.ts");
    await runReferenceServer();
    return;
  }
  invocation = prepareArgv(argv, { defs: [ARGS], repeatable: { server: [], url: [], root: [], ...REPEATABLE_TARGET_FLAGS } });
  if (invocation.missing) {
    fail(`${invocation.missing} needs a value`);
    return;
  }
  await runMain(main, { rawArgs: invocation.rawArgs, showUsage: showHelp });
}

if (import.meta.main) await run(process.argv.slice(2));

function fail(message: string, code: number = EXIT.usage): number {
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = code;
  return code;
}

// ---- the host ---------------------------------------------------------------------------------

async function host(args: Record<string, unknown>): Promise<number> {
  const problem = unknownFlagsProblem(args, ARGS);
  if (problem) return fail(problem);
  const positional = (args._ as string[] | undefined) ?? [];
  if (positional.length > 0) return fail(`unexpected argument ${JSON.stringify(positional[0])} (a message goes in -p "...", a server in --server)`);
  const era = eraChoice(Boolean(args.legacy), args["protocol-version"] as string | undefined);
  if (!era.ok) return fail(era.error);
  const auth = authFlags(args);
  if (!auth.ok) return fail(auth.error);
  const level = args["log-level"] as string | undefined;
  if (level !== undefined && !isLogLevelName(level)) return fail(`unknown --log-level ${JSON.stringify(level)} (use silent, error, warn, info, debug or trace)`);
  const targets = await serverTargets(args);
  if (!targets.ok) return fail(targets.error);
  const providerName = (args.provider as string | undefined) ?? pickProvider(process.env);
  if (!PROVIDER_NAMES.includes(providerName as ProviderName)) return fail(`unknown provider ${JSON.stringify(providerName)} (choose ${PROVIDER_NAMES.join(", ")})`);
  const roots: { uri: string; name: string }[] = [];
  for (const directory of invocation.repeated.root?.length ? invocation.repeated.root : [process.cwd()]) roots.push(rootFor(resolve(directory)));
  const oneShot = args.print as string | undefined;
  if (oneShot !== undefined && oneShot.trim() === "") return fail("-p needs a message");

  let provider: LLMProvider;
  try {
    provider = await createProvider(providerName as ProviderName, { model: args.model as string | undefined, env: process.env });
  } catch (error) {
    return fail(`${providerName}: ${(error as Error).message}`, EXIT.model);
  }

  // The MCP SDK and the session load only now, so --help and --version stay instant.
  const { HostSession } = await import("./host/session.ts");
  const session = new HostSession({
    provider,
    targets: targets.value,
    era: era.value,
    roots,
    auth: { ...auth.value, signIn: args.oauth ? "yes" : "ask", browser: args.browser !== false },
    oneShot: oneShot !== undefined,
    logLevel: (level as LogLevelName | undefined) ?? "info",
    logFile: args["log-file"] as string | undefined,
  });
  const connected = await session.connect();
  if (connected === 0) {
    await session.close();
    return fail("no server could be connected", EXIT.connection);
  }
  const code = oneShot !== undefined ? await session.answerOnce(oneShot) : await session.repl();
  await session.close();
  return code;
}

/**
 * Every server named: --server values (entries of --config when it is given, else URLs,
 * configured servers' names or command lines), --config's every entry when no --server picks some, --url values and a command
 * after `--`; with none, the built-in reference server. -H, --env, --cwd, --transport and
 * --stateful apply to each that they fit.
 */
async function serverTargets(args: Record<string, unknown>): Promise<{ ok: true; value: Target[] } | { ok: false; error: string }> {
  const targets: Target[] = [];
  const config = args.config as string | undefined;
  const servers = invocation.repeated.server ?? [];
  if (config !== undefined) {
    if (servers.length === 0) {
      const loaded = loadConfigTargets(config);
      if (!loaded.ok) return loaded;
      targets.push(...loaded.value);
    }
    for (const name of servers) {
      const loaded = loadConfigTarget(config, name);
      if (!loaded.ok) return loaded;
      targets.push(loaded.value);
    }
  } else {
    for (const value of servers) {
      // A configured server's name first (DESIGN.md's order), else a URL or a command line.
      const given = (await discoveredTarget(value, process.env, atTerminal() ? { ask: terminalAsk() } : {})) ?? serverTarget(value);
      if (!given.ok) return given;
      targets.push(given.value);
    }
  }
  for (const url of invocation.repeated.url ?? []) {
    const given = serverTarget(url);
    if (!given.ok || given.value.kind !== "http") return { ok: false, error: `bad --url ${JSON.stringify(url)} (give a full http:// or https:// URL)` };
    targets.push(given.value);
  }
  const [command, ...commandArgs] = invocation.command;
  if (command) targets.push({ kind: "stdio", command, args: commandArgs, env: {} });
  if (targets.length === 0) return { ok: true, value: [referenceServer()] };
  const overrides = parseOverrides({ header: invocation.repeated.header, env: invocation.repeated.env, cwd: args.cwd as string | undefined, transport: args.transport as string | undefined });
  if (!overrides.ok) return overrides;
  const problem = applyOverrides(targets, overrides.value);
  if (problem) return { ok: false, error: problem };
  if (args.stateful) for (const target of targets) target.stateful = true;
  return { ok: true, value: targets };
}

/** This very program, run as the reference server (compiled binaries carry it inside). */
function referenceServer(): StdioTarget {
  const script = process.argv[1] ?? "";
  const compiled = script.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(script);
  const runtimeArgs = compiled ? [] : "Deno" in globalThis ? ["run", "-A", fileURLToPath(import.meta.url)] : [fileURLToPath(import.meta.url)];
  return { kind: "stdio", command: process.execPath, args: runtimeArgs, env: { [SERVE_REFERENCE_ENV]: "1" }, name: "reference" };
}
