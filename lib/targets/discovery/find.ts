// Reading every client's files into one list of servers, each with its file, client and scope.
import { isTurnedOff } from "../config-entry.ts";
import { type ClientId, configSources, type Env, findProject, type Scope, userHome } from "./clients.ts";
import { type InputDefinition, type ParseCache, readSource } from "./read.ts";

export interface DiscoveredServer {
  name: string;
  client: ClientId;
  scope: Scope;
  /** The file it came from (for the local scope, ~/.claude.json). */
  file: string;
  /** The project directory discovery found (a project or local entry belongs to it; VS Code's ${workspaceFolder}). */
  project: string;
  /** The entry as written: no variable expanded, nothing normalized. */
  entry: Record<string, unknown>;
  /** VS Code: the `inputs` its file defines, for the `${input:id}` it may use. */
  inputs: InputDefinition[];
  /** Codex `enabled = false`, Windsurf `"disabled": true`: listed, never started by name. */
  turnedOff: boolean;
}

export interface DiscoveryOptions {
  /** HOME (USERPROFILE), APPDATA, XDG_CONFIG_HOME, CODEX_HOME, and the variables entries expand. */
  env?: Env;
  /** Where the project is looked for (default: the current directory). */
  cwd?: string;
  platform?: NodeJS.Platform;
}

export interface Discovery {
  servers: DiscoveredServer[];
  /** Files that could not be read or parsed, one line each (the rest is still found). */
  problems: string[];
  project: string;
  /** Every file looked at, there or not. */
  looked: string[];
}

export function discoverServers(options: DiscoveryOptions = {}): Discovery {
  const env = options.env ?? process.env;
  const home = userHome(env);
  const project = findProject(options.cwd ?? process.cwd(), home);
  const cache: ParseCache = new Map();
  const servers: DiscoveredServer[] = [];
  const problems = new Set<string>();
  const sources = configSources({ home, project, platform: options.platform ?? process.platform, env });
  for (const source of sources) {
    const read = readSource(source, cache);
    for (const problem of read.problems) problems.add(problem);
    for (const [name, entry] of read.entries) {
      servers.push({
        name,
        client: source.client,
        scope: source.scope,
        file: source.file,
        project,
        entry,
        inputs: read.inputs,
        turnedOff: isTurnedOff(entry),
      });
    }
  }
  return { servers, problems: [...problems], project, looked: [...new Set(sources.map((source) => source.file))] };
}
