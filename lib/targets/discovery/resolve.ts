// What `--server NAME` means among the configured servers (DESIGN.md, "One vocabulary"): Claude
// Code's order, local entries over project entries over user entries; two different entries of
// one name in the same scope are an error naming both files (the same entry copied into two
// clients' files is one server). A project entry runs only once approved, and VS Code's
// `${input:...}` values are typed at the terminal; without one, each is a one-line error.

import type { Asker } from "../../terminal/asker.ts";
import type { Result } from "../../wire/result.ts";
import { configEntryTarget } from "../config-entry.ts";
import type { Target } from "../target.ts";
import { approve, entryHash, isApproved } from "./approval.ts";
import { type Env, type Scope, userHome } from "./clients.ts";
import { type DiscoveredServer, type DiscoveryOptions, discoverServers } from "./find.ts";
import type { InputDefinition } from "./read.ts";
import { neededInputs, substitute } from "./variables.ts";

const PRECEDENCE: Scope[] = ["local", "project", "user"];

/** The server that `name` means, an error (ambiguous, turned off), or undefined when no entry has that name. */
export function pickServer(servers: DiscoveredServer[], name: string): Result<DiscoveredServer> | undefined {
  const named = servers.filter((server) => server.name === name);
  if (named.length === 0) return undefined;
  const on = named.filter((server) => !server.turnedOff);
  if (on.length === 0) return fail(`"${name}" is turned off in ${files(named)} (turn it on there to use it)`);
  const scope = PRECEDENCE.find((candidate) => on.some((server) => server.scope === candidate))!;
  const distinct = distinctEntries(on.filter((server) => server.scope === scope));
  if (distinct.length > 1)
    return fail(
      `"${name}" names ${distinct.length} different ${scope} servers, in ${files(distinct)} (rename or remove one, or pick one with ` +
        `--config <file> --server ${quoted(name)})`,
    );
  return { ok: true, value: distinct[0]! };
}

export interface ServerState {
  /** The file of the entry this name means instead. */
  shadowedBy?: string;
  /** The other files with a different entry of this name in the same scope. */
  ambiguousWith?: string[];
}

/** For a listing: which entries a name does not reach, and which names are ambiguous. */
export function serverStates(servers: DiscoveredServer[]): Map<DiscoveredServer, ServerState> {
  const states = new Map<DiscoveredServer, ServerState>();
  for (const name of new Set(servers.map((server) => server.name))) {
    const picked = pickServer(servers, name);
    const on = servers.filter((server) => server.name === name && !server.turnedOff);
    if (picked?.ok) {
      for (const server of on) if (server !== picked.value) states.set(server, { shadowedBy: picked.value.file });
      continue;
    }
    const scope = PRECEDENCE.find((candidate) => on.some((server) => server.scope === candidate));
    const rivals = distinctEntries(on.filter((server) => server.scope === scope));
    for (const server of on) {
      if (server.scope !== scope) states.set(server, { shadowedBy: rivals[0]!.file });
      else states.set(server, { ambiguousWith: rivals.filter((rival) => rival.file !== server.file).map((rival) => rival.file) });
    }
  }
  return states;
}

/** The target an entry stands for: predefined variables and the typed inputs put in, then read as lib/targets/target.ts reads any entry. */
export function targetOf(server: DiscoveredServer, options: { env?: Env; inputs?: Record<string, string> } = {}): Result<Target> {
  const env = options.env ?? process.env;
  const missing = neededInputs(server.entry, server.inputs).filter((input) => options.inputs?.[input.id] === undefined);
  if (missing.length > 0)
    return fail(`"${server.name}" in ${server.file} needs ${inputList(missing)}, typed only at a terminal (run it on one)`);
  // ${workspaceFolder} and ${userHome} are VS Code's and Cursor's; other clients' entries keep them as written.
  const expands = server.client.startsWith("vscode") || server.client === "cursor";
  const entry =
    expands || options.inputs
      ? substitute(server.entry, { workspaceFolder: server.project, userHome: userHome(env), inputs: options.inputs })
      : server.entry;
  return configEntryTarget(server.file, server.name, entry, env);
}

/**
 * `--server NAME` among the configured servers: the target, an error, or undefined when no entry
 * has that name (then NAME is a command line). With `ask`, an unapproved project entry is shown
 * and asked about, and inputs are typed; without it, each is an error that says what to do.
 */
