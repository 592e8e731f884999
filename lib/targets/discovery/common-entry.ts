// An entry in the one shape lib/targets/config-entry.ts reads (command, args, env, cwd; or url,
// headers, type), from the shapes the newer clients write: opencode's `command` array with
// `environment` and `type: local|remote`, Copilot CLI's `type: local` and `tools`. And what a
// server *is*, for telling two entries of one name apart: what runs or where it connects, after
// the defaults (Claude Code writes `"env": {}` and `"type": "stdio"`, others leave them out).
import { isJsonObject } from "../../wire/jsonrpc.ts";
import type { ClientId } from "./clients.ts";

export function commonEntry(client: ClientId, entry: Record<string, unknown>): Record<string, unknown> {
  if (client === "zed") {
    // Zed's older custom servers: { "source": "custom", "command": { "path", "args", "env" } }.
    const { source: _source, command, ...rest } = entry;
    if (!isJsonObject(command)) return { ...rest, ...(command !== undefined ? { command } : {}) };
    return { ...rest, command: command.path, args: command.args ?? [], ...(command.env !== undefined ? { env: command.env } : {}) };
  }
  if (client === "goose") {
    // block.github.io/goose/docs/guides/config-files: { type: stdio, cmd, args, envs } or { type: sse | streamable_http, uri, headers }.
    const { type, cmd, envs, uri, name: _name, ...rest } = entry;
    if (type === "sse" || type === "streamable_http")
      return { ...rest, url: uri, ...(type === "sse" ? { type: "sse" } : { type: "http" }) };
    return { ...rest, command: cmd, ...(envs !== undefined ? { env: envs } : {}) };
  }
  if (client === "opencode") {
    // opencode.ai/docs/mcp-servers: local { command: [cmd, ...args], environment }, remote { url, headers };
    // opencode.ai/docs/config, "Variables": `{env:NAME}` anywhere, read here as `${NAME}`.
    const { command, environment, type, ...rest } = withVariables(entry, OPENCODE_VARIABLE) as Record<string, unknown>;
    if (type === "remote") return rest;
    const words = Array.isArray(command) ? command : [];
    return {
      ...rest,
      ...(words.length > 0 ? { command: words[0], args: words.slice(1) } : {}),
      ...(environment !== undefined ? { env: environment } : {}),
    };
  }
  if ((client === "gemini" || client === "qwen") && isJsonObject(entry.env)) {
    // geminicli.com/docs/tools/mcp-server: env values may name a variable as $NAME or ${NAME}.
    return { ...entry, env: withVariables(entry.env, DOLLAR_VARIABLE) };
  }
  if (client === "copilot") {
    // Copilot CLI writes `"type": "local"` for stdio and a `tools` filter, which is its own business.
    const { tools: _tools, type, ...rest } = entry;
    return type === "local" || type === "stdio" ? rest : { ...rest, type };
  }
  return entry;
}

const OPENCODE_VARIABLE = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const DOLLAR_VARIABLE = /\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Every string in `value` with a client's own spelling of a variable turned into `${NAME}`. */
function withVariables(value: unknown, spelling: RegExp): unknown {
  if (typeof value === "string") return value.replace(spelling, (_match, name: string) => `\${${name}}`);
  if (Array.isArray(value)) return value.map((item) => withVariables(item, spelling));
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withVariables(item, spelling)]));
  return value;
}

/**
 * Whether the entry names a process or a URL we can start or reach: not a Goose built-in (run in
 * Goose's own process) nor a Zed extension's settings (its command is the extension's business).
 */
export function runsOnItsOwn(client: ClientId, entry: Record<string, unknown>): boolean {
  if (client === "goose") return entry.type === "stdio" || entry.type === "sse" || entry.type === "streamable_http";
  if (client === "zed") return entry.command !== undefined || entry.url !== undefined;
  return true;
}

const identities = new WeakMap<Record<string, unknown>, string>();

/** What the entry runs or reaches, as one string: two entries with one identity are the same server. */
export function serverIdentity(client: ClientId, entry: Record<string, unknown>): string {
  let identity = identities.get(entry);
  if (identity === undefined) identities.set(entry, (identity = identityOf(client, entry)));
  return identity;
}

function identityOf(client: ClientId, entry: Record<string, unknown>): string {
  const common = commonEntry(client, entry);
  const url = common.url ?? common.serverUrl ?? common.httpUrl;
  // Sorted pairs: an object's key order is the file's, not the server's.
  const pairs = (...values: unknown[]) =>
    values
      .flatMap((value) => (isJsonObject(value) ? Object.entries(value) : []))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => [key, String(value)]);
  if (typeof url === "string") {
    const type = common.type ?? common.transport;
    const sse = type === "sse" || (client === "gemini" && common.url !== undefined && common.type === undefined);
    return JSON.stringify(["url", url, pairs(common.headers, common.http_headers), sse]);
  }
  return JSON.stringify(["command", common.command, Array.isArray(common.args) ? common.args : [], pairs(common.env), common.cwd ?? null]);
}
