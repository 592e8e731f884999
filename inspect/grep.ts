// `mcp-inspect grep` (and `skill`): one survey of the tools of many servers. Servers are asked in parallel, a
// few at a time, each under its own timeout; one that fails is reported with its error and the
// search goes on. Stateful servers answer from the daemon's session (its cached list).

import { EXIT_NAMES } from "../lib/cli/exit-codes.ts";
import { speaks } from "../lib/client/raw-client.ts";
import type { Target } from "../lib/targets/target.ts";
import { printingAsker } from "../lib/terminal/asker.ts";
import { classify } from "./output.ts";
import { openSession } from "./session.ts";
import { parameterNames, signature, type ToolLike } from "./signatures.ts";

/** Servers asked at once: enough to hide latency, few enough not to start a herd of processes. */
export const GREP_CONCURRENCY = 4;
/**
 * With --stateful, through mcp-daemon: a session already running costs one socket and the daemon's
 * cached list, not a process, so more are asked at once (the daemon starts a cold one as it would
 * for any caller).
 */
export const GREP_STATEFUL_CONCURRENCY = 16;
/** Below this many servers through the daemon, attaching to each costs no more than a survey first. */
const SURVEY_AT_LEAST = 2;
/**
 * A daemon answers a survey from memory, in milliseconds: past this (or a server's own shorter
 * timeout) it is wedged or gone, and each server is asked as before, under its own timeout.
 */
const SURVEY_TIMEOUT_MS = 1000;
/** Each server's time to start and list its tools, unless --timeout says otherwise. */
export const GREP_SERVER_TIMEOUT_MS = 15_000;

export interface NamedTarget {
  /** The server's name: its config entry, else how the target reads. */
  server: string;
  target: Target;
  /** How a later command names it (`--server NAME`, or the target flags). */
  select: string;
  /** A project or local entry: the folder a later command must run in (or under) to reach it by name. */
  folder?: string;
}

export interface GrepMatch {
  server: string;
  tool: string;
  signature: string;
}

export interface GrepFailure {
  server: string;
  code: string;
  exitCode: number;
  error: string;
}

export interface GrepOptions {
  version: string;
  timeoutMs?: number;
  stateful?: boolean;
}

/** Case-insensitive: a regular expression when the pattern is one, else the text as written. */
export function matcher(pattern: string): (text: string) => boolean {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "i");
  } catch {
    regex = new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
  }
  return (text) => regex.test(text);
}

/** Whether a tool's name, title, description or a parameter name matches. */
export function toolMatches(tool: ToolLike, test: (text: string) => boolean): boolean {
  const fields = [tool.name, tool.title, tool.description].filter((field): field is string => typeof field === "string");
  return fields.some(test) || parameterNames(tool.inputSchema).some(test);
}

/**
 * Each server's tools, or why they could not be had. Those mcp-daemon's running sessions already
 * know come from one survey of the daemon; the rest are asked in parallel, GREP_CONCURRENCY (or
 * GREP_STATEFUL_CONCURRENCY) at a time.
 */
export async function survey(
  targets: NamedTarget[],
  options: GrepOptions,
): Promise<{ server: string; tools?: ToolLike[]; failure?: GrepFailure }[]> {
  const results: { server: string; tools?: ToolLike[]; failure?: GrepFailure }[] = targets.map(({ server }) => ({ server }));
  const known = await knownTools(targets, options);
  const asked: number[] = [];
  for (const [i, result] of results.entries()) {
    const tools = known[i];
    if (tools) result.tools = tools;
    else asked.push(i);
  }
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < asked.length; n = next++) {
      const i = asked[n]!;
      const { server, target } = targets[i]!;
      try {
        results[i]!.tools = await toolsOf(target, options);
      } catch (error) {
        const failure = classify(error);
        results[i]!.failure = { server, code: codeName(failure.exitCode), exitCode: failure.exitCode, error: failure.message };
      }
    }
  };
  const concurrency = options.stateful ? GREP_STATEFUL_CONCURRENCY : GREP_CONCURRENCY;
  await Promise.all(Array.from({ length: Math.min(concurrency, asked.length) }, worker));
  return results;
}

/**
 * The tool lists of the targets that go through mcp-daemon, where their running session has one and
 * a handshake this client speaks (as a warm call would take them); undefined for the rest.
 */
async function knownTools(targets: NamedTarget[], options: GrepOptions): Promise<(ToolLike[] | undefined)[]> {
  const daemonSide = targets.flatMap(({ target }, i) => (options.stateful || target.stateful ? [i] : []));
  if (daemonSide.length < SURVEY_AT_LEAST) return [];
  const { surveySessions } = await import("../lib/daemon/client.ts");
  const surveyed = daemonSide.map((i) => targets[i]!.target);
  const timeouts = surveyed.map((target) => options.timeoutMs ?? target.timeoutMs ?? GREP_SERVER_TIMEOUT_MS);
  const sessions = await surveySessions(surveyed, Math.min(SURVEY_TIMEOUT_MS, ...timeouts));
  const known: (ToolLike[] | undefined)[] = [];
  for (const [n, session] of sessions.entries())
    if (session?.identity && session.tools && speaks(session.identity)) known[daemonSide[n]!] = session.tools as ToolLike[];
  return known;
}

export async function grep(
  targets: NamedTarget[],
  pattern: string,
  options: GrepOptions,
): Promise<{ matches: GrepMatch[]; failures: GrepFailure[]; searched: number }> {
  const test = matcher(pattern);
  const surveyed = await survey(targets, options);
  const matches = surveyed.flatMap(({ server, tools = [] }) =>
    tools.filter((tool) => toolMatches(tool, test)).map((tool) => ({ server, tool: String(tool.name), signature: signature(tool) })),
  );
  return { matches, failures: surveyed.flatMap(({ failure }) => (failure ? [failure] : [])), searched: targets.length };
}

/** One server's tools: connect, list every page, close. A sign-in is never started here: grep asks many servers at once. */
async function toolsOf(target: Target, options: GrepOptions): Promise<ToolLike[]> {
  const timeoutMs = options.timeoutMs ?? target.timeoutMs ?? GREP_SERVER_TIMEOUT_MS;
  const session = await openSession(target, {
    version: options.version,
    timeoutMs,
    stateful: options.stateful,
    auth: { signIn: "no", ui: printingAsker() },
  });
  try {
    await session.connect();
    const listed = await session.run((call) => call.listAll("tools/list", "tools"));
    return listed.tools as ToolLike[];
  } finally {
    await session.close();
  }
}

function codeName(exitCode: number): string {
  return EXIT_NAMES[exitCode] ?? "ERROR";
}
