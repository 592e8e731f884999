#!/usr/bin/env bun
// mcp-inspect: an MCP client on the command line. Each command connects to one server (a stdio
// command after `--`, a URL, or a config entry), does one thing, prints one result, and exits
// with a code that says what happened. `mcp` turns it into an MCP server of inspection tools.
import { defineCommand, runMain, type ArgsDef, type CommandDef } from "citty";
import { REPEATABLE_TARGET_FLAGS, splitAtDoubleDash, takeRepeatable, TARGET_ARGS, unknownFlags } from "./lib/cli.ts";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from "./lib/client.ts";
import { describeTarget, resolveTarget, type Target } from "./lib/target.ts";
import { pairsToArguments, readParams, validate } from "./inspect/arguments.ts";
import { connect, type Call, type Session } from "./inspect/session.ts";
import { CommandError, EXIT, classify, errorEnvelope, renderText, successEnvelope, type Metadata } from "./inspect/output.ts";
import pkg from "./package.json" with { type: "json" };

const { own, command: serverCommand } = splitAtDoubleDash(process.argv.slice(2));
const repeated = takeRepeatable(own, REPEATABLE_TARGET_FLAGS);

const COMMON_ARGS = {
  ...TARGET_ARGS,
  timeout: { type: "string", description: "give up after this many ms (progress resets the timer)", valueHint: "ms", default: "60000" },
  "protocol-version": { type: "string", description: `pin a revision (${[...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS].join(", ")})`, valueHint: "v" },
  json: { type: "boolean", description: "print the JSON envelope (default when stdout is not a terminal)" },
  text: { type: "boolean", description: "print readable text (default on a terminal)" },
  verbose: { type: "boolean", description: "show the server's stderr, skipped lines and notifications", alias: ["v"] },
} as const satisfies ArgsDef;

type CommonArgs = { [K in keyof typeof COMMON_ARGS]?: (typeof COMMON_ARGS)[K]["type"] extends "boolean" ? boolean : string };

/** One inspection command: its flags, its examples, and what it asks the server. */
function inspectCommand<A extends ArgsDef>(
  name: string,
  description: string,
  examples: string[],
  args: A,
  action: (call: Call, args: Record<string, unknown> & { _: string[] }) => Promise<unknown>,
): CommandDef<A & typeof COMMON_ARGS> {
  const allArgs = { ...args, ...COMMON_ARGS } as A & typeof COMMON_ARGS;
  return defineCommand({
    meta: { name, description: `${description}\n\nExamples:\n${examples.map((e) => `  ${e}`).join("\n")}` },
    args: allArgs,
    run: ({ args: parsed }) => runOneShot(name, parsed as Record<string, unknown> & CommonArgs & { _: string[] }, allArgs, action),
  });
}

const listTools = inspectCommand(
  "list-tools",
  "List the server's tools with their input schemas.",
  ["mcp-inspect list-tools -- node server.js", "mcp-inspect list-tools --url http://127.0.0.1:3000/mcp", "mcp-inspect list-tools --config .mcp.json --server github"],
  {},
  (call) => call.listAll("tools/list", "tools"),
);

const callTool = inspectCommand(
  "call-tool",
  "Call one tool. Arguments come from --params (JSON, @file or - for stdin) and/or key=value pairs typed by the tool's schema.",
  [
    `mcp-inspect call-tool echo message=hello -- node server.js`,
    `mcp-inspect call-tool add --params '{"a": 2, "b": 3}' -- node server.js`,
    `mcp-inspect call-tool search --params @query.json --url https://example.com/mcp`,
    `echo '{"n": 1}' | mcp-inspect call-tool step --params - -- node server.js`,
  ],
  {
    name: { type: "positional", description: "tool name", required: true },
    params: { type: "string", description: "arguments as JSON, @file.json, or - (stdin)", valueHint: "json" },
    validate: { type: "boolean", description: "check arguments against the tool's inputSchema first (--no-validate skips)", default: true },
  },
  async (call, args) => {
    const name = String(args.name);
    const pairs = args._.slice(1);
    let base: Record<string, unknown> = {};
    if (typeof args.params === "string") {
      const read = await readParams(args.params);
      if (!read.ok) throw new CommandError(EXIT.usage, read.error);
      base = read.value;
    }
    const needSchema = args.validate !== false || pairs.length > 0;
    let schema: Record<string, unknown> | undefined;
    if (needSchema) {
      const { tools } = (await call.listAll("tools/list", "tools")) as { tools: { name: string; inputSchema?: Record<string, unknown> }[] };
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new CommandError(EXIT.usage, `unknown tool "${name}" (the server has: ${tools.map((t) => t.name).join(", ") || "no tools"})`);
      schema = tool.inputSchema;
    }
    const built = pairsToArguments(pairs, schema, base);
    if (!built.ok) throw new CommandError(EXIT.usage, built.error);
    if (args.validate !== false) {
      const problems = validate(built.value, schema);
      if (problems.length > 0) {
        throw new CommandError(EXIT.usage, `invalid arguments for ${name}: ${problems.slice(0, 5).join("; ")} (or pass --no-validate)`, { problems });
      }
    }
    return call.request("tools/call", { name, arguments: built.value });
  },
);