export async function findServerTarget(
  name: string,
  options: DiscoveryOptions & { ask?: Required<Asker> } = {},
): Promise<Result<Target> | undefined> {
  const env = options.env ?? process.env;
  const picked = pickServer(discoverServers(options).servers, name);
  if (!picked?.ok) return picked;
  const server = picked.value;
  if (!isApproved(server, env)) {
    const approved = await askApproval(server, env, options.ask);
    if (!approved.ok) return approved;
  }
  const needed = neededInputs(server.entry, server.inputs);
  if (needed.length === 0 || !options.ask) return targetOf(server, { env });
  const inputs: Record<string, string> = {};
  for (const input of needed) {
    const typed = await askInput(input, options.ask);
    if (!typed.ok) return fail(`"${server.name}" in ${server.file}: ${typed.error}`);
    inputs[input.id] = typed.value;
  }
  return targetOf(server, { env, inputs });
}

async function askApproval(server: DiscoveredServer, env: Env, ask: Required<Asker> | undefined): Promise<Result<true>> {
  const hint = `mcp-inspect servers --approve ${quoted(server.name)}`;
  if (!ask)
    return fail(
      `"${server.name}" comes from the project file ${server.file} and is not approved yet (check what it runs with mcp-inspect ` +
        `servers, then: ${hint})`,
    );
  ask.print(`"${server.name}" comes from the project file ${server.file} and has not been approved yet. It ${whatItRuns(server.entry)}.`);
  if (!(await ask.confirm("Run it, and remember this answer for this entry?")))
    return fail(`"${server.name}" was not approved (approve it later with: ${hint})`);
  const saved = approve(server, env);
  return saved.ok ? { ok: true, value: true } : saved;
}

async function askInput(input: InputDefinition, ask: Required<Asker>): Promise<Result<string>> {
  if (input.type === "command") return fail(`\${input:${input.id}} is a VS Code command input, which only VS Code can run`);
  if (input.options?.length) ask.print(`${input.description ?? input.id}: one of ${input.options.join(", ")}`);
  const prompt = `${input.description ?? input.id}${input.default ? ` [${input.default}]` : ""}: `;
  const typed = (await ask.ask(prompt, { hidden: input.password === true })) ?? "";
  return { ok: true, value: typed === "" && input.default !== undefined ? input.default : typed };
}

/** What an entry starts, for the person approving it: the whole command line (or URL), and only the names of env and headers. */
export function whatItRuns(entry: Record<string, unknown>): string {
  const url = entry.url ?? entry.serverUrl ?? entry.httpUrl;
  const names = (value: unknown) => (typeof value === "object" && value !== null ? Object.keys(value) : []);
  if (typeof url === "string") {
    const headers = names(entry.headers);
    return `connects to ${displayUrl(url)}${headers.length ? ` with the headers ${headers.join(", ")}` : ""}`;
  }
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  const env = names(entry.env);
  const words = [String(entry.command ?? "(no command)"), ...args].map((word) =>
    /^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word),
  );
  return `runs ${words.join(" ")}${env.length ? ` with the variables ${env.join(", ")}` : ""}`;
}

/** A URL without what may be a secret in it: no user:password, and query values shown as "...". */
export function displayUrl(raw: string): string {
  if (raw.includes("${")) return raw;
  try {
    const url = new URL(raw);
    const query = [...url.searchParams.keys()].map((key) => `${key}=...`).join("&");
    return `${url.protocol}//${url.host}${url.pathname}${query ? `?${query}` : ""}`;
  } catch {
    return raw;
  }
}

function inputList(inputs: InputDefinition[]): string {
  return inputs.map((input) => `\${input:${input.id}}${input.description ? ` (${input.description})` : ""}`).join(", ");
}

/** Entries of one name that differ; `"type": "stdio"` beside a command changes nothing. */
function distinctEntries(servers: DiscoveredServer[]): DiscoveredServer[] {
  const seen = new Map<string, DiscoveredServer>();
  for (const server of servers) {
    const { type, ...rest } = server.entry;
    const key = entryHash(typeof server.entry.command === "string" && (type === undefined || type === "stdio") ? rest : server.entry);
    if (!seen.has(key)) seen.set(key, server);
  }
  return [...seen.values()];
}

function files(servers: DiscoveredServer[]): string {
  return [...new Set(servers.map((server) => server.file))].join(" and ");
}

function quoted(name: string): string {
  return /^[\w@%+=:,./-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`;
}

function fail<T>(error: string): Result<T> {
  return { ok: false, error };
}
