#!/usr/bin/env bun
// mcp-inspect: an MCP client on the command line. Each command connects to one server (a stdio
// command after `--`, a URL, or a config entry), does one thing, prints one result, and exits
// with a code that says what happened. `mcp` turns it into an MCP server of inspection tools.
//
// Start-up (issue 13): for a one-shot command against a plain stdio server, inspect/early-server.ts
// spawns the server first and only then is the rest loaded, so that the two start-ups overlap.
// That is why modules are imported with `await import()` below, types alone statically: a static
// import is loaded before the first line of this file runs. New imports belong with them.
import type { ArgsDef, CommandDef } from "citty";
import type { Invocation } from "./lib/cli/argv.ts";
import type { LogLevelName } from "./lib/io/log.ts";
import type { ChannelAuth } from "./lib/open.ts";
import type { Target } from "./lib/targets/target.ts";
import type { NamedTarget } from "./inspect/grep.ts";
import type { ToolLike } from "./inspect/signatures.ts";
import type { GivenAnswers } from "./inspect/questions.ts";
import type { Call } from "./inspect/session.ts";
import type { Metadata } from "./inspect/output.ts";
import type { TaskAction, TaskMode } from "./inspect/tasks.ts";
import { discardEarly, earlyInterruption, startEarly } from "./inspect/early-server.ts";
import pkg from "./package.json" with { type: "json" };

// The server first: a plain stdio server of a one-shot command is spawned before the rest loads.
if (import.meta.main) await startEarly(process.argv.slice(2));
const { defineCommand, runMain } = await import("citty");
const { prepareArgv, unknownCommandProblem, unknownFlagsProblem, valueFlags } = await import("./lib/cli/argv.ts");
const { AUTH_ARGS, authFlags, LOG_ARGS, REPEATABLE_TARGET_FLAGS, TARGET_ARGS } = await import("./lib/cli/args.ts");
const { showHelp, withExamples } = await import("./lib/cli/help.ts");
const { isLogLevelName, ownStderr } = await import("./lib/io/log.ts");
const { stripControl } = await import("./lib/io/text.ts");
const { McpError } = await import("./lib/client/raw-client.ts");
const { KNOWN_PROTOCOL_VERSIONS } = await import("./lib/wire/protocol.ts");
const { onExitSignals } = await import("./lib/io/signals.ts");
const { atTerminal, printingAuthUi, terminalAuthUi } = await import("./lib/terminal/auth-ui.ts");
const { runConfigCommand } = await import("./lib/cli/config-command.ts");
const { describeTarget, loadConfigTargets, resolveTargetDiscovering } = await import("./lib/targets/target.ts");
const { terminalAsk } = await import("./lib/targets/discovery/ask.ts");
const { pairsToArguments, readParams, validate } = await import("./inspect/arguments.ts");
const { signature } = await import("./inspect/signatures.ts");
const { MAX_TIMEOUT_MS, Watchdog, openSession } = await import("./inspect/session.ts");
const tasks = await import("./inspect/tasks.ts");
const { CommandError, EXIT, classify, errorEnvelope, renderText, successEnvelope } = await import("./inspect/output.ts");
/** A class imported with `await import()` is a value only: its type, under the same name. */
type CommandError = import("./inspect/output.ts").CommandError;

const DEFAULT_TIMEOUT_MS = 60_000;
const OUTPUT_FORMATS = ["json", "text", "signatures"];
/** This run's argv: our flags, the server command after `--`, the repeatable flags' values. */
let invocation: Invocation = { rawArgs: [], command: [], repeated: {} };

const COMMON_ARGS = {
  ...TARGET_ARGS,
  timeout: { type: "string", description: `give up after this many ms in all (default ${DEFAULT_TIMEOUT_MS}, or the config's timeout_ms; progress resets the timer)`, valueHint: "ms" },
  stateful: { type: "boolean", description: "keep the server running between calls, in mcp-daemon (started on demand)" },
  "protocol-version": { type: "string", description: `pin a revision (${KNOWN_PROTOCOL_VERSIONS.join(", ")})`, valueHint: "v" },
  json: { type: "boolean", description: "print the JSON envelope (default when stdout is not a terminal)" },
  text: { type: "boolean", description: "print readable text (default on a terminal)" },
  format: { type: "string", description: "json, text, or signatures (list-tools: one line per tool, name(a: string, b?: integer) - summary)", valueHint: "fmt" },
  ...AUTH_ARGS,
  ...LOG_ARGS,
  verbose: { type: "boolean", description: "the same as --log-level debug: the server's stderr, skipped lines and notifications", alias: ["v"] },
} as const satisfies ArgsDef;

/** The answers to a server's questions, for the commands a server may ask them on. */
const ANSWER_ARGS = {
  "input-responses": { type: "string", description: "answers to the questions a previous call ended with (exit 8): JSON, @answers.json, or - (stdin)", valueHint: "json" },
} as const satisfies ArgsDef;

type Args = Record<string, unknown> & { _: string[] } & { [K in keyof typeof COMMON_ARGS]?: (typeof COMMON_ARGS)[K]["type"] extends "boolean" ? boolean : string };

/**
 * One inspection command. `prepare` checks and reads everything local (arguments, files, stdin)
 * before any server is started; `act` then asks the server.
 */
