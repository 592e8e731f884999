#!/usr/bin/env bun
// mcp-host: a chat host with no tools of its own. Everything the model can do comes from the MCP
// servers it connects to, and every client-side feature is wired: tools, resources, subscriptions,
// prompts, completions, sampling, elicitation, roots, logging, progress, cancellation and OAuth.
// With no key in the environment it runs the keyless `scripted` provider; with no server given it
// starts the reference server built into this binary, so `mcp-host` alone is a working tour.
import { defineCommand, runMain, type ArgsDef } from "citty";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { splitCommandLine, takeRepeatable, unknownFlagsProblem } from "./lib/cli.ts";
import { KNOWN_PROTOCOL_VERSIONS } from "./lib/client.ts";
import { loadConfigTargets, resolveTarget, type StdioTarget, type Target } from "./lib/target.ts";
import { createProvider, pickProvider, PROVIDER_NAMES, type LLMProvider, type ProviderName } from "./host/provider.ts";
import { EXIT, eraChoice, rootFor } from "./host/options.ts";
import pkg from "./package.json" with { type: "json" };

/** Set in the environment of the process that serves the embedded reference server. */
const SERVE_REFERENCE_ENV = "MCPKIT_SERVE_REFERENCE";

const ARGS = {
  server: { type: "string", description: "an http(s) URL (Streamable HTTP, OAuth on demand) or a stdio command line; repeatable", valueHint: "url|cmd" },
  config: { type: "string", description: "an mcpServers config file (Claude Desktop, .mcp.json, Cursor, VS Code): connect to every entry", valueHint: "file" },
  provider: { type: "string", description: `${PROVIDER_NAMES.join(" | ")} (default: the first with a key in the environment, else scripted)`, valueHint: "name" },
  model: { type: "string", description: "pin a model id (default: the provider's newest mid-tier model, or <VENDOR>_MODEL)", valueHint: "id" },
  root: { type: "string", description: "a directory servers may see through roots/list; repeatable (default: the current directory)", valueHint: "dir" },
  legacy: { type: "boolean", description: "use the 2025 initialize handshake instead of probing for 2026-07-28" },
  "protocol-version": { type: "string", description: `negotiate exactly this revision or fail (${KNOWN_PROTOCOL_VERSIONS.join(", ")})`, valueHint: "v" },
  "callback-port": { type: "string", description: "fixed loopback port for the OAuth callback (default: any free port)", valueHint: "port" },
  print: { type: "string", description: "one-shot: answer this message, print the answer and exit (6 when a tool failed and the model gave up)", alias: ["p"], valueHint: "message" },
} as const satisfies ArgsDef;

const EXAMPLES = `Examples:
  mcp-host                                         the keyless tour: scripted model + built-in reference server
  mcp-host --server "npx -y @modelcontextprotocol/server-everything"
  mcp-host --server http://127.0.0.1:3000/mcp --provider anthropic
  mcp-host --config .mcp.json --root ~/project
  mcp-host -p "call add a=2 b=3"                   one answer on stdout, then exit
  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=ollama mcp-host --model llama3.2

In the chat: /help lists commands; @server:uri attaches a resource; /server:prompt k=v runs a prompt;
Tab completes; Ctrl-C cancels a running tool call, and at an empty prompt exits.`;

const repeated = takeRepeatable(process.argv.slice(2), { server: [], root: [] });

const main = defineCommand({
  meta: { name: "mcp-host", version: pkg.version, description: `A chat host for MCP servers, with every client feature.\n\n${EXAMPLES}` },
  args: ARGS,
  async run({ args }) {
    process.exitCode = await host(args as Record<string, unknown>);
  },
});

if (process.env[SERVE_REFERENCE_ENV] === "1") {
  const { runReferenceServer } = await import("./host/reference-server.ts");
  await runReferenceServer();
} else if (repeated.missing) {
  fail(`${repeated.missing} needs a value`);
} else {
  runMain(main, { rawArgs: repeated.rest });
}

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
  const callbackPort = port(args["callback-port"]);
  if (callbackPort === null) return fail(`--callback-port takes a port number (1-65535), not ${JSON.stringify(args["callback-port"])}`);
  const targets = serverTargets(repeated.values.server ?? [], args.config as string | undefined);
  if (!targets.ok) return fail(targets.error);
  const providerName = (args.provider as string | undefined) ?? pickProvider(process.env);
  if (!PROVIDER_NAMES.includes(providerName as ProviderName)) return fail(`unknown provider ${JSON.stringify(providerName)} (choose ${PROVIDER_NAMES.join(", ")})`);
  const roots: { uri: string; name: string }[] = [];
  for (const directory of repeated.values.root?.length ? repeated.values.root : [process.cwd()]) roots.push(rootFor(resolve(directory)));
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
  const session = new HostSession({ provider, targets: targets.value, era: era.value, roots, callbackPort, oneShot: oneShot !== undefined });
  const connected = await session.connect();
  if (connected === 0) {
    await session.close();
    return fail("no server could be connected", EXIT.connection);
  }
  const code = oneShot !== undefined ? await session.answerOnce(oneShot) : await session.repl();
  await session.close();
  return code;
}

function port(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  const number = Number(value);
  return typeof value === "string" && /^\d+$/.test(value) && number >= 1 && number <= 65535 ? number : null;
}

/** --server values and --config entries; with neither, the built-in reference server. */
function serverTargets(servers: string[], config: string | undefined): { ok: true; value: Target[] } | { ok: false; error: string } {
  const targets: Target[] = [];
  if (config !== undefined) {
    const loaded = loadConfigTargets(config);
    if (!loaded.ok) return loaded;
    targets.push(...loaded.value);
  }
  for (const server of servers) {
    if (/^https?:\/\//i.test(server)) {
      const target = resolveTarget({ url: server }, []);
      if (!target.ok) return { ok: false, error: `--server ${server}: ${target.error}` };
      targets.push({ ...target.value, transport: "streamable-http" } as Target);
      continue;
    }
    const words = splitCommandLine(server);
    if (!words.ok) return { ok: false, error: `--server: ${words.error}` };
    targets.push({ kind: "stdio", command: words.value[0]!, args: words.value.slice(1), env: {} });
  }
  if (targets.length === 0) targets.push(referenceServer());
  return { ok: true, value: targets };
}

/** This very program, run as the reference server (compiled binaries carry it inside). */
function referenceServer(): StdioTarget {
  const script = process.argv[1] ?? "";
  const compiled = script.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(script);
  const runtimeArgs = compiled ? [] : "Deno" in globalThis ? ["run", "-A", fileURLToPath(import.meta.url)] : [fileURLToPath(import.meta.url)];
  return { kind: "stdio", command: process.execPath, args: runtimeArgs, env: { [SERVE_REFERENCE_ENV]: "1" }, name: "reference" };
}
