// The one-shot commands of mcp-inspect and their flags, declared once as data: citty reads them,
// --help shows them, usage checks go by them, and inspect/early-server.ts derives its fast path from
// them (a flag marked `early` is one a one-shot call may carry while its server is spawned before the
// rest of mcp-inspect loads). The other commands' flags are inspect/command-flags.ts: this file is
// loaded before the first line of mcp-inspect.ts runs, so it holds only what the early path reads.
// Nothing here loads more than lib/cli/args.ts and lib/wire/protocol.ts; no logic lives here.
import { AUTH_ARGS, LOG_ARGS, PROTOCOL_VERSION_ARGS, TARGET_ARGS } from "../lib/cli/args.ts";
import type { FlagDef } from "../lib/cli/values.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../lib/wire/limits.ts";

export const OUTPUT_FORMATS = ["json", "text", "signatures"];

/**
 * How the early path checks a flag's value before it spawns a server: a switch (none), the flag's
 * own value kind (lib/cli/values.ts), or a shape of its own. A flag without `early` sends the call
 * the usual way: its value may make the call a usage error.
 */
export type EarlyValue = "none" | "value" | "pair" | "path" | "name" | "format";
export type InspectFlagDef = FlagDef & { early?: EarlyValue };
export type FlagsDef = Record<string, InspectFlagDef>;

export const COMMON_ARGS = {
  ...TARGET_ARGS,
  env: { ...TARGET_ARGS.env, early: "pair" },
  cwd: { ...TARGET_ARGS.cwd, early: "path" },
  config: { ...TARGET_ARGS.config, early: "path" },
  server: { ...TARGET_ARGS.server, early: "name" },
  timeout: {
    type: "string",
    description:
      `give up after this many ms in all (default ${DEFAULT_REQUEST_TIMEOUT_MS}, or the config's timeout_ms; ` +
      "progress resets the timer)",
    valueHint: "ms",
    value: "positive-duration",
    early: "value",
  },
  stateful: { type: "boolean", description: "keep the server running between calls, in mcp-daemon (started on demand)", early: "none" },
  ...PROTOCOL_VERSION_ARGS,
  json: { type: "boolean", description: "print the JSON envelope (default when stdout is not a terminal)", early: "none" },
  text: { type: "boolean", description: "print readable text (default on a terminal)", early: "none" },
  format: {
    type: "string",
    description: "json, text, or signatures (list-tools: one line per tool, name(a: string, b?: integer) - summary)",
    valueHint: "fmt",
    early: "format",
  },
  ...AUTH_ARGS,
  ...LOG_ARGS,
  verbose: {
    type: "boolean",
    description: "the same as --log-level debug: the server's stderr, skipped lines and notifications",
    alias: ["v"],
    early: "none",
  },
} as const satisfies FlagsDef;

/** The answers to a server's questions, for the commands a server may ask them on. */
export const ANSWER_ARGS = {
  "input-responses": {
    type: "string",
    description: "answers to the questions a previous call ended with (exit 8): JSON, @answers.json, or - (stdin)",
    valueHint: "json",
  },
} as const satisfies FlagsDef;

const PARAMS = {
  type: "string",
  description: "arguments as JSON, @file.json, or - (stdin)",
  valueHint: "json",
} as const satisfies InspectFlagDef;

export interface CommandSpec {
  description: string;
  examples: string[];
  /** The command's own flags and positionals (one-shot commands get COMMON_ARGS too). */
  args: FlagsDef;
  /** False: the early path never takes this command (its flags alone cannot tell whether it is a usage error). */
  early?: false;
}

/** What `task` does with a task's id. */
export const TASK_ACTIONS = ["get", "result", "cancel"] as const;