const listResources = inspectCommand(
  "list-resources",
  "List the server's resources.",
  ["mcp-inspect list-resources -- node server.js"],
  {},
  (call) => call.listAll("resources/list", "resources"),
);

const listResourceTemplates = inspectCommand(
  "list-resource-templates",
  "List the server's resource templates (URIs with {placeholders}).",
  ["mcp-inspect list-resource-templates -- node server.js"],
  {},
  (call) => call.listAll("resources/templates/list", "resourceTemplates"),
);

const readResource = inspectCommand(
  "read-resource",
  "Read one resource by URI.",
  ["mcp-inspect read-resource file:///etc/hosts -- npx my-files-server", "mcp-inspect read-resource ref://items/3 --url http://127.0.0.1:3000/mcp"],
  { uri: { type: "positional", description: "resource URI", required: true } },
  (call, args) => call.request("resources/read", { uri: String(args.uri) }),
);

const listPrompts = inspectCommand(
  "list-prompts",
  "List the server's prompts and their arguments.",
  ["mcp-inspect list-prompts -- node server.js"],
  {},
  (call) => call.listAll("prompts/list", "prompts"),
);

const getPrompt = inspectCommand(
  "get-prompt",
  "Get one prompt, filled in with key=value arguments (or --params JSON).",
  ["mcp-inspect get-prompt greet name=alice -- node server.js", `mcp-inspect get-prompt review --params '{"code":"x = 1"}' -- node server.js`],
  {
    name: { type: "positional", description: "prompt name", required: true },
    params: { type: "string", description: "arguments as JSON, @file.json, or - (stdin)", valueHint: "json" },
  },
  async (call, args) => {
    const values = await promptArguments(args);
    return call.request("prompts/get", { name: String(args.name), arguments: values });
  },
);

const complete = inspectCommand(
  "complete",
  "Ask the server to complete an argument of a prompt or a resource template (completion/complete).",
  [
    "mcp-inspect complete --prompt greet --argument name=al -- node server.js",
    "mcp-inspect complete --resource 'ref://items/{id}' --argument id=item -- node server.js",
    "mcp-inspect complete --prompt greet --argument style=f --context name=alice -- node server.js",
  ],
  {
    prompt: { type: "string", description: "prompt name", valueHint: "name" },
    resource: { type: "string", description: "resource template URI", valueHint: "uri-template" },
    argument: { type: "string", description: "the argument being typed and its partial value (required)", valueHint: "name=value" },
    context: { type: "string", description: "already-resolved arguments, comma-separated", valueHint: "k=v,k2=v2" },
  },
  async (call, args) => {
    if (Boolean(args.prompt) === Boolean(args.resource)) throw new CommandError(EXIT.usage, "give exactly one of --prompt <name> or --resource <uri-template>");
    if (typeof args.argument !== "string") throw new CommandError(EXIT.usage, "--argument name=value is required");
    const argument = args.argument;
    const equals = argument.indexOf("=");
    if (equals <= 0) throw new CommandError(EXIT.usage, `bad --argument ${JSON.stringify(argument)} (write name=value)`);
    const params: Record<string, unknown> = {
      ref: args.prompt ? { type: "ref/prompt", name: String(args.prompt) } : { type: "ref/resource", uri: String(args.resource) },
      argument: { name: argument.slice(0, equals), value: argument.slice(equals + 1) },
    };
    if (typeof args.context === "string") {
      const context = pairsToArguments(args.context.split(",").filter(Boolean), undefined, {}, { strings: true });
      if (!context.ok) throw new CommandError(EXIT.usage, context.error.replace("argument", "--context"));
      params.context = { arguments: context.value };
    }
    return call.request("completion/complete", params);
  },
);

const serverInfo = inspectCommand(
  "server-info",
  "Show what the server said about itself: name, version, protocol revision, capabilities, instructions.",
  ["mcp-inspect server-info -- node server.js", "mcp-inspect server-info --protocol-version 2025-06-18 -- node server.js"],
  {},
  async (call) => call.identity(),
);

const ping = inspectCommand(
  "ping",
  "Check that the server answers, and how fast.",
  ["mcp-inspect ping -- node server.js", "mcp-inspect ping --url http://127.0.0.1:3000/mcp --timeout 2000"],
  {},
  (call) => call.ping(),
);