function inspectCommand<A extends ArgsDef, P>(
  name: string,
  description: string,
  examples: string[],
  args: A,
  prepare: (args: Args, signal: AbortSignal, target: Target) => Promise<P> | P,
  act: (call: Call, prepared: P, target: Target) => Promise<unknown>,
): CommandDef<A & typeof COMMON_ARGS> {
  const allArgs = { ...args, ...COMMON_ARGS } as A & typeof COMMON_ARGS;
  return withExamples(
    defineCommand({
      meta: { name, description },
      args: allArgs,
      run: ({ args: parsed }) => runOneShot(name, parsed as Args, allArgs, prepare, act),
    }),
    examples,
  );
}

const noPreparation = () => undefined;

const listTools = inspectCommand(
  "list-tools",
  "List the server's tools with their input schemas.",
  ["mcp-inspect list-tools -- node server.js", "mcp-inspect list-tools --url http://127.0.0.1:3000/mcp", "mcp-inspect list-tools --config .mcp.json --server github"],
  {},
  noPreparation,
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
    name: { type: "positional", description: "tool name", required: false },
    params: { type: "string", description: "arguments as JSON, @file.json, or - (stdin)", valueHint: "json" },
    validate: { type: "boolean", description: "check the arguments against the tool's inputSchema first", default: true },
    task: { type: "boolean", description: "run it as a task and wait for it, its progress on stderr; Ctrl-C cancels the task, --timeout leaves it running (tools that require a task get one anyway)" },
    detach: { type: "boolean", description: "run it as a task and print the task (its taskId) at once, for `task get|result|cancel` (an HTTP server, or --stateful)" },
    ...ANSWER_ARGS,
  },
  async (args, signal, target) => {
    const name = requirePositional(args, "tool name", "call-tool echo message=hi -- node server.js");
    const pairs = args._.slice(1);
    // The pairs' form is checked now; their types need the schema, so they are built later.
    const form = pairsToArguments(pairs, undefined);
    if (!form.ok) throw new CommandError(EXIT.usage, form.error);
    if (args.detach) requireLastingServer(args, target, "--detach");
    const mode: TaskMode = args.detach ? "detach" : args.task ? "wait" : "auto";
    const lasting = tasks.outlivesProcess(target, Boolean(args.stateful));
    return { name, base: await paramsOf(args, signal), pairs, validate: args.validate !== false, mode, lasting, onstatus: taskStatusWriter(args) };
  },
  async (call, { name, base, pairs, validate: check, mode, lasting, onstatus }, target) => {
    // Over HTTP the schema is needed anyway: it says which arguments travel as Mcp-Param headers.
    let schema: Record<string, unknown> | undefined;
    let tool: Record<string, unknown> | undefined;
    if (check || pairs.length > 0 || target.kind === "http") {
      const { tools } = (await call.listAll("tools/list", "tools")) as { tools: Record<string, unknown>[] };
      tool = tools.find((t) => t.name === name);
      if (!tool) throw new CommandError(EXIT.usage, `unknown tool "${name}" (the server has: ${tools.map((t) => String(t.name)).join(", ") || "no tools"})`);
      schema = tool.inputSchema as Record<string, unknown> | undefined;
    }
    const built = pairsToArguments(pairs, schema, base);
    if (!built.ok) throw new CommandError(EXIT.usage, built.error);
    if (check) {
      const problems = validate(built.value, schema);
      if (problems.length > 0) {
        throw new CommandError(EXIT.usage, `invalid arguments for ${name}: ${problems.slice(0, 5).join("; ")} (or pass --no-validate)`, { problems });
      }
    }
    return tasks.callTool(call, { name, arguments: built.value, mode, tool, onstatus, lasting });
  },
);

const listResources = inspectCommand(
  "list-resources",
  "List the server's resources.",
  ["mcp-inspect list-resources -- node server.js"],
  {},
  noPreparation,
  (call) => call.listAll("resources/list", "resources"),
);

const listResourceTemplates = inspectCommand(
  "list-resource-templates",
  "List the server's resource templates (URIs with {placeholders}).",
  ["mcp-inspect list-resource-templates -- node server.js"],
  {},
  noPreparation,
  (call) => call.listAll("resources/templates/list", "resourceTemplates"),
);

const readResource = inspectCommand(
  "read-resource",
  "Read one resource by URI.",
  ["mcp-inspect read-resource file:///etc/hosts -- npx my-files-server", "mcp-inspect read-resource ref://items/3 --url http://127.0.0.1:3000/mcp"],
  { uri: { type: "positional", description: "resource URI", required: false }, ...ANSWER_ARGS },
  (args) => requirePositional(args, "resource URI", "read-resource ref://hello -- node server.js"),
  (call, uri) => call.request("resources/read", { uri }),
);

const listPrompts = inspectCommand(
  "list-prompts",
  "List the server's prompts and their arguments.",
  ["mcp-inspect list-prompts -- node server.js"],
  {},
  noPreparation,
  (call) => call.listAll("prompts/list", "prompts"),
);

