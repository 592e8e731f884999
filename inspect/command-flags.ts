// The flags of mcp-inspect's other commands (mcp, auth, grep, skill, servers, config and the server
// developer's kit) and every command's table by name: declared as data, read by citty and the usage
// checks. Apart from inspect/flags.ts so that a one-shot call, which reads only that file, never builds
// these tables (a warm --stateful call's start-up paid ~0.4 ms for them).
import type { ArgsDef } from "citty";
import { AUTH_ARGS, LOG_ARGS, TARGET_ARGS } from "../lib/cli/args.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../lib/wire/limits.ts";
import { COMMON_ARGS, type FlagsDef, ONE_SHOT, type OneShotName, oneShotArgs } from "./flags.ts";

export const MCP_ARGS = {
  ...TARGET_ARGS,
  timeout: COMMON_ARGS.timeout,
  "protocol-version": COMMON_ARGS["protocol-version"],
  stateful: COMMON_ARGS.stateful,
  ...LOG_ARGS,
  verbose: COMMON_ARGS.verbose,
} as const satisfies FlagsDef;

export const AUTH_COMMAND_ARGS = {
  ...TARGET_ARGS,
  ...AUTH_ARGS,
  logout: { type: "boolean", description: "revoke the stored tokens (where the server offers revocation) and forget them" },
  list: { type: "boolean", description: "show what is stored: servers, scopes, expiry (never a token)" },
  json: COMMON_ARGS.json,
  text: COMMON_ARGS.text,
  ...LOG_ARGS,
} as const satisfies FlagsDef;

export const GREP_ARGS = {
  pattern: { type: "positional", description: "what to look for: a regular expression, or plain text (case-insensitive)", required: false },
  ...COMMON_ARGS,
} as const satisfies FlagsDef;

export const SKILL_ARGS = {
  out: { type: "string", description: "the directory to write SKILL.md into (made if missing); - prints it", valueHint: "dir" },
  ...COMMON_ARGS,
} as const satisfies FlagsDef;

export const SERVERS_ARGS = {
  approve: {
    type: "string",
    description: "approve the project entry of this name, so it may run (project files: .mcp.json, .cursor/, .vscode/, .gemini/, .codex/)",
    valueHint: "name",
  },
  json: COMMON_ARGS.json,
  text: COMMON_ARGS.text,
} as const satisfies FlagsDef;

/** Listed in --help; `config` is run before citty sees argv (its flags pass on into the entry it prints). */
export const CONFIG_ARGS = {
  client: {
    type: "string",
    description:
      "claude-desktop, claude-code (the project's .mcp.json), claude-code-user, cursor, vscode (.vscode/mcp.json), windsurf, gemini or " +
      "codex",
    valueHint: "name",
  },
  name: { type: "string", description: "the entry's name (default: from the server command)", valueHint: "name" },
  file: { type: "string", description: "write this file instead of the client's own", valueHint: "path" },
  write: { type: "boolean", description: "merge the entry into the file (a backup first; comments and other entries kept)" },
} as const satisfies FlagsDef;

/** The target, --timeout, the revision, output and logs: what every command of the server developer's kit takes. */
const KIT_TARGET_ARGS = {
  ...TARGET_ARGS,
  timeout: { ...COMMON_ARGS.timeout, description: `give up on each request after this many ms (default ${DEFAULT_REQUEST_TIMEOUT_MS})` },
  "protocol-version": COMMON_ARGS["protocol-version"],
  json: COMMON_ARGS.json,
  text: COMMON_ARGS.text,
  ...AUTH_ARGS,
  ...LOG_ARGS,
  verbose: COMMON_ARGS.verbose,
} as const satisfies FlagsDef;

export const TEST_ARGS = {
  call: {
    type: "string",
    description: "also call this tool (repeatable; its arguments in the --params after it); otherwise only readOnlyHint tools are called",
    valueHint: "name",
  },
  prompt: {
    type: "string",
    description: "get this prompt with the --params after it (repeatable; for prompts with required arguments)",
    valueHint: "name",
  },
  params: { type: "string", description: "the arguments of the --call or --prompt before it, as JSON or @file.json", valueHint: "json" },
  junit: {
    type: "string",
    description: "also write the results as JUnit XML to this file (0600, never through a link)",
    valueHint: "file",
  },
  baseline: {
    type: "string",
    description:
      "known failures: a JSON list of check ids, or an earlier test --json; they do not fail the run, and an entry that passes does",
    valueHint: "file",
  },
  conformance: {
    type: "boolean",
    description: "also run the official conformance suite's server scenarios (installed on first use into ~/.cache/mcpkit; needs node 22+)",
  },
  node: { type: "string", description: "the node that runs --conformance (default: node on PATH, 22 or later)", valueHint: "path" },
  ...KIT_TARGET_ARGS,
} as const satisfies FlagsDef;

export const SNAPSHOT_ARGS = {
  out: { type: "string", description: "write the contract to this file (0600, never through a link) instead of stdout", valueHint: "file" },
  ...KIT_TARGET_ARGS,
} as const satisfies FlagsDef;

export const DIFF_ARGS = {
  before: { type: "positional", description: "the contract a server had (a snapshot file)", required: false },
  after: {
    type: "positional",
    description: "the contract now: a second snapshot file, or the server given as the target",
    required: false,
  },
  format: { type: "string", description: "json, text, or markdown (a pull-request comment)", valueHint: "fmt" },
  ...KIT_TARGET_ARGS,
} as const satisfies FlagsDef;

export const MOCK_ARGS = {
  recording: { type: "positional", description: "a session recorded with mcp-proxy --record", required: false },
  ...LOG_ARGS,
} as const satisfies FlagsDef;

/** Every command's flags, by name: what argv preparation and unknown-command checks read without loading any command. */
export const COMMAND_ARGS: Record<string, ArgsDef> = {
  ...Object.fromEntries(Object.keys(ONE_SHOT).map((name) => [name, oneShotArgs(name as OneShotName)])),
  mcp: MCP_ARGS,
  auth: AUTH_COMMAND_ARGS,
  grep: GREP_ARGS,
  skill: SKILL_ARGS,
  servers: SERVERS_ARGS,
  config: CONFIG_ARGS,
  test: TEST_ARGS,
  snapshot: SNAPSHOT_ARGS,
  diff: DIFF_ARGS,
  mock: MOCK_ARGS,
};
