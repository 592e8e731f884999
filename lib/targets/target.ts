// One way to name an MCP server in every tool: a stdio command line after `--`, a URL with
// headers, an entry of a client's config file (Claude Desktop, Claude Code, Cursor, VS Code,
// Windsurf, Gemini CLI; Codex's config.toml), or the name of a server configured in any client
// (lib/targets/discovery/index.ts).
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { splitCommandLine } from "../io/command-line.ts";
import { readFileCappedSync } from "../io/read-capped.ts";
import type { Asker } from "../terminal/asker.ts";
import { isJsonObject } from "../wire/jsonrpc.ts";
import { MAX_CONFIG_BYTES } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";
import { formatName, parseConfigText } from "./config-text.ts";
import { readEnvFile } from "./env-file.ts";

export interface StdioTarget {
  kind: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  name?: string;
  stateful?: boolean;
  timeoutMs?: number;
}
export type HttpTransportChoice = "auto" | "streamable-http" | "sse";
export interface HttpTarget {
  kind: "http";
  url: string;
  headers: Record<string, string>;
  transport: HttpTransportChoice;
  name?: string;
  stateful?: boolean;
  timeoutMs?: number;
  /** A pre-registered OAuth client and what to ask for (config `oauth`, or --client-id). */
  oauth?: OAuthSettings;
  /** The config file the entry came from (for the command that signs in to it). */
  configFile?: string;
}

export interface OAuthSettings {
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  callbackPort?: number;
}
export type Target = StdioTarget | HttpTarget;

export interface TargetFlags {
  url?: string;
  header?: string[];
  config?: string;
  server?: string;
  env?: string[];
  cwd?: string;
  transport?: string;
}

type Env = Record<string, string | undefined>;

/**
 * Resolves the flags (and the argv after `--`) into exactly one target. `--server X` means, in
 * this order: with --config, an entry of that file; else an http(s) URL; else `discovered` (what
 * resolveTargetDiscovering found under that name); else a command line, quoted as a shell would
 * quote it. `--` always means a command.
 */
