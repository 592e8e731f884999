// What the flags (and the argv after `--`) name, in DESIGN.md's order: with --config an entry of that
// file, else an http(s) URL, else a configured server's name (lib/targets/discovery, loaded only
// then), else a command line; and what -H, --env, --cwd and --transport add on top. The config
// file parsers (JSON with comments, TOML) load only when a --config is given.
import { existsSync } from "node:fs";
import { splitCommandLine } from "../io/command-line.ts";
import type { Asker } from "../terminal/asker.ts";
import type { Result } from "../wire/result.ts";
import { failed as fail } from "../wire/result.ts";
import {
  checkUrl,
  type Env,
  type HttpTarget,
  type HttpTransportChoice,
  type StdioTarget,
  type Target,
  type TargetFlags,
} from "./target.ts";
import { expandVariables } from "./variables.ts";

/**
 * Resolves the flags (and the argv after `--`) into exactly one target. `--server X` means, in
 * this order: with --config, an entry of that file; else an http(s) URL; else `discovered` (what
 * resolveTargetDiscovering found under that name); else a command line, quoted as a shell would
 * quote it. `--` always means a command.
 */
export async function resolveTarget(
  flags: TargetFlags,
  command: string[],
  environment: Env = process.env,
  discovered?: Result<Target>,
): Promise<Result<Target>> {
  const named = [command.length > 0, Boolean(flags.url), Boolean(flags.config || flags.server)].filter(Boolean).length;
  if (named === 0) {
    return fail(
      "no server given (use `-- <command> [args]`, `--server <url|command>`, `--url <URL>` or `--config <file> [--server <name>]`)",
    );
  }
  if (named > 1) return fail("give only one server: `-- <command>`, `--server`, `--url` or `--config`");

  const overrides = parseOverrides(flags, environment);
  if (!overrides.ok) return overrides;

  let target: Target;
  if (command.length > 0) {
    target = { kind: "stdio", command: command[0]!, args: command.slice(1), env: {} };
  } else if (flags.url) {
    const url = checkUrl(flags.url);
    if (!url.ok) return url;
    target = { kind: "http", url: url.value, headers: {}, transport: "auto" };
  } else if (flags.config) {
    const { loadConfigTarget } = await import("./config-entry.ts");
    const loaded = loadConfigTarget(flags.config, flags.server, environment);
    if (!loaded.ok) return loaded;
    target = loaded.value;
  } else {
    const given = discovered ?? serverTarget(flags.server!);
    if (!given.ok) return given;
    target = given.value;
  }
  const problem = applyOverrides([target], overrides.value);
  return problem ? fail(problem) : { ok: true, value: target };
}

/** How a name is looked up among the configured servers: whom to ask (approval, VS Code inputs), from where. */
export interface DiscoveryLookup {
  ask?: Required<Asker>;
  cwd?: string;
  /** How long reading the config files may take (--timeout). */
  timeoutMs?: number;
}

/**
 * resolveTarget with DESIGN.md's whole order: a `--server` that is neither a URL nor an entry of
 * --config is first looked up among the servers configured for this user and project. lib/targets/discovery
 * loads only then, so `-- cmd` and `--url` pay nothing for it.
 */
export async function resolveTargetDiscovering(
  flags: TargetFlags,
  command: string[],
  environment: Env = process.env,
  lookup: DiscoveryLookup = {},
): Promise<Result<Target>> {
  const named = flags.server !== undefined && !flags.config && !flags.url && command.length === 0;
  return resolveTarget(flags, command, environment, named ? await discoveredTarget(flags.server!, environment, lookup) : undefined);
}