const getPrompt = inspectCommand(
  "get-prompt",
  "Get one prompt, filled in with key=value arguments (or --params JSON).",
  ["mcp-inspect get-prompt greet name=alice -- node server.js", `mcp-inspect get-prompt review --params '{"code":"x = 1"}' -- node server.js`],
  {
    name: { type: "positional", description: "prompt name", required: false },
    params: { type: "string", description: "arguments as JSON, @file.json, or - (stdin)", valueHint: "json" },
    ...ANSWER_ARGS,
  },
  async (args, signal) => {
    const name = requirePositional(args, "prompt name", "get-prompt greet name=alice -- node server.js");
    // Prompt arguments are strings by the spec: no coercion.
    const built = pairsToArguments(args._.slice(1), undefined, await paramsOf(args, signal), { strings: true });
    if (!built.ok) throw new CommandError(EXIT.usage, built.error);
    return { name, values: Object.fromEntries(Object.entries(built.value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])) };
  },
  (call, { name, values }) => call.request("prompts/get", { name, arguments: values }),
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
  (args) => {
    if (Boolean(args.prompt) === Boolean(args.resource)) throw new CommandError(EXIT.usage, "give exactly one of --prompt <name> or --resource <uri-template>");
    if (typeof args.argument !== "string") throw new CommandError(EXIT.usage, "--argument name=value is required");
    const equals = args.argument.indexOf("=");
    if (equals <= 0) throw new CommandError(EXIT.usage, `bad --argument ${JSON.stringify(args.argument)} (write name=value)`);
    const params: Record<string, unknown> = {
      ref: args.prompt ? { type: "ref/prompt", name: String(args.prompt) } : { type: "ref/resource", uri: String(args.resource) },
      argument: { name: args.argument.slice(0, equals), value: args.argument.slice(equals + 1) },
    };
    if (typeof args.context === "string") {
      const context = pairsToArguments(args.context.split(",").filter(Boolean), undefined, {}, { strings: true });
      if (!context.ok) throw new CommandError(EXIT.usage, context.error.replace("argument", "--context"));
      params.context = { arguments: context.value };
    }
    return params;
  },
  (call, params) => call.request("completion/complete", params),
);

const serverInfo = inspectCommand(
  "server-info",
  "Show what the server said about itself: name, version, protocol revision, capabilities, instructions.",
  ["mcp-inspect server-info -- node server.js", "mcp-inspect server-info --protocol-version 2025-06-18 -- node server.js"],
  {},
  noPreparation,
  async (call) => call.identity(),
);

const ping = inspectCommand(
  "ping",
  "Check that the server answers, and how fast.",
  ["mcp-inspect ping -- node server.js", "mcp-inspect ping --url http://127.0.0.1:3000/mcp --timeout 2000"],
  {},
  noPreparation,
  (call) => call.ping(),
);

const task = inspectCommand(
  "task",
  "Follow a task the server runs (call-tool --task/--detach): get prints its state, result waits for its result, cancel cancels it. A task outlives mcp-inspect only on an HTTP server or with --stateful.",
  ["mcp-inspect task get 786512e2-9e0d-44bd-8f29-789f320fe840 --url http://127.0.0.1:3000/mcp", "mcp-inspect task result <id> --stateful -- node server.js", "mcp-inspect task cancel <id> --url http://127.0.0.1:3000/mcp"],
  {
    action: { type: "positional", description: tasks.TASK_ACTIONS.join(", "), required: false },
    id: { type: "positional", description: "the task's id", required: false },
  },
  (args, _signal, target) => {
    const action = args._[0] as TaskAction | undefined;
    if (!action || !tasks.TASK_ACTIONS.includes(action)) throw new CommandError(EXIT.usage, `task needs one of ${tasks.TASK_ACTIONS.join(", ")} (e.g. mcp-inspect task get <id> --url http://127.0.0.1:3000/mcp)`);
    const taskId = args._[1];
    if (!taskId) throw new CommandError(EXIT.usage, `missing the task's id (e.g. mcp-inspect task ${action} <id> --url http://127.0.0.1:3000/mcp)`);
    requireLastingServer(args, target, "task");
    return { action, taskId, onstatus: taskStatusWriter(args) };
  },
  (call, { action, taskId, onstatus }) => tasks.run(call, action, taskId, onstatus),
);

const MCP_ARGS = {
  ...TARGET_ARGS,
  timeout: COMMON_ARGS.timeout,
  "protocol-version": COMMON_ARGS["protocol-version"],
  stateful: COMMON_ARGS.stateful,
  ...LOG_ARGS,
  verbose: COMMON_ARGS.verbose,
} as const satisfies ArgsDef;

