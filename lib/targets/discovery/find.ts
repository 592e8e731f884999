// Reading every client's files into one list of servers, each with its file, client and scope,
// and what the client itself decided about it: a nearer file of the same client hiding it,
// Codex's project layer merged over the user's entry, an approval the client recorded.
import { dirname, resolve } from "node:path";
import { CONFIG_READ_TIMEOUT_MS } from "../../wire/limits.ts";
import { isTurnedOff } from "../config-entry.ts";
import { type Approval, readApprovals, recordedApproval } from "./approval.ts";
import { type ClientApprovals, clientApprovals, geminiTrusts, insideAny, layered } from "./client-rules.ts";
import { type ClientId, type ConfigSource, configSources, type Env, projectRoot, type Scope, userHome } from "./clients.ts";
import { runsOnItsOwn } from "./common-entry.ts";
import { type InputDefinition, type ParseCache, type ReadSource, readSource } from "./read.ts";

export interface DiscoveredServer {
  name: string;
  client: ClientId;
  scope: Scope;
  /** The file it came from (for the local scope, ~/.claude.json). */
  file: string;
  /** The project directory discovery found (a project or local entry belongs to it; VS Code's ${workspaceFolder}). */
  project: string;
  /** The entry as written: no variable expanded (a Codex project entry: laid over the user's, as Codex does). */
  entry: Record<string, unknown>;
  /** VS Code: the `inputs` its file defines, for the `${input:id}` it may use. */
  inputs: InputDefinition[];
  /** Codex `enabled = false`, Windsurf `"disabled": true`, a .mcp.json name Claude Code rejects: listed, never started by name. */
  turnedOff: boolean;
  /** User and local entries always; a project entry once approved, here or by its client. */
  approved: boolean;
  /** Who approved a project entry. */
  approvedBy?: "mcpkit" | ClientId;
  /** The same client's entry of this name that it uses instead (a nearer .mcp.json, Codex's merged entry). */
  hiddenBy?: DiscoveredServer;
  /** Codex: the files merged into this entry, the user's first. */
  mergedFrom?: string[];
}

export interface DiscoveryOptions {
  /** HOME (USERPROFILE), APPDATA, XDG_CONFIG_HOME, CODEX_HOME, QWEN_HOME, and the variables entries expand. */
  env?: Env;
  /** Where the project is looked for (default: the current directory). */
  cwd?: string;
  platform?: NodeJS.Platform;
  /** How long reading every file may take (--timeout; CONFIG_READ_TIMEOUT_MS without one). */
  timeoutMs?: number;
}

export interface Discovery {
  servers: DiscoveredServer[];
  /** Files that could not be read or parsed, one line each (the rest is still found). */
  problems: string[];
  project: string;
  /** Every file looked at, there or not. */
  looked: string[];
}

export async function discoverServers(options: DiscoveryOptions = {}): Promise<Discovery> {
  const env = options.env ?? process.env;
  const home = userHome(env);
  const cwd = resolve(options.cwd ?? process.cwd());
  const project = projectRoot(cwd, home);
  const cache: ParseCache = new Map();
  const signal = AbortSignal.timeout(options.timeoutMs ?? CONFIG_READ_TIMEOUT_MS);
  const sources = configSources({ home, project, cwd, platform: options.platform ?? process.platform, env });
  const [reads, recorded, approvals] = await Promise.all([
    Promise.all(sources.map((source) => readSource(source, cache, signal))),
    clientApprovals(home, env, signal),
    readApprovals(env, signal),
  ]);
  const problems = new Set<string>();
  const servers: DiscoveredServer[] = [];
  const nearest = new Map<string, DiscoveredServer>();
  for (const [index, source] of sources.entries()) {
    const read = reads[index]!;
    for (const problem of read.problems) problems.add(problem);
    for (const [name, entry] of read.entries) {
      if (!runsOnItsOwn(source.client, entry)) continue;
      const server: DiscoveredServer = {
        name,
        client: source.client,
        scope: source.scope,
        file: source.file,
        project,
        entry,
        inputs: read.inputs,
        turnedOff: isTurnedOff(entry),
        approved: source.scope !== "project",
      };
      // Sources of one client and scope come nearest first: a farther entry of the name is hidden by the nearer one.
      const key = `${source.client}\0${source.scope}\0${name}`;
      const seen = nearest.get(key);
      if (seen && source.rank !== undefined) server.hiddenBy = seen;
      else nearest.set(key, server);
      servers.push(server);
    }
  }
  mergeCodexProjects(servers, sources, reads);
  for (const server of servers) decideApproval(server, recorded, approvals, cwd);
  return { servers, problems: [...problems], project, looked: [...new Set(sources.map((source) => source.file))] };
}

/** Codex lays each trusted project's [mcp_servers.X] over the user's, nearest folder last (checked with `codex mcp get --json`). */
function mergeCodexProjects(servers: DiscoveredServer[], sources: ConfigSource[], reads: ReadSource[]): void {
  const user = new Map(servers.filter((s) => s.client === "codex" && s.scope === "user").map((s) => [s.name, s]));
  const layers = new Map<string, { file: string; entry: Record<string, unknown> }[]>();
  for (const [index, source] of sources.entries()) {
    if (source.client !== "codex" || source.scope !== "project") continue;
    for (const [name, entry] of reads[index]!.entries) layers.set(name, [{ file: source.file, entry }, ...(layers.get(name) ?? [])]);
  }
  for (const server of servers) {
    if (server.client !== "codex" || server.scope !== "project" || server.hiddenBy) continue;
    const under = user.get(server.name);
    const files = layers.get(server.name) ?? [];
    server.entry = files.reduce((merged, layer) => layered(merged, layer.entry), under?.entry ?? {});
    server.mergedFrom = [...(under ? [under.file] : []), ...files.map((layer) => layer.file)];
    server.turnedOff = isTurnedOff(server.entry);
  }
}

function decideApproval(server: DiscoveredServer, recorded: ClientApprovals, approvals: Approval[], cwd: string) {
  if (server.scope !== "project") return;
  if (server.client === "claude-code" && recorded.claudeRejected.has(server.name)) server.turnedOff = true;
  const byClient =
    (server.client === "claude-code" && (recorded.claudeApproved === "all" || recorded.claudeApproved.has(server.name))) ||
    (server.client === "codex" && foldersBetween(cwd, server.project).some((dir) => recorded.codexTrusted.has(dir))) ||
    (server.client === "gemini" && geminiTrusts(recorded.geminiRules, server.project)) ||
    (server.client === "copilot" && insideAny(recorded.copilotTrusted, server.project));
  if (byClient) Object.assign(server, { approved: true, approvedBy: server.client });
  else if (recordedApproval(approvals, server)) Object.assign(server, { approved: true, approvedBy: "mcpkit" });
}

function foldersBetween(cwd: string, root: string): string[] {
  const dirs = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root || dirname(dir) === dir) return dirs;
  }
}
