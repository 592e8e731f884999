// `mcp-inspect servers`: every MCP server configured for this user and project, with the file it
// came from, its client and scope, how it is reached, the names (never the values) of its env and
// headers, whether a project entry is approved and whether an HTTP one has stored sign-in tokens.
// `--approve NAME` approves a project's entry of that name. Nothing is started here.
import { AuthStore } from "../lib/auth/store.ts";
import { stripControl } from "../lib/io/text.ts";
import {
  approve,
  commonEntry,
  type DiscoveredServer,
  discoverServers,
  displayUrl,
  type EntryRef,
  type Env,
  isApproved,
  neededInputs,
  needsApproval,
  serverStates,
  targetOf,
  whatItRuns,
} from "../lib/targets/discovery/index.ts";
import type { Result } from "../lib/wire/result.ts";
import { CommandError, EXIT } from "./output.ts";
import { reporter } from "./report.ts";

export type AuthState = "signed in" | "sign-in needed if the server asks" | `${string} header`;

/** Headers that carry a credential: Authorization, and the API-key and token headers services use instead. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|x-auth-token|x-access-token|.*-(api-)?key|.*-token)$/i;

export interface ServerRow {
  name: string;
  client: string;
  scope: string;
  file: string;
  project?: string;
  transport: "stdio" | "http" | "sse" | "ws";
  command?: string;
  url?: string;
  env: string[];
  envFile?: string;
  headers: string[];
  /** Project entries only. */
  approved?: boolean;
  /** HTTP entries only: whether the token store holds tokens for it. */
  auth?: AuthState;
  /** VS Code `${input:id}` values asked for when it starts. */
  inputs?: string[];
  turnedOff?: true;
  shadowedBy?: EntryRef;
  waitsForApproval?: EntryRef;
  sameAs?: EntryRef;
  ambiguousWith?: string[];
  /** Codex: the files merged into this entry (the user's, then the project's). */
  mergedFrom?: string[];
  /** Who approved a project entry: mcpkit, or the client itself. */
  approvedBy?: string;
}

export interface ServersOptions {
  approve?: string;
  json: boolean;
  /** A usage problem found by the entry script (an unknown flag). */
  problem?: string;
  env?: Env;
  cwd?: string;
}

export async function runServers(options: ServersOptions): Promise<number> {
  const report = reporter(options.approve === undefined ? "servers" : "servers --approve", options.json, options.approve ?? "");
  const fail = (error: CommandError) => {
    report.fail(error);
    return error.exitCode;
  };
  if (options.problem) return fail(new CommandError(EXIT.usage, options.problem));
  const env = options.env ?? process.env;
  const found = await discoverServers({ env, cwd: options.cwd });
  if (!options.json) for (const problem of found.problems) process.stderr.write(`warning: ${stripControl(problem)}\n`);

  if (options.approve !== undefined) {
    const approved = await approveNamed(found.servers, options.approve, env);
    if (!approved.ok) return fail(approved.error);
    const said = approved.value.map(
      ({ name, file, runs }) => `approved "${stripControl(name)}" from ${stripControl(file)}: it ${stripControl(runs)}\n`,
    );
    report.succeed({ approved: approved.value }, () => said.join(""));
    return EXIT.ok;
  }

  const rows = describeServers(found.servers, env, found.problems);
  if (rows.length === 0) {
    return fail(
      new CommandError(
        EXIT.nothingThere,
        `no MCP servers are configured for this user or project (looked in ${found.looked.length} client files; see mcp-inspect ` +
          `servers --help)`,
        { looked: found.looked, problems: found.problems },
      ),
    );
  }
  report.succeed({ servers: rows, project: found.project, problems: found.problems }, () => `${rows.map(textRow).join("\n")}\n`);
  return EXIT.ok;
}

/** The rows `servers` prints: what an entry is, never a value of its env or headers. */
export function describeServers(servers: DiscoveredServer[], env: Env, problems: string[] = []): ServerRow[] {
  const states = serverStates(servers);
  const hasUrl = servers.some((server) =>
    [server.entry.url, server.entry.serverUrl, server.entry.httpUrl].some((value) => typeof value === "string"),
  );
  const signedIn = hasUrl ? storedResources(env, problems) : new Set<string>();
  return servers.map((server) => {
    const entry = commonEntry(server.client, server.entry);
    const rawUrl = [entry.url, entry.serverUrl, entry.httpUrl].find((value): value is string => typeof value === "string");
    const headers = [
      ...keys(entry.headers),
      ...keys(entry.http_headers),
      ...keys(entry.env_http_headers),
      ...(typeof entry.bearer_token_env_var === "string" ? ["Authorization"] : []),
    ];
    const variables = [...keys(entry.env), ...(Array.isArray(entry.env_vars) ? entry.env_vars.map(String) : [])];
    const inputs = neededInputs(entry, server.inputs).map((input) => input.id);
    const row: ServerRow = {
      name: server.name,
      client: server.client,
      scope: server.scope,
      file: server.file,
      ...(server.scope === "user" ? {} : { project: server.project }),
      transport: rawUrl === undefined ? "stdio" : transportOf(entry, rawUrl),
      ...(rawUrl === undefined ? { command: String(entry.command ?? "") } : { url: displayUrl(rawUrl) }),
      env: [...new Set(variables)],
      ...(typeof entry.envFile === "string" ? { envFile: entry.envFile } : {}),
      headers: [...new Set(headers)],
      ...(needsApproval(server) ? { approved: isApproved(server), ...(server.approvedBy ? { approvedBy: server.approvedBy } : {}) } : {}),
      ...(server.mergedFrom ? { mergedFrom: server.mergedFrom } : {}),
      ...(inputs.length > 0 ? { inputs } : {}),
      ...(server.turnedOff ? { turnedOff: true as const } : {}),
      ...states.get(server),
    };
    if (rawUrl !== undefined) {
      const authorized = headers.find((name) => CREDENTIAL_HEADER.test(name));
      row.auth = authorized
        ? `${authorized} header`
        : signedIn.has(resourceOf(server, env, rawUrl))
          ? "signed in"
          : "sign-in needed if the server asks";
    }
    return row;
  });
}

