// One run of mcp-inspect, as every command reads it: the argv split before citty saw it (the server
// command after `--`, every value of the repeatable flags), and the checks and choices each
// command makes the same way: output format, target, usage problems, timeout, log level, sign-in.
import type { ArgsDef } from "citty";
import { authFlags } from "../lib/cli/args.ts";
import { type Invocation, unknownFlagsProblem } from "../lib/cli/argv.ts";
import { checkFlagValues } from "../lib/cli/values.ts";
import { isLogLevelName, type LogLevelName } from "../lib/io/log-levels.ts";
import { isTerminal } from "../lib/io/runtime.ts";
import { ownStderr } from "../lib/io/stderr.ts";
import type { ChannelAuth } from "../lib/open.ts";
import type { Target } from "../lib/targets/target.ts";
import { atTerminal, printingAsker, terminalAsker } from "../lib/terminal/asker.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../lib/wire/limits.ts";
import type { Result } from "../lib/wire/result.ts";
import { type COMMON_ARGS, type FlagsDef, OUTPUT_FORMATS } from "./flags.ts";
import { CommandError, EXIT } from "./output.ts";

export type { Invocation };

/** What citty parsed for a command, typed as far as the common flags go. */
export type Args = Record<string, unknown> & { _: string[] } & {
  [K in keyof typeof COMMON_ARGS]?: (typeof COMMON_ARGS)[K]["type"] extends "boolean" ? boolean : string;
};

export function wantsJson(args: Args): boolean {
  if (args.format === "json") return true;
  if (args.format === "text" || args.format === "signatures") return false;
  return Boolean(args.json) || (!args.text && !isTerminal(1));
}

/** The target the flags name; a --server name is looked up among the configured servers (asking at a terminal). */
export async function checkTarget(args: Args, invocation: Invocation): Promise<Result<Target>> {
  // Loaded here: a call whose target early-server already read (inspect/early-call.ts) never needs it.
  const { resolveTargetDiscovering } = await import("../lib/targets/resolve.ts");
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
    {
      ...(atTerminal() ? { ask: terminalAsker() } : {}),
      ...(args.timeout !== undefined ? { timeoutMs: Number(args.timeout) } : {}),
    },
  );
}

export function usageProblem(args: Args, defs: ArgsDef, invocation: Invocation): string | undefined {
  if (invocation.missing) return `${invocation.missing} needs a value`;
  const unknown = unknownFlagsProblem(args, defs);
  if (unknown) return unknown;
  const values = checkFlagValues(args, defs as FlagsDef);
  if (!values.ok) return values.error;
  if (args.json && args.text) return "give --json or --text, not both";
  if (args.format !== undefined && !OUTPUT_FORMATS.includes(String(args.format)))
    return `unknown --format ${JSON.stringify(args.format)} (use ${OUTPUT_FORMATS.join(", ")})`;
  if (args.format !== undefined && (args.json || args.text)) return "give --format or --json/--text, not both";
  return undefined;
}

/** --timeout, else the config entry's timeout_ms, else the default. */
export function timeoutOf(args: Args, target: Target): number {
  return args.timeout !== undefined ? Number(args.timeout) : (target.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
}

/** --log-level, or debug for --verbose; warnings only by default (the answer is what matters). */
export function logLevelOf(args: Args): LogLevelName {
  if (args["log-level"] !== undefined && isLogLevelName(args["log-level"])) return args["log-level"];
  return args.verbose ? "debug" : "warn";
}

/**
 * How this run signs in to a server that wants OAuth: --oauth signs in without asking; a person
 * at a terminal is asked; otherwise nobody signs in, and the error names `mcp-inspect auth`.
 */
export function channelAuth(args: Args, otherwise: "ask" | "no"): Result<ChannelAuth> {
  const flags = authFlags(args);
  if (!flags.ok) return flags;
  return {
    ok: true,
    // A sign-in may happen: questions and the pasted redirect URL (--no-browser) come from the terminal, or stdin.
    value: {
      signIn: args.oauth ? "yes" : otherwise,
      ui: otherwise === "ask" || args.oauth ? terminalAsker() : printingAsker(),
      browser: args.browser !== false,
      ...flags.value,
    },
  };
}

export function requirePositional(args: Args, what: string, example: string): string {
  const value = args._[0];
  if (value === undefined || value === "") throw new CommandError(EXIT.usage, `missing ${what} (e.g. mcp-inspect ${example})`);
  return value;
}

/** Where a task's progress goes: a line on stderr per new state, unless the log level is silent or error. */
export function taskStatusWriter(args: Args): ((line: string) => void) | undefined {
  const level = logLevelOf(args);
  if (level === "silent" || level === "error") return undefined;
  return (line) => void ownStderr().write(`${line}\n`);
}