export function resolveTarget(
  flags: TargetFlags,
  command: string[],
  environment: Env = process.env,
  discovered?: Result<Target>,
): Result<Target> {
  const named = [command.length > 0, Boolean(flags.url), Boolean(flags.config || flags.server)].filter(Boolean).length;
  if (named === 0) {
    return fail(
      "no server given (use `-- <command> [args]`, `--server <url|command>`, `--url <URL>` or `--config <file> [--server <name>]`)",
    );
  }
  if (named > 1) return fail("give only one server: `-- <command>`, `--server`, `--url` or `--config`");

  const overrides = parseOverrides(flags);
  if (!overrides.ok) return overrides;

  let target: Target;
  if (command.length > 0) {
    target = { kind: "stdio", command: command[0]!, args: command.slice(1), env: {} };
  } else if (flags.url) {
    const url = checkUrl(flags.url);
    if (!url.ok) return url;
    target = { kind: "http", url: url.value, headers: {}, transport: "auto" };
  } else if (flags.config) {
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

export function parseOverrides(flags: TargetFlags): Result<TargetOverrides> {
  const headers = parseHeaders(flags.header ?? []);
  if (!headers.ok) return headers;
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

function checkUrl(value: string): Result<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`bad URL ${JSON.stringify(value)} (give a full http:// or https:// URL)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail(`unsupported URL scheme ${url.protocol} (use http:// or https://)`);
  }
  return { ok: true, value: url.href };
}

/** Reads one server entry from a client config file, expanding `${VAR}` in its strings. */
export function loadConfigTarget(file: string, name: string | undefined, environment: Env = process.env): Result<Target> {
  const servers = readConfigServers(file);
  if (!servers.ok) return servers;
  const names = Object.keys(servers.value);
  if (name === undefined) {
    if (names.length !== 1) return fail(`config ${file} has ${names.length} servers; pick one with --server (${names.join(", ")})`);
    name = names[0]!;
  }
  if (!Object.hasOwn(servers.value, name)) return fail(`no server "${name}" in ${file} (it has: ${names.join(", ") || "none"})`);
  return configEntryTarget(file, name, servers.value[name], environment);
}

/** Reads every server entry of a client config file (a host connects to all of them). */
export function loadConfigTargets(file: string, environment: Env = process.env): Result<Target[]> {
  const servers = readConfigServers(file);
  if (!servers.ok) return servers;
  const targets: Target[] = [];
  for (const [name, entry] of Object.entries(servers.value)) {
    if (isTurnedOff(entry)) continue;
    const target = configEntryTarget(file, name, entry, environment);
    if (!target.ok) return target;
    targets.push(target.value);
  }
  if (targets.length === 0) return fail(`config ${file} lists no servers`);
  return { ok: true, value: targets };
}

function readConfigServers(file: string): Result<Record<string, unknown>> {
  const read = readFileCappedSync(file, MAX_CONFIG_BYTES);
  if (!read.ok)
    return fail(
      read.error.reason === "too-large"
        ? `config ${file} is over the ${MAX_CONFIG_BYTES}-byte limit`
        : `cannot read config ${file} (${read.error.detail})`,
    );
  const format = /\.toml$/i.test(file) ? "toml" : "json";
  const parsed = parseConfigText(read.value, format);
  if (!parsed.ok) return fail(`config ${file} is not valid ${formatName(format)} (${parsed.error})`);
  const servers = findServers(parsed.value);
  if (!servers)
    return fail(
      format === "toml" ? `config ${file} has no [mcp_servers.<name>] table` : `config ${file} has no "mcpServers" or "servers" object`,
    );
  return { ok: true, value: servers };
}

/** One entry of a client's config as a target: the clients' own fields read, `${VAR}` expanded, an `envFile` merged under `env`. */
export function configEntryTarget(file: string, name: string, entry: unknown, environment: Env): Result<Target> {
  if (!isJsonObject(entry)) return fail(`server "${name}" in ${file} is not an object`);
  if (isTurnedOff(entry))
    return fail(`server "${name}" in ${file} is turned off there (${entry.enabled === false ? "enabled = false" : '"disabled": true'})`);
  const expanded = expandDeep(clientFields(entry, environment), environment);
  if (!expanded.ok) return fail(`server "${name}" in ${file}: ${expanded.error}`);
  const value = expanded.value as Record<string, unknown>;
  if (typeof value.envFile === "string") {
    const fromFile = readEnvFile(resolve(dirname(file), value.envFile));
    if (!fromFile.ok) return fail(`server "${name}" in ${file}: envFile ${fromFile.error}`);
    value.env = { ...fromFile.value, ...(isJsonObject(value.env) ? value.env : {}) };
  }
  return entryToTarget(name, value, file);
}

/** Codex's `enabled = false`, Windsurf's `"disabled": true`: the client does not start it, and neither do we unasked. */
export function isTurnedOff(entry: unknown): boolean {
  return isJsonObject(entry) && (entry.enabled === false || entry.disabled === true);
}

/**
 * The fields other clients spell their own way, in the common shape: Gemini CLI's `httpUrl`
 * (Streamable HTTP; its `url` is SSE), Codex's `http_headers`, `env_http_headers` (header name to
 * the variable holding its value), `bearer_token_env_var` and `env_vars` (variables passed on).
 */
function clientFields(entry: Record<string, unknown>, environment: Env): Record<string, unknown> {
  const out = { ...entry };
  if (typeof entry.httpUrl === "string" && entry.url === undefined) Object.assign(out, { url: entry.httpUrl, type: "http" });
  const headers: Record<string, unknown> = {
    ...(isJsonObject(entry.headers) ? entry.headers : {}),
    ...(isJsonObject(entry.http_headers) ? entry.http_headers : {}),
  };
  if (isJsonObject(entry.env_http_headers))
    for (const [header, variable] of Object.entries(entry.env_http_headers)) headers[header] = `\${${String(variable)}}`;
  if (typeof entry.bearer_token_env_var === "string") headers.Authorization = `Bearer \${${entry.bearer_token_env_var}}`;
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (Array.isArray(entry.env_vars)) {
    const set = entry.env_vars.filter(
      (variable): variable is string =>
        typeof variable === "string" && Object.hasOwn(environment, variable) && environment[variable] !== undefined,
    );
    const passed = Object.fromEntries(set.map((variable) => [variable, `\${${variable}}`]));
    out.env = { ...passed, ...(isJsonObject(entry.env) ? entry.env : {}) };
  }
  return out;
}

function findServers(config: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(config)) return undefined;
  if (isJsonObject(config.mcp_servers)) return config.mcp_servers;
  if (isJsonObject(config.mcpServers)) return config.mcpServers;
  if (isJsonObject(config.servers)) return config.servers;
  if (isJsonObject(config.mcp) && isJsonObject(config.mcp.servers)) return config.mcp.servers;
  return undefined;
}

function entryToTarget(name: string, entry: Record<string, unknown>, file: string): Result<Target> {
  const where = `server "${name}" in ${file}`;
  const common = {
    name,
    ...(entry.stateful === true ? { stateful: true } : {}),
    ...(typeof entry.timeout_ms === "number" ? { timeoutMs: entry.timeout_ms } : {}),
  };
  // Windsurf calls it serverUrl.
  const url = entry.url ?? entry.serverUrl;
  if (typeof url === "string") {
    const checked = checkUrl(url);
    if (!checked.ok) return fail(`${where}: ${checked.error}`);
    const headers = stringRecord(entry.headers);
    if (!headers.ok) return fail(`${where}: headers ${headers.error}`);
    const type = entry.type ?? entry.transport;
    const transport: HttpTransportChoice =
      type === "sse" ? "sse" : type === "http" || type === "streamable-http" ? "streamable-http" : "auto";
    const oauth = oauthSettings(entry.oauth);
    if (!oauth.ok) return fail(`${where}: ${oauth.error}`);
    return {
      ok: true,
      value: {
        kind: "http",
        url: checked.value,
        headers: headers.value,
        transport,
        ...common,
        configFile: file,
        ...(oauth.value ? { oauth: oauth.value } : {}),
      },
    };
  }
  if (typeof entry.command !== "string" || entry.command === "") return fail(`${where} has neither "command" nor "url"`);
  const args = entry.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) return fail(`${where}: "args" must be an array of strings`);
  const env = stringRecord(entry.env);
  if (!env.ok) return fail(`${where}: env ${env.error}`);
  const target: StdioTarget = { kind: "stdio", command: entry.command, args, env: env.value, ...common };
  if (typeof entry.cwd === "string") target.cwd = entry.cwd;
  return { ok: true, value: target };
}