const mcp = defineCommand({
  meta: {
    name: "mcp",
    description:
      "Run as a stdio MCP server whose tools inspect the target: list_tools, call_tool, list_resources, read_resource, list_prompts, get_prompt, get_server_info, ping, get_task, get_task_result, cancel_task. One connection to the target is kept across calls.",
  },
  args: MCP_ARGS,
  async run({ args }) {
    const parsed = args as Args;
    const target = await checkTarget(parsed);
    const problem = usageProblem(parsed, MCP_ARGS) ?? (target.ok ? undefined : target.error);
    if (problem || !target.ok) {
      process.stderr.write(`error: ${problem}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    const { serveInspector } = await import("./inspect/mcp-mode.ts");
    process.exitCode = await serveInspector(target.value, {
      version: pkg.version,
      timeoutMs: timeoutOf(parsed, target.value),
      protocolVersion: parsed["protocol-version"],
      logLevel: logLevelOf(parsed),
      logFile: parsed["log-file"],
      stateful: Boolean(parsed.stateful),
    });
  },
});
withExamples(mcp, ["mcp-inspect mcp -- node server.js", "mcp-inspect mcp --url http://127.0.0.1:3000/mcp", `{ "mcpServers": { "inspect-mine": { "command": "mcp-inspect", "args": ["mcp", "--", "node", "/path/to/server.js"] } } }`]);

const AUTH_COMMAND_ARGS = {
  ...TARGET_ARGS,
  ...AUTH_ARGS,
  logout: { type: "boolean", description: "revoke the stored tokens (where the server offers revocation) and forget them" },
  list: { type: "boolean", description: "show what is stored: servers, scopes, expiry (never a token)" },
  json: COMMON_ARGS.json,
  text: COMMON_ARGS.text,
  ...LOG_ARGS,
} as const satisfies ArgsDef;

const auth = withExamples(
  defineCommand({
    meta: {
      name: "auth",
      description:
        "Sign in to an OAuth server now and keep its tokens in ~/.mcpkit/auth (MCPKIT_AUTH_DIR), for every tool and later call; --logout revokes and forgets them; --list shows what is stored.",
    },
    args: AUTH_COMMAND_ARGS,
    run: ({ args }) => runAuth(args as Args),
  }),
  [
    "mcp-inspect auth --url https://mcp.example.com/mcp",
    "mcp-inspect auth --config ~/.cursor/mcp.json --server linear",
    "mcp-inspect auth --url https://mcp.example.com/mcp --no-browser      # over SSH: paste the redirect URL back",
    "mcp-inspect auth --url https://mcp.example.com/mcp --client-id my-app --client-secret-env MY_APP_SECRET",
    "mcp-inspect auth --list",
    "mcp-inspect auth --logout --url https://mcp.example.com/mcp",
  ],
);

async function runAuth(args: Args): Promise<void> {
  const json = wantsJson(args);
  const { metadata, fail: failed } = reporter(args.list ? "auth --list" : args.logout ? "auth --logout" : "auth", json);
  const done = (data: unknown, target?: string) => void process.stdout.write(`${json ? successEnvelope(data, metadata(target)) : JSON.stringify(data, null, 2)}\n`);
  const problem = usageProblem(args, AUTH_COMMAND_ARGS);
  if (problem) return failed(new CommandError(EXIT.usage, problem));
  const { listSignIns, logout, signIn } = await import("./inspect/auth.ts");
  const interrupted = new AbortController();
  let signalCode: number | undefined;
  try {
    if (args.list) return done(listSignIns());
    const target = await checkTarget(args);
    if (!target.ok) return failed(new CommandError(EXIT.usage, target.error));
    if (target.value.kind !== "http") return failed(new CommandError(EXIT.usage, "auth is for HTTP servers (give --url, or a --config entry with a url)"));
    const auth = channelAuth(args, "ask");
    if (!auth.ok) return failed(new CommandError(EXIT.usage, auth.error));
    // Ctrl-C (SIGTERM, SIGHUP) ends the wait for the browser, and the listener with it.
    onExitSignals((signal, code) => {
      signalCode = code;
      interrupted.abort(new Error(`interrupted by ${signal}`));
    });
    auth.value.signal = interrupted.signal;
    const shown = describeTarget(target.value);
    if (args.logout) return done(await logout(target.value, auth.value), shown);
    done(await signIn(target.value, auth.value), shown);
  } catch (error) {
    failed(new CommandError(signalCode ?? EXIT.auth, (error as Error).message));
  }
}

const GREP_ARGS = {
  pattern: { type: "positional", description: "what to look for: a regular expression, or plain text (case-insensitive)", required: false },
  ...COMMON_ARGS,
} as const satisfies ArgsDef;

const grepCommand = withExamples(
  defineCommand({
    meta: {
      name: "grep",
      description:
        "Search the tools of every configured server (or one --config, or one server) by name, title, description and parameter names. Servers are asked in parallel, each under --timeout (default 15000); one that fails is listed with its error. Exit 0 with matches, 9 with none.",
    },
    args: GREP_ARGS,
    run: ({ args }) => runGrep(args as Args),
  }),
  [
    "mcp-inspect grep issue                                   # every configured server",
    "mcp-inspect grep 'create|update' --format signatures      # one line per matching tool",
    "mcp-inspect grep search --config ~/.cursor/mcp.json",
    "mcp-inspect grep echo -- node server.js",
  ],
);

async function runGrep(args: Args): Promise<void> {
  const json = wantsJson(args);
  const { metadata, fail } = reporter("grep", json);
  const problem = usageProblem(args, GREP_ARGS);
  if (problem) return fail(new CommandError(EXIT.usage, problem));
  const pattern = args._[0];
  if (!pattern) return fail(new CommandError(EXIT.usage, "missing a pattern (e.g. mcp-inspect grep issue)"));
  const targets = await searchedServers(args);
  if (!targets.ok) return fail(targets.error);
  const { grep } = await import("./inspect/grep.ts");
  const found = await grep(targets.value, pattern, surveyOptions(args));
  const nothing = `no tool matches ${JSON.stringify(pattern)} on the ${found.searched - found.failures.length} of ${found.searched} servers that answered`;
  process.exitCode = found.matches.length > 0 ? EXIT.ok : EXIT.nothingThere;
  if (json) {
    // Exit 9 is a failure of the search, in the contract's shape: success false, and the data still there.
    const envelope = found.matches.length > 0 ? successEnvelope(found, metadata()) : errorEnvelope(new CommandError(EXIT.nothingThere, nothing), metadata(), found);
    process.stdout.write(`${envelope}\n`);
    return;
  }
  for (const match of found.matches) process.stdout.write(`${stripControl(match.server)}: ${match.signature}\n`);
  for (const failure of found.failures) process.stderr.write(`${stripControl(failure.server)}: ${failure.code}: ${stripControl(failure.error)}\n`);
  if (found.matches.length === 0) process.stderr.write(`${nothing}\n`);
}

const SKILL_ARGS = {
  out: { type: "string", description: "the directory to write SKILL.md into (made if missing); - prints it", valueHint: "dir" },
  ...COMMON_ARGS,
} as const satisfies ArgsDef;

const skillCommand = withExamples(
  defineCommand({
    meta: {
      name: "skill",
      description:
        "Write a SKILL.md (Agent Skills format) that teaches an agent to use mcp-inspect with this user's servers: the servers, their tools as one-line signatures, and the commands for calling, answering questions and tasks. No secrets; the servers' text is marked as theirs.",
    },
    args: SKILL_ARGS,
    run: ({ args }) => runSkill(args as Args),
  }),
  ["mcp-inspect skill --out ~/.claude/skills/mcp-servers", "mcp-inspect skill --out - --config .mcp.json"],
);

async function runSkill(args: Args): Promise<void> {
  const json = wantsJson(args);
  // With --out - stdout is the skill itself, so an error goes to stderr even for an agent.
  const { metadata, fail } = reporter("skill", json && args.out !== "-");
  const problem = usageProblem(args, SKILL_ARGS) ?? (typeof args.out === "string" && args.out !== "" ? undefined : "--out DIR is required (the directory for SKILL.md, or - to print it)");
  if (problem) return fail(new CommandError(EXIT.usage, problem));
  const targets = await searchedServers(args);
  if (!targets.ok) return fail(targets.error);
  const [{ survey }, { skillMarkdown, SKILL_FILE }] = await Promise.all([import("./inspect/grep.ts"), import("./inspect/skill.ts")]);
  const surveyed = await survey(targets.value, surveyOptions(args));
  const markdown = skillMarkdown(surveyed.map((entry, i) => ({ ...entry, select: targets.value[i]!.select })));
  if (args.out === "-") {
    process.stdout.write(markdown);
    return;
  }
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { join, resolve } = await import("node:path");
  const file = join(resolve(String(args.out)), SKILL_FILE);
  try {
    mkdirSync(resolve(String(args.out)), { recursive: true });
    writeFileSync(file, markdown);
  } catch (error) {
    return fail(new CommandError(EXIT.usage, `cannot write ${file}: ${(error as Error).message}`));
  }
  const data = { file, servers: surveyed.map((entry) => ({ server: entry.server, tools: entry.tools?.length ?? 0, ...(entry.failure ? { error: entry.failure.error } : {}) })) };
  if (json) process.stdout.write(`${successEnvelope(data, metadata())}\n`);
  else process.stdout.write(`wrote ${file} (${surveyed.length} servers)\n`);
}

/** What grep and skill ask: the servers of searchedTargets, none being an error (exit 9). */
async function searchedServers(args: Args): Promise<{ ok: true; value: NamedTarget[] } | { ok: false; error: CommandError }> {
  const targets = await searchedTargets(args);
  if (!targets.ok) return { ok: false, error: new CommandError(EXIT.usage, targets.error) };
  if (targets.value.length === 0) return { ok: false, error: new CommandError(EXIT.nothingThere, "no servers are configured for this user or project (see mcp-inspect servers)") };
  return targets;
}

/** How grep and skill ask each server: --timeout each (else grep's own default), through the daemon with --stateful. */
function surveyOptions(args: Args) {
  return { version: pkg.version, timeoutMs: args.timeout !== undefined ? Number(args.timeout) : undefined, stateful: Boolean(args.stateful) };
}

/** What grep searches: one given server, every entry of --config, else every configured (and approved) server. */
async function searchedTargets(args: Args): Promise<{ ok: true; value: NamedTarget[] } | { ok: false; error: string }> {
  const flags = (target: Target) => (target.kind === "http" ? `--url ${target.url}` : `-- ${[target.command, ...target.args].join(" ")}`);
  const named = (target: Target, select = flags(target)): NamedTarget => ({ server: target.name ?? describeTarget(target), target, select });
  if (args.config && !args.server) {
    const loaded = loadConfigTargets(args.config);
    return loaded.ok ? { ok: true, value: loaded.value.map((target) => named(target, `--config ${args.config} --server ${target.name}`)) } : loaded;
  }
  if (args.config || args.server || args.url || invocation.command.length > 0) {
    const target = await checkTarget(args);
    return target.ok ? { ok: true, value: [named(target.value)] } : target;
  }
  return discoveredTargets();
}

/** Listed in --help; `config` is handled before citty (its flags pass on into the entry it prints). */
const config = defineCommand({
  meta: { name: "config", description: "Print (or --write) the entry a client needs to run `mcp-inspect mcp` against a server: config --client <name> [--write] -- <server command>" },
  args: {
    client: { type: "string", description: "claude-desktop, claude-code (the project's .mcp.json), claude-code-user, cursor, vscode (.vscode/mcp.json), windsurf, gemini or codex", valueHint: "name" },
    name: { type: "string", description: "the entry's name (default: from the server command)", valueHint: "name" },
    file: { type: "string", description: "write this file instead of the client's own", valueHint: "path" },
    write: { type: "boolean", description: "merge the entry into the file (a backup first; comments and other entries kept)" },
  },
});

const SERVERS_ARGS = {
  approve: { type: "string", description: "approve the project entry of this name, so it may run (project files: .mcp.json, .cursor/, .vscode/, .gemini/, .codex/)", valueHint: "name" },
  json: COMMON_ARGS.json,
  text: COMMON_ARGS.text,
} as const satisfies ArgsDef;

const servers = withExamples(
  defineCommand({
    meta: {
      name: "servers",
      description:
        "List every MCP server configured for this user and project (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, Gemini CLI): file, client, scope, transport, env and header names (never values), approval, sign-in. Exit 9 when there are none.",
    },
    args: SERVERS_ARGS,
    async run({ args }) {
      const parsed = args as Args;
      const stray = parsed._[0] === undefined ? undefined : `unexpected argument ${JSON.stringify(parsed._[0])} (servers takes no arguments; --approve NAME approves one)`;
      const { runServers } = await import("./inspect/servers.ts");
      process.exitCode = await runServers({ approve: parsed.approve as string | undefined, json: wantsJson(parsed), problem: usageProblem(parsed, SERVERS_ARGS) ?? stray });
    },
  }),
  ["mcp-inspect servers", "mcp-inspect servers --json", "mcp-inspect servers --approve github", "mcp-inspect list-tools --server github        # a listed server, by name"],
);

const SUBCOMMANDS = {
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
  task,
  mcp,
  auth,
  grep: grepCommand,
  skill: skillCommand,
  servers,
  config,
};

export const main = defineCommand({
  meta: {
    name: "mcp-inspect",
    version: pkg.version,
    description:
      "Inspect any MCP server from the command line: list and call tools, read resources, get prompts. Options go before or after the command; the server comes after `--`, or as --server, --url or --config. Off a terminal the answer is one JSON envelope on stdout, with a stable exit code.",
  },
  subCommands: SUBCOMMANDS,
});
withExamples(main, [
  "mcp-inspect list-tools -- node server.js",
  "mcp-inspect call-tool add a=2 b=3 -- node server.js",
  "mcp-inspect --stateful call-tool begin_session -- node server.js",
  'mcp-inspect call-tool search --params @query.json --url https://example.com/mcp -H "Authorization: Bearer $TOKEN"',
  "mcp-inspect list-prompts --server \"npx -y @modelcontextprotocol/server-everything\"",
  "mcp-inspect get-prompt greet name=alice --config ~/.cursor/mcp.json --server mine",
  "mcp-inspect config --client claude-desktop -- node server.js",
]);

// The one-shot flow every command shares: check, connect, act, print, then close and exit.
async function runOneShot<P>(
  name: string,
  args: Args,
  defs: ArgsDef,
  prepare: (args: Args, signal: AbortSignal, target: Target) => Promise<P> | P,
  act: (call: Call, prepared: P, target: Target) => Promise<unknown>,
): Promise<void> {
  const started = performance.now();
  const json = wantsJson(args);
  const target = await checkTarget(args);
  let protocolVersion: string | undefined;
  const metadata = (): Metadata => ({
    command: name,
    target: target.ok ? describeTarget(target.value) : "",
    ...(protocolVersion ? { protocolVersion } : {}),
    timestamp: new Date().toISOString(),
    durationMs: Math.round(performance.now() - started),
  });
  const report = (error: CommandError, data?: unknown) => {
    if (json) process.stdout.write(`${errorEnvelope(error, metadata(), data)}\n`);
    else {
      if (data !== undefined) process.stdout.write(`${renderText(name, data)}\n`);
      process.stderr.write(`error: ${stripControl(error.message)}\n`);
    }
    process.exitCode = error.exitCode;
  };

  const usage = usageProblem(args, defs) ?? (target.ok ? undefined : target.error);
  if (usage || !target.ok) return report(new CommandError(EXIT.usage, usage ?? ""));

  // --timeout and signals cover everything from here on, reading --params included.
  const timeoutMs = timeoutOf(args, target.value);
  const watchdog = new Watchdog(timeoutMs);
  let signalled = false;
  onExitSignals((signal, code) => {
    signalled = true;
    watchdog.abort(new CommandError(code, `interrupted by ${signal === "SIGINT" ? "Ctrl-C" : signal}; the server was told to cancel`));
  });
  let prepared: P;
  try {
    prepared = await Promise.race([prepare(args, watchdog.signal, target.value), watchdog.fired]);
  } catch (error) {
    watchdog.stop();
    const timedOut = error instanceof McpError && error.kind === "timeout";
    return report(timedOut ? new CommandError(EXIT.timeout, `reading the arguments took longer than --timeout (${timeoutMs} ms)`) : classify(error));
  }

  let answers: GivenAnswers | undefined;
  try {
    answers = await Promise.race([answersOf(args, watchdog.signal), watchdog.fired]);
  } catch (error) {
    watchdog.stop();
    return report(classify(error));
  }
  const auth = channelAuth(args, atTerminal() ? "ask" : "no");
  if (!auth.ok) return report(new CommandError(EXIT.usage, auth.error));
  // Ctrl-C (or --timeout) ends a sign-in too; the time a person spends in the browser is not the server's.
  auth.value.signal = watchdog.signal;
  auth.value.onUserWait = (waiting) => (waiting ? watchdog.pause() : watchdog.reset());
  const questions = { terminal: atTerminal(), server: describeTarget(target.value), ...(answers ? { answers } : {}) };
  const session = await openSession(target.value, { version: pkg.version, timeoutMs, protocolVersion: args["protocol-version"], logLevel: logLevelOf(args), logFile: args["log-file"], stateful: Boolean(args.stateful), auth: auth.value, questions });
  try {
    await session.connect(watchdog);
    protocolVersion = session.protocolVersion;
    const data = await session.run((call) => act(call, prepared, target.value), watchdog);
    if ((name === "call-tool" || name === "task") && (data as { isError?: boolean }).isError === true) {
      const text = ((data as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === "text")?.text;
      report(new CommandError(EXIT.toolError, `the tool reported an error${text ? `: ${text.slice(0, 200)}` : ""}`), data);
    } else if (args.format === "signatures" && name === "list-tools") process.stdout.write(signatureLines((data as { tools: ToolLike[] }).tools));
    else if (json) process.stdout.write(`${successEnvelope(data, metadata())}\n`);
    else process.stdout.write(`${renderText(name, data)}\n`);
  } catch (error) {
    protocolVersion = session.protocolVersion;
    report(classify(error, session.stderrTail));
  } finally {
    watchdog.stop();
    // The answer is out; only now wait for the server to go away (quickly, when a signal ends us).
    await session.close({ quick: signalled });
  }
}

/** The envelope metadata and the one-line failure of a command that is not one request to one server. */
function reporter(command: string, json: boolean) {
  const started = performance.now();
  const metadata = (target = ""): Metadata => ({ command, target, timestamp: new Date().toISOString(), durationMs: Math.round(performance.now() - started) });
  const fail = (error: CommandError, target?: string): void => {
    if (json) process.stdout.write(`${errorEnvelope(error, metadata(target))}\n`);
    else process.stderr.write(`error: ${stripControl(error.message)}\n`);
    process.exitCode = error.exitCode;
  };
  return { metadata, fail };
}

function wantsJson(args: Args): boolean {
  if (args.format === "json") return true;
  if (args.format === "text" || args.format === "signatures") return false;
  return Boolean(args.json) || (!args.text && !process.stdout.isTTY);
}

/** One signature per line (with a newline after the last), or nothing for no tools. */
function signatureLines(tools: ToolLike[]): string {
  return tools.map((tool) => `${signature(tool)}\n`).join("");
}

/** The target the flags name; a --server name is looked up among the configured servers (asking at a terminal). */
function checkTarget(args: Args): Promise<{ ok: true; value: Target } | { ok: false; error: string }> {
  return resolveTargetDiscovering(
    {
      url: args.url,
      config: args.config,
      server: args.server,
      cwd: args.cwd,
      transport: args.transport,
      header: invocation.repeated.header,
      env: invocation.repeated.env,
    },
    invocation.command,
    process.env,
    { ...(atTerminal() ? { ask: terminalAsk() } : {}) },
  );
}

/** A one-shot stdio server exits with this command, and its tasks with it. */
function requireLastingServer(args: Args, target: Target, what: string): void {
  if (tasks.outlivesProcess(target, Boolean(args.stateful))) return;
  throw new CommandError(EXIT.usage, `${what} needs a server that outlives this command: a one-shot stdio server exits with mcp-inspect, and its tasks with it (use an HTTP server, or --stateful to keep it in mcp-daemon)`);
}

/** Where a task's progress goes: a line on stderr per new state, unless the log level is silent or error. */
function taskStatusWriter(args: Args): ((line: string) => void) | undefined {
  const level = logLevelOf(args);
  if (level === "silent" || level === "error") return undefined;
  return (line) => void ownStderr().write(`${line}\n`);
}

/** --timeout, else the config entry's timeout_ms, else the default. */
function timeoutOf(args: Args, target: Target): number {
  return args.timeout !== undefined ? Number(args.timeout) : (target.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}

function usageProblem(args: Args, defs: ArgsDef): string | undefined {
  if (invocation.missing) return `${invocation.missing} needs a value`;
  const unknown = unknownFlagsProblem(args, defs);
  if (unknown) return unknown;
  if (args.timeout !== undefined) {
    const timeout = String(args.timeout);
    if (!/^\d+$/.test(timeout) || Number(timeout) <= 0) return `--timeout must be a positive number of milliseconds, not ${JSON.stringify(args.timeout)}`;
    if (Number(timeout) > MAX_TIMEOUT_MS) return `--timeout can be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`;
  }
  const pinned = args["protocol-version"];
  if (pinned !== undefined && !KNOWN_PROTOCOL_VERSIONS.includes(pinned)) return `unknown --protocol-version ${pinned} (known: ${KNOWN_PROTOCOL_VERSIONS.join(", ")})`;
  if (args.json && args.text) return "give --json or --text, not both";
  if (args.format !== undefined && !OUTPUT_FORMATS.includes(String(args.format))) return `unknown --format ${JSON.stringify(args.format)} (use ${OUTPUT_FORMATS.join(", ")})`;
  if (args.format !== undefined && (args.json || args.text)) return "give --format or --json/--text, not both";
  const level = args["log-level"];
  if (level !== undefined && !isLogLevelName(level)) return `unknown --log-level ${JSON.stringify(level)} (use silent, error, warn, info, debug or trace)`;
  return undefined;
}

/**
 * How this run signs in to a server that wants OAuth: --oauth signs in without asking; a person
 * at a terminal is asked; otherwise nobody signs in, and the error names `mcp-inspect auth`.
 */
function channelAuth(args: Args, otherwise: "ask" | "no"): { ok: true; value: ChannelAuth } | { ok: false; error: string } {
  const flags = authFlags(args);
  if (!flags.ok) return flags;
  return {
    ok: true,
    // A sign-in may happen: questions and the pasted redirect URL (--no-browser) come from the terminal, or stdin.
    value: { signIn: args.oauth ? "yes" : otherwise, ui: otherwise === "ask" || args.oauth ? terminalAuthUi() : printingAuthUi(), browser: args.browser !== false, ...flags.value },
  };
}

/** --log-level, or debug for --verbose; warnings only by default (the answer is what matters). */
function logLevelOf(args: Args): LogLevelName {
  if (args["log-level"] !== undefined && isLogLevelName(args["log-level"])) return args["log-level"];
  return args.verbose ? "debug" : "warn";
}

function requirePositional(args: Args, what: string, example: string): string {
  const value = args._[0];
  if (value === undefined || value === "") throw new CommandError(EXIT.usage, `missing ${what} (e.g. mcp-inspect ${example})`);
  return value;
}

/** --input-responses, read like --params (JSON, @file, or - for stdin). */
async function answersOf(args: Args, signal: AbortSignal): Promise<GivenAnswers | undefined> {
  const given = args["input-responses"];
  if (typeof given !== "string") return undefined;
  if (given === "-" && args.params === "-") throw new CommandError(EXIT.usage, "--params - and --input-responses - cannot both read stdin");
  const read = await readParams(given, signal);
  if (!read.ok && read.aborted) throw signal.reason;
  if (!read.ok) throw new CommandError(EXIT.usage, read.error.replace("--params", "--input-responses"));
  const { parseAnswers } = await import("./inspect/questions.ts");
  return parseAnswers(read.value);
}

async function paramsOf(args: Args, signal: AbortSignal): Promise<Record<string, unknown>> {
  if (typeof args.params !== "string") return {};
  const read = await readParams(args.params, signal);
  // An abort (--timeout, a signal) is reported by the watchdog that caused it.
  if (!read.ok && read.aborted) throw signal.reason;
  if (!read.ok) throw new CommandError(EXIT.usage, read.error);
  return read.value;
}

/** Every configured server this user approved, as grep and skill search them. */
async function discoveredTargets(): Promise<{ ok: true; value: NamedTarget[] } | { ok: false; error: string }> {
  const { discoverServers, isApproved, serverStates, targetOf } = await import("./lib/targets/discovery/index.ts");
  const { servers } = discoverServers();
  const states = serverStates(servers);
  const value: NamedTarget[] = [];
  for (const server of servers) {
    // What `--server NAME` would reach, and only that: no shadowed, ambiguous, unapproved or turned-off entry.
    const state = states.get(server);
    if (server.turnedOff || !isApproved(server) || state?.shadowedBy || state?.ambiguousWith?.length) continue;
    const target = targetOf(server);
    if (target.ok) value.push({ server: server.name, target: target.value, select: `--server ${server.name}` });
  }
  return { ok: true, value };
}

/** Runs mcp-inspect with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  // A reader that hangs up early (`| head`) is not an error worth a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  });
  const interrupted = earlyInterruption();
  if (interrupted) {
    // A signal while this file loaded, with a server started early (and now stopped): said as a signal during a command is.
    const by = interrupted.signal === "SIGINT" ? "Ctrl-C" : interrupted.signal;
    endBeforeCommand(new CommandError(interrupted.code, `interrupted by ${by} before the server was asked anything`), interrupted.command);
    await discardEarly();
    return;
  }
  try {
    await runCommand(argv);
  } finally {
    // A server started early that no session took (a usage error, --help after all) goes now.
    await discardEarly();
    const late = earlyInterruption();
    if (late) process.exitCode = late.code;
  }
}

/** Ends the run before any command ran: the envelope off a terminal, a line on one. */
function endBeforeCommand(error: CommandError, command: string): void {
  if (!process.stdout.isTTY) process.stdout.write(`${errorEnvelope(error, { command, target: "", timestamp: new Date().toISOString(), durationMs: 0 })}\n`);
  else process.stderr.write(`error: ${error.message}\n`);
  process.exitCode = error.exitCode;
}

/** The command argv names: `config` before citty, an unknown one as a usage error, the rest through citty. */
async function runCommand(argv: string[]): Promise<void> {
  const commands = Object.keys(SUBCOMMANDS);
  const defs = Object.values(SUBCOMMANDS).map((command) => (command.args ?? {}) as ArgsDef);
  invocation = prepareArgv(argv, { commands, defs, repeatable: REPEATABLE_TARGET_FLAGS });
  const own = invocation.rawArgs;
  if (own[0] === "config") {
    process.exitCode = await runConfigCommand("mcp-inspect", own.slice(1), invocation.command, { leadingArgs: ["mcp"], example: "-- node server.js", entryScript: new URL(import.meta.url).pathname });
    return;
  }
  const badCommand = unknownCommandProblem(own, commands, "mcp-inspect", valueFlags(defs));
  if (badCommand) return endBeforeCommand(new CommandError(EXIT.usage, badCommand), own.find((arg) => !arg.startsWith("-")) ?? "");
  await runMain(main, { rawArgs: own, showUsage: showHelp });
}

if (import.meta.main) await run(process.argv.slice(2));
