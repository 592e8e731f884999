// One entry of a client's config file as a target: the file read (capped) and parsed as its
// client writes it, the servers found under the key that client uses, the clients' own field names
// read into the common shape, `${VAR}` expanded, an `envFile` merged under `env`, an `oauth` block checked.
import { dirname, resolve } from "node:path";
import { readFileCappedSync } from "../io/read-capped.ts";
import { isJsonObject } from "../wire/jsonrpc.ts";
import { MAX_CONFIG_BYTES } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";
import { failed as fail } from "../wire/result.ts";
import { formatName, parseConfigText } from "./config-text.ts";
import { readEnvFile } from "./env-file.ts";
import { checkUrl, type Env, type HttpTransportChoice, type OAuthSettings, type StdioTarget, type Target } from "./target.ts";
import { expandDeep } from "./variables.ts";

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

const OAUTH_REGISTRATIONS = ["dynamic", "metadata-document", "pre-registered"] as const;

/**
 * A config entry's `"oauth": {"grant", "registration", "clientId", "clientSecret", "privateKeyFile", "scopes",
 * "callbackPort"}` (the secret as `${VAR}`, expanded already).
 */
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
  if (value.grant !== undefined) {
    if (value.grant !== "authorization_code" && value.grant !== "client_credentials")
      return fail('"oauth.grant" must be "authorization_code" or "client_credentials"');
    settings.grant = value.grant;
  }
  if (value.privateKeyFile !== undefined) {
    if (typeof value.privateKeyFile !== "string" || value.privateKeyFile === "") return fail('"oauth.privateKeyFile" must be a path');
    settings.privateKeyFile = value.privateKeyFile;
  }
  if (settings.grant === "client_credentials" && (!settings.clientId || (!settings.clientSecret && !settings.privateKeyFile)))
    return fail('"oauth.grant": "client_credentials" needs "clientId" with "clientSecret" (as "${VAR}") or "privateKeyFile"');
  if (value.registration !== undefined) {
    if (!OAUTH_REGISTRATIONS.includes(value.registration as never))
      return fail(`"oauth.registration" must be one of ${OAUTH_REGISTRATIONS.map((r) => `"${r}"`).join(", ")}`);
    settings.registration = value.registration as OAuthSettings["registration"];
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