const mcp = defineCommand({
  meta: {
    name: "mcp",
    description:
      "Run as a stdio MCP server whose tools inspect the target: list_tools, call_tool, list_resources, read_resource, list_prompts, get_prompt, get_server_info, ping. One connection to the target is kept across calls.\n\nExamples:\n  mcp-inspect mcp -- node server.js\n  mcp-inspect mcp --url http://127.0.0.1:3000/mcp",
  },
  args: { ...TARGET_ARGS, timeout: COMMON_ARGS.timeout, "protocol-version": COMMON_ARGS["protocol-version"], verbose: COMMON_ARGS.verbose },
  async run({ args }) {
    const target = checkTarget(args as CommonArgs);
    if (!target.ok) {
      process.stderr.write(`error: ${target.error}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    const { serveInspector } = await import("./inspect/mcp-mode.ts");
    await serveInspector(target.value, { version: pkg.version, timeoutMs: Number(args.timeout), protocolVersion: args["protocol-version"], verbose: Boolean(args.verbose) });
  },
});

const main = defineCommand({
  meta: { name: "mcp-inspect", version: pkg.version, description: "Inspect any MCP server from the command line: list and call tools, read resources, get prompts." },
  subCommands: {
    "list-tools": listTools,
    "call-tool": callTool,
    "list-resources": listResources,
    "list-resource-templates": listResourceTemplates,
    "read-resource": readResource,
    "list-prompts": listPrompts,
    "get-prompt": getPrompt,
    complete,
    "server-info": serverInfo,
    ping,
    mcp,
  },
});

// The one-shot flow every command shares: resolve, connect, act, print, exit with a stable code.
async function runOneShot(
  name: string,
  args: Record<string, unknown> & CommonArgs & { _: string[] },
  defs: ArgsDef,
  action: (call: Call, args: Record<string, unknown> & { _: string[] }) => Promise<unknown>,
): Promise<void> {
  const started = performance.now();
  const json = args.json || (!args.text && !process.stdout.isTTY);
  const metadata = (protocolVersion?: string): Metadata => ({
    command: name,
    target: target.ok ? describeTarget(target.value) : "",
    ...(protocolVersion ? { protocolVersion } : {}),
    timestamp: new Date().toISOString(),
    durationMs: Math.round(performance.now() - started),
  });
  const fail = (error: CommandError, data?: unknown, protocolVersion?: string) => {
    if (json) process.stdout.write(`${errorEnvelope(error, metadata(protocolVersion), data)}\n`);
    else {
      if (data !== undefined) process.stdout.write(`${renderText(name, data)}\n`);
      process.stderr.write(`error: ${error.message}\n`);
    }
    process.exitCode = error.exitCode;
  };

  const target = checkTarget(args);
  const usage = usageProblem(args, defs);
  if (usage || !target.ok) return fail(new CommandError(EXIT.usage, usage ?? (target.ok ? "" : target.error)));
  const timeoutMs = Number(args.timeout);

  let session: Session | undefined;
  try {
    session = await connect(target.value, {
      version: pkg.version,
      timeoutMs,
      protocolVersion: args["protocol-version"],
      verbose: Boolean(args.verbose),
      handleSignals: true,
    });
    const data = await session.run((call) => action(call, args));
    const version = session.protocolVersion;
    if (name === "call-tool" && (data as { isError?: boolean }).isError === true) {
      const text = ((data as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === "text")?.text;
      return fail(new CommandError(EXIT.toolError, `the tool reported an error${text ? `: ${text.slice(0, 200)}` : ""}`), data, version);
    }
    if (json) process.stdout.write(`${successEnvelope(data, metadata(version))}\n`);
    else process.stdout.write(`${renderText(name, data)}\n`);
  } catch (error) {
    fail(classify(error, session?.stderrTail ?? (error as { stderrTail?: string }).stderrTail), undefined, session?.protocolVersion);
  } finally {
    await session?.close();
  }
}

function checkTarget(args: CommonArgs) {
  return resolveTarget(
    { url: args.url, config: args.config, server: args.server, cwd: args.cwd, transport: args.transport, header: repeated.values.header, env: repeated.values.env },
    serverCommand,
  ) as { ok: true; value: Target } | { ok: false; error: string };
}

function usageProblem(args: Record<string, unknown> & CommonArgs, defs: ArgsDef): string | undefined {
  if (repeated.missing) return `${repeated.missing} needs a value`;
  const unknown = unknownFlags(args, defs);
  if (unknown.length > 0) return `unknown option ${unknown.map((f) => (f.length === 1 ? `-${f}` : `--${f}`)).join(", ")} (see --help)`;
  if (!/^\d+$/.test(String(args.timeout)) || Number(args.timeout) <= 0) return `--timeout must be a positive number of milliseconds, not ${JSON.stringify(args.timeout)}`;
  const pinned = args["protocol-version"];
  const known = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];
  if (pinned !== undefined && !known.includes(pinned)) return `unknown --protocol-version ${pinned} (known: ${known.join(", ")})`;
  if (args.json && args.text) return "give --json or --text, not both";
  return undefined;
}

async function promptArguments(args: Record<string, unknown> & { _: string[] }): Promise<Record<string, string>> {
  let values: Record<string, unknown> = {};
  if (typeof args.params === "string") {
    const read = await readParams(args.params);
    if (!read.ok) throw new CommandError(EXIT.usage, read.error);
    values = read.value;
  }
  // Prompt arguments are strings by the spec: no coercion.
  const built = pairsToArguments(args._.slice(1), undefined, values, { strings: true });
  if (!built.ok) throw new CommandError(EXIT.usage, built.error);
  return Object.fromEntries(Object.entries(built.value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
}

runMain(main, { rawArgs: repeated.rest });