/** The one-shot commands: each connects to one server, does one thing, prints one result. */
export const ONE_SHOT = {
  "list-tools": {
    description: "List the server's tools with their input schemas.",
    examples: [
      "mcp-inspect list-tools -- node server.js",
      "mcp-inspect list-tools --url http://127.0.0.1:3000/mcp",
      "mcp-inspect list-tools --config .mcp.json --server github",
    ],
    args: {},
  },
  "call-tool": {
    description:
      "Call one tool. Arguments come from --params (JSON, @file or - for stdin) and/or key=value pairs typed by the tool's schema.",
    examples: [
      `mcp-inspect call-tool echo message=hello -- node server.js`,
      `mcp-inspect call-tool add --params '{"a": 2, "b": 3}' -- node server.js`,
      `mcp-inspect call-tool search --params @query.json --url https://example.com/mcp`,
      `echo '{"n": 1}' | mcp-inspect call-tool step --params - -- node server.js`,
    ],
    args: {
      name: { type: "positional", description: "tool name", required: false },
      params: PARAMS,
      validate: { type: "boolean", description: "check the arguments against the tool's inputSchema first", default: true, early: "none" },
      task: {
        type: "boolean",
        description:
          "run it as a task and wait for it, its progress on stderr; Ctrl-C cancels the task, --timeout leaves it running (tools that " +
          "require a task get one anyway)",
      },
      detach: {
        type: "boolean",
        description:
          "run it as a task and print the task (its taskId) at once, for `task get|result|cancel` (an HTTP server, or --stateful)",
      },
      ...ANSWER_ARGS,
    },
  },
  "list-resources": { description: "List the server's resources.", examples: ["mcp-inspect list-resources -- node server.js"], args: {} },
  "list-resource-templates": {
    description: "List the server's resource templates (URIs with {placeholders}).",
    examples: ["mcp-inspect list-resource-templates -- node server.js"],
    args: {},
  },
  "read-resource": {
    description: "Read one resource by URI.",
    examples: [
      "mcp-inspect read-resource file:///etc/hosts -- npx my-files-server",
      "mcp-inspect read-resource ref://items/3 --url http://127.0.0.1:3000/mcp",
    ],
    args: { uri: { type: "positional", description: "resource URI", required: false }, ...ANSWER_ARGS },
  },
  "list-prompts": {
    description: "List the server's prompts and their arguments.",
    examples: ["mcp-inspect list-prompts -- node server.js"],
    args: {},
  },
  "get-prompt": {
    description: "Get one prompt, filled in with key=value arguments (or --params JSON).",
    examples: [
      "mcp-inspect get-prompt greet name=alice -- node server.js",
      `mcp-inspect get-prompt review --params '{"code":"x = 1"}' -- node server.js`,
    ],
    args: { name: { type: "positional", description: "prompt name", required: false }, params: PARAMS, ...ANSWER_ARGS },
  },
  complete: {
    description: "Ask the server to complete an argument of a prompt or a resource template (completion/complete).",
    examples: [
      "mcp-inspect complete --prompt greet --argument name=al -- node server.js",
      "mcp-inspect complete --resource 'ref://items/{id}' --argument id=item -- node server.js",
      "mcp-inspect complete --prompt greet --argument style=f --context name=alice -- node server.js",
    ],
    early: false,
    args: {
      prompt: { type: "string", description: "prompt name", valueHint: "name" },
      resource: { type: "string", description: "resource template URI", valueHint: "uri-template" },
      argument: { type: "string", description: "the argument being typed and its partial value (required)", valueHint: "name=value" },
      context: { type: "string", description: "already-resolved arguments, comma-separated", valueHint: "k=v,k2=v2" },
    },
  },
  "server-info": {
    description: "Show what the server said about itself: name, version, protocol revision, capabilities, instructions.",
    examples: ["mcp-inspect server-info -- node server.js", "mcp-inspect server-info --protocol-version 2025-06-18 -- node server.js"],
    args: {},
  },
  ping: {
    description: "Check that the server answers, and how fast.",
    examples: ["mcp-inspect ping -- node server.js", "mcp-inspect ping --url http://127.0.0.1:3000/mcp --timeout 2000"],
    args: {},
  },
  task: {
    description:
      "Follow a task the server runs (call-tool --task/--detach): get prints its state, result waits for its result, cancel cancels " +
      "it. A task outlives mcp-inspect only on an HTTP server or with --stateful.",
    examples: [
      "mcp-inspect task get 786512e2-9e0d-44bd-8f29-789f320fe840 --url http://127.0.0.1:3000/mcp",
      "mcp-inspect task result <id> --stateful -- node server.js",
      "mcp-inspect task cancel <id> --url http://127.0.0.1:3000/mcp",
    ],
    early: false,
    args: {
      action: { type: "positional", description: TASK_ACTIONS.join(", "), required: false },
      id: { type: "positional", description: "the task's id", required: false },
    },
  },
} as const satisfies Record<string, CommandSpec>;
export type OneShotName = keyof typeof ONE_SHOT;

/** A one-shot command's whole set of flags: its own, then the common ones. */
export function oneShotArgs(name: OneShotName): FlagsDef {
  return { ...ONE_SHOT[name].args, ...COMMON_ARGS };
}
