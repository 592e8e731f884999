// What `--server NAME` means among the configured servers (DESIGN.md, "One vocabulary"): Claude
// Code's order, local entries over project entries over user entries; two different entries of
// one name in the same scope are an error naming both files (the same entry copied into two
// clients' files is one server). A project entry runs only once approved, and VS Code's
// `${input:...}` values are typed at the terminal; without one, each is a one-line error.

import type { Asker } from "../../terminal/asker.ts";
import type { Result } from "../../wire/result.ts";
import { configEntryTarget } from "../config-entry.ts";
import type { Target } from "../target.ts";
import { approve, isApproved } from "./approval.ts";
import { type Env, type Scope, userHome } from "./clients.ts";
import { commonEntry, serverIdentity } from "./common-entry.ts";
import { type DiscoveredServer, type DiscoveryOptions, discoverServers } from "./find.ts";
import type { InputDefinition } from "./read.ts";
import { neededInputs, substitute } from "./variables.ts";

const PRECEDENCE: Scope[] = ["local", "project", "user"];

/** The server that `name` means, an error (ambiguous, turned off), or undefined when no entry has that name. */
export function pickServer(servers: DiscoveredServer[], name: string): Result<DiscoveredServer> | undefined {
  return pickAmong(
    servers.filter((server) => server.name === name),
    name,
  );
}

/** pickServer among the entries of one name. */
function pickAmong(named: DiscoveredServer[], name: string): Result<DiscoveredServer> | undefined {
  if (named.length === 0) return undefined;
  const on = reachable(named);
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

/**
 * The entries of one name a lookup may pick: not hidden by their own client (a nearer file), not
 * turned off, and no unapproved project entry while an entry the user wrote has the name (the
 * user's runs, the project's waits for approval; alone, a project entry is asked about).
 */
function reachable(named: DiscoveredServer[]): DiscoveredServer[] {
  const on = named.filter((server) => !server.hiddenBy && !server.turnedOff);
  const userWritten = on.some((server) => server.scope !== "project");
  return userWritten ? on.filter((server) => server.scope !== "project" || server.approved) : on;
}

/** An entry as a listing names it: which client, which scope, which file. */
export interface EntryRef {
  client: string;
  scope: Scope;
  file: string;
}

export interface ServerState {
  /** The entry this name means instead. */
  shadowedBy?: EntryRef;
  /** An unapproved project entry: the entry that runs until it is approved. */
  waitsForApproval?: EntryRef;
  /** The same server (what it runs or reaches) in another client's file; the name means it once. */
  sameAs?: EntryRef;
  /** The other files with a different entry of this name in the same scope. */
  ambiguousWith?: string[];
}

/** For a listing: which entries a name does not reach, and which names are ambiguous; one pass over the names. */
export function serverStates(servers: DiscoveredServer[]): Map<DiscoveredServer, ServerState> {
  const states = new Map<DiscoveredServer, ServerState>();
  for (const [name, named] of byName(servers)) {
    const picked = pickAmong(named, name);
    if (picked?.ok) {
      const winner = picked.value;
      const same = serverIdentity(winner.client, winner.entry);
      for (const server of named) {
        if (server === winner || server.turnedOff) continue;
        if (server.hiddenBy) states.set(server, { shadowedBy: ref(server.hiddenBy) });
        else if (server.scope === "project" && !server.approved && winner.scope !== "project")
          states.set(server, { waitsForApproval: ref(winner) });
        else if (server.scope === winner.scope && serverIdentity(server.client, server.entry) === same)
          states.set(server, { sameAs: ref(winner) });
        else states.set(server, { shadowedBy: ref(winner) });
      }
      continue;
    }
    const on = reachable(named);
    const scope = PRECEDENCE.find((candidate) => on.some((server) => server.scope === candidate));
    const rivals = distinctEntries(on.filter((server) => server.scope === scope));
    for (const server of named.filter((candidate) => !candidate.turnedOff)) {
      if (server.hiddenBy) states.set(server, { shadowedBy: ref(server.hiddenBy) });
      else if (server.scope !== scope) states.set(server, rivals[0] ? { shadowedBy: ref(rivals[0]) } : {});
      else states.set(server, { ambiguousWith: rivals.filter((rival) => rival.file !== server.file).map((rival) => rival.file) });
    }
  }
  return states;
}

/** Why a name reaches no server, for grep and skill to say instead of dropping it: undefined when it reaches one. */
export function unreachableReason(servers: DiscoveredServer[], name: string): string | undefined {
  const picked = pickServer(servers, name);
  if (picked === undefined || picked.ok) {
    if (picked?.ok && !picked.value.approved)
      return `it comes from the project file ${picked.value.file}, not approved yet (mcp-inspect servers --approve ${quoted(name)})`;
    return undefined;
  }
  return picked.error.replace(`"${name}" `, "");
}

function byName(servers: DiscoveredServer[]): Map<string, DiscoveredServer[]> {
  const groups = new Map<string, DiscoveredServer[]>();
  for (const server of servers) {
    const group = groups.get(server.name);
    if (group) group.push(server);
    else groups.set(server.name, [server]);
  }
  return groups;
}

function ref(server: DiscoveredServer): EntryRef {
  return { client: server.client, scope: server.scope, file: server.file };
}

/** The target an entry stands for: predefined variables and the typed inputs put in, then read as lib/targets/target.ts reads any entry. */
export function targetOf(server: DiscoveredServer, options: { env?: Env; inputs?: Record<string, string> } = {}): Result<Target> {
  const env = options.env ?? process.env;
  const missing = neededInputs(server.entry, server.inputs).filter((input) => !(options.inputs && Object.hasOwn(options.inputs, input.id)));
  if (missing.length > 0)
    return fail(`"${server.name}" in ${server.file} needs ${inputList(missing)}, typed only at a terminal (run it on one)`);
  // ${workspaceFolder} and ${userHome} are VS Code's and Cursor's; other clients' entries keep them as written.
  const expands = server.client.startsWith("vscode") || server.client === "cursor";
  const entry =
    expands || options.inputs
      ? substitute(server.entry, { workspaceFolder: server.project, userHome: userHome(env), inputs: options.inputs })
      : server.entry;
  return configEntryTarget(server.file, server.name, commonEntry(server.client, entry), env);
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
  const picked = pickServer((await discoverServers(options)).servers, name);
  if (!picked?.ok) return picked;
  const server = picked.value;
  if (!isApproved(server)) {
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
  ask.print(
    `"${server.name}" comes from the project file ${server.file} and has not been approved yet. ` +
      `It ${whatItRuns(commonEntry(server.client, server.entry))}.`,
  );
  if (!(await ask.confirm("Run it, and remember this answer for this entry?")))
    return fail(`"${server.name}" was not approved (approve it later with: ${hint})`);
  const saved = await approve(server, env);
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

/** Entries of one name that are different servers (serverIdentity), the first of each kept. */
function distinctEntries(servers: DiscoveredServer[]): DiscoveredServer[] {
  const seen = new Map<string, DiscoveredServer>();
  for (const server of servers) {
    const key = serverIdentity(server.client, server.entry);
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