/** A config entry's `"oauth": {"clientId", "clientSecret", "scopes", "callbackPort"}` (the secret as `${VAR}`, expanded already). */
function oauthSettings(value: unknown): Result<OAuthSettings | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (!isJsonObject(value)) return fail('"oauth" must be an object');
  const settings: OAuthSettings = {};
  if (value.clientId !== undefined) {
    if (typeof value.clientId !== "string" || value.clientId === "") return fail('"oauth.clientId" must be a string');
    settings.clientId = value.clientId;
  }
  if (value.clientSecret !== undefined) {
    if (typeof value.clientSecret !== "string")
      return fail('"oauth.clientSecret" must be a string (write it as "${VAR}", not the secret itself)');
    settings.clientSecret = value.clientSecret;
  }
  if (value.scopes !== undefined) {
    if (!Array.isArray(value.scopes) || !value.scopes.every((scope) => typeof scope === "string"))
      return fail('"oauth.scopes" must be a list of strings');
    settings.scopes = value.scopes;
  }
  if (value.callbackPort !== undefined) {
    if (!Number.isInteger(value.callbackPort) || (value.callbackPort as number) < 1 || (value.callbackPort as number) > 65_535)
      return fail('"oauth.callbackPort" must be a port number');
    settings.callbackPort = value.callbackPort as number;
  }
  return { ok: true, value: settings };
}

function stringRecord(value: unknown): Result<Record<string, string>> {
  if (value === undefined) return { ok: true, value: {} };
  if (!isJsonObject(value)) return fail("must be an object of strings");
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") return fail(`"${key}" must be a string`);
    out[key] = String(item);
  }
  return { ok: true, value: out };
}

const VARIABLE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}`, `${VAR:-default}` and VS Code's `${env:VAR}`; an unset VAR without a default is an error. */
export function expandVariables(text: string, environment: Env): Result<string> {
  let missing: string | undefined;
  const value = text.replace(VARIABLE, (_match, variable: string, fallback: string | undefined) => {
    // Only the environment's own entries: ${__proto__} or ${toString} must not reach Object.prototype.
    const found = Object.hasOwn(environment, variable) ? environment[variable] : undefined;
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    if (found === "") return "";
    missing ??= variable;
    return "";
  });
  if (missing) return fail(`\${${missing}} is not set (export it, or write \${${missing}:-default})`);
  return { ok: true, value };
}

function expandDeep(value: unknown, environment: Env): Result<unknown> {
  if (typeof value === "string") return expandVariables(value, environment);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const expanded = expandDeep(item, environment);
      if (!expanded.ok) return expanded;
      out.push(expanded.value);
    }
    return { ok: true, value: out };
  }
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const expanded = expandDeep(item, environment);
      if (!expanded.ok) return expanded;
      out[key] = expanded.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

function fail<T>(error: string): Result<T> {
  return { ok: false, error };
}

/** A short human name for a target, for logs and the output envelope. */
export function describeTarget(target: Target): string {
  if (target.name) return target.name;
  if (target.kind === "http") return target.url;
  return [target.command, ...target.args].join(" ");
}