/** `--server X` as a configured server's name, or undefined when no client config has one so named (or X is a URL). */
export async function discoveredTarget(
  value: string,
  environment: Env = process.env,
  lookup: DiscoveryLookup = {},
): Promise<Result<Target> | undefined> {
  if (/^https?:\/\//i.test(value)) return undefined;
  const { findServerTarget } = await import("./discovery/index.ts");
  return findServerTarget(value, { env: environment, ...lookup });
}

/** What -H, --env, --cwd and --transport say, on top of whatever names the server. */
export interface TargetOverrides {
  headers: Record<string, string>;
  env: Record<string, string>;
  cwd?: string;
  transport?: HttpTransportChoice;
}

/**
 * The overrides the flags give. A header's `${VAR}` is expanded from `environment`, as a config
 * entry's is: an entry `config` wrote keeps `-H 'Authorization: Bearer ${TOKEN}'` for the client
 * to hand TOKEN on, never the token itself, and the literal never reaches the server.
 */
export function parseOverrides(flags: TargetFlags, environment: Env = process.env): Result<TargetOverrides> {
  const headers = parseHeaders(flags.header ?? []);
  if (!headers.ok) return headers;
  for (const [name, value] of Object.entries(headers.value)) {
    const expanded = expandVariables(value, environment);
    if (!expanded.ok) return fail(`--header ${name}: ${expanded.error}`);
    headers.value[name] = expanded.value;
  }
  const env = parsePairs(flags.env ?? [], "--env");
  if (!env.ok) return env;
  const transport = parseTransport(flags.transport);
  if (!transport.ok) return transport;
  return {
    ok: true,
    value: {
      headers: headers.value,
      env: env.value,
      ...(flags.cwd ? { cwd: flags.cwd } : {}),
      ...(flags.transport ? { transport: transport.value } : {}),
    },
  };
}

/**
 * Flags add to (and win over) what a config entry says: headers and --transport for URL
 * servers, --env and --cwd for stdio ones. A flag that fits none of the targets is the problem named.
 */
export function applyOverrides(targets: Target[], overrides: TargetOverrides): string | undefined {
  const http = targets.filter((target): target is HttpTarget => target.kind === "http");
  const stdio = targets.filter((target): target is StdioTarget => target.kind === "stdio");
  if ((Object.keys(overrides.headers).length > 0 || overrides.transport) && http.length === 0)
    return "--header and --transport apply to URL servers only";
  if ((Object.keys(overrides.env).length > 0 || overrides.cwd) && stdio.length === 0) return "--env and --cwd apply to stdio servers only";
  for (const target of http) {
    Object.assign(target.headers, overrides.headers);
    if (overrides.transport) target.transport = overrides.transport;
  }
  for (const target of stdio) {
    Object.assign(target.env, overrides.env);
    if (overrides.cwd) target.cwd = overrides.cwd;
  }
  return undefined;
}

/** `--server X` without --config: an http(s) URL, or a command line (split like a shell, never run through one). */
export function serverTarget(value: string): Result<Target> {
  if (/^https?:\/\//i.test(value)) {
    const url = checkUrl(value);
    return url.ok ? { ok: true, value: { kind: "http", url: url.value, headers: {}, transport: "auto" } } : url;
  }
  // host:port or host.name/path without a scheme is a URL someone meant, not a command to run.
  if (/^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)+)(:\d+(\/\S*)?|\/\S*)$/i.test(value) && !existsSync(value)) {
    return fail(`--server ${JSON.stringify(value)} looks like a URL without a scheme (give a full http:// or https:// URL)`);
  }
  const words = splitCommandLine(value);
  if (!words.ok) return fail(`--server: ${words.error}`);
  return { ok: true, value: { kind: "stdio", command: words.value[0]!, args: words.value.slice(1), env: {} } };
}

export function parseHeaders(values: string[]): Result<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    const name = colon === -1 ? "" : value.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      return fail(`bad --header ${JSON.stringify(value)} (write it as 'Name: value')`);
    }
    headers[name] = value.slice(colon + 1).trim();
  }
  return { ok: true, value: headers };
}

function parsePairs(values: string[], flag: string): Result<Record<string, string>> {
  const pairs: Record<string, string> = {};
  for (const value of values) {
    const equals = value.indexOf("=");
    if (equals <= 0) return fail(`bad ${flag} ${JSON.stringify(value)} (write it as KEY=value)`);
    pairs[value.slice(0, equals)] = value.slice(equals + 1);
  }
  return { ok: true, value: pairs };
}

function parseTransport(value: string | undefined): Result<HttpTransportChoice> {
  if (value === undefined || value === "auto") return { ok: true, value: "auto" };
  if (value === "http" || value === "streamable-http") return { ok: true, value: "streamable-http" };
  if (value === "sse") return { ok: true, value: "sse" };
  return fail(`unknown --transport ${JSON.stringify(value)} (use http or sse)`);
}