/** `--approve NAME`: every project entry of that name (a user or local entry needs none). */
async function approveNamed(
  servers: DiscoveredServer[],
  name: string,
  env: Env,
): Promise<Result<{ name: string; file: string; runs: string }[], CommandError>> {
  const named = servers.filter((server) => server.name === name);
  const project = named.filter(needsApproval);
  if (named.length === 0)
    return { ok: false, error: new CommandError(EXIT.usage, `no configured server is named "${name}" (see mcp-inspect servers)`) };
  if (project.length === 0)
    return {
      ok: false,
      error: new CommandError(
        EXIT.usage,
        `"${name}" is a ${named[0]!.scope} entry in ${named[0]!.file}; only project entries need approval`,
      ),
    };
  const approved = [];
  for (const server of project) {
    const saved = await approve(server, env);
    if (!saved.ok) return { ok: false, error: new CommandError(EXIT.usage, saved.error) };
    approved.push({ name: server.name, file: server.file, runs: whatItRuns(commonEntry(server.client, server.entry)) });
  }
  return { ok: true, value: approved };
}

/** The resources the token store holds tokens for (never a token itself). */
function storedResources(env: Env, problems: string[]): Set<string> {
  try {
    return new Set(
      AuthStore.open(env)
        .list()
        .filter((entry) => entry.tokens)
        .map((entry) => entry.resource),
    );
  } catch (error) {
    problems.push((error as Error).message);
    return new Set();
  }
}

/** The URL the token store keys it by: the entry's URL with its variables expanded, as a target has it. */
function resourceOf(server: DiscoveredServer, env: Env, rawUrl: string): string {
  const target = targetOf(server, { env });
  if (target.ok && target.value.kind === "http") return target.value.url;
  try {
    return new URL(rawUrl).href;
  } catch {
    return rawUrl;
  }
}

function describeRef(entry: EntryRef): string {
  return `${entry.client} ${entry.scope} entry in ${entry.file}`;
}

function textRow(row: ServerRow): string {
  const notes = [
    row.approved === false ? `not approved (mcp-inspect servers --approve ${row.name})` : "",
    row.turnedOff ? "turned off" : "",
    row.approvedBy && row.approvedBy !== "mcpkit" ? `approved by ${row.approvedBy}` : "",
    row.waitsForApproval ? `waits for approval; until then the ${describeRef(row.waitsForApproval)} runs` : "",
    row.shadowedBy ? `shadowed by the ${describeRef(row.shadowedBy)}` : "",
    row.sameAs ? `the same server as the ${describeRef(row.sameAs)}` : "",
    row.mergedFrom && row.mergedFrom.length > 1 ? `merged from ${row.mergedFrom.join(", ")}` : "",
    row.ambiguousWith ? `ambiguous with ${row.ambiguousWith.join(", ")}` : "",
  ].filter(Boolean);
  const how = [
    row.transport === "stdio" ? `stdio ${row.command}` : `${row.transport} ${row.url}`,
    row.env.length ? `env ${row.env.join(", ")}` : "",
    row.envFile ? `envFile ${row.envFile}` : "",
    row.headers.length ? `headers ${row.headers.join(", ")}` : "",
    row.inputs ? `inputs ${row.inputs.join(", ")}` : "",
    row.auth ?? "",
  ].filter(Boolean);
  // One line each, whatever a file holds: control characters and line breaks go.
  const line = (text: string) => stripControl(text).replace(/[\r\n]+/g, " ");
  return (
    `${line(`${row.name}  ${row.client}, ${row.scope}: ${row.file}${notes.length ? `  [${notes.join("; ")}]` : ""}`)}\n    ` +
    `${line(how.join(" · "))}`
  );
}

/** How an entry with a URL is reached: SSE when its type says so, WebSocket for a ws:// URL, else Streamable HTTP. */
function transportOf(entry: Record<string, unknown>, url: string): ServerRow["transport"] {
  if (/^wss?:/i.test(url) || entry.type === "ws" || entry.type === "websocket") return "ws";
  return entry.type === "sse" || entry.transport === "sse" ? "sse" : "http";
}

function keys(value: unknown): string[] {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
}
