// Where each MCP client keeps its servers, per OS, as its own documentation says; and which
// directory is "the project". Paths only: nothing here reads a config (`config --write` uses the
// same table, so it writes the files discovery reads).
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";

export type Env = Record<string, string | undefined>;
export type Scope = "user" | "project" | "local";
export const CLIENT_IDS = ["claude-desktop", "claude-code", "cursor", "vscode", "vscode-insiders", "windsurf", "codex", "gemini"] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export interface ConfigSource {
  client: ClientId;
  scope: Scope;
  file: string;
  format: "json" | "toml";
  /** Where the servers object sits in the parsed file. */
  key: string[];
}

export interface Places {
  home: string;
  /** The project directory (see findProject). */
  project: string;
  platform: NodeJS.Platform;
  env: Env;
}

/** The project files, relative to the project directory; each needs the user's approval before its servers run. */
export const PROJECT_FILES: { client: ClientId; path: string; format: "json" | "toml"; key: string[] }[] = [
  // Claude Code: `.mcp.json` at the project root (code.claude.com/docs/en/mcp, "Project scope").
  { client: "claude-code", path: ".mcp.json", format: "json", key: ["mcpServers"] },
  // Cursor: `.cursor/mcp.json` in the project (cursor.com/docs, "Model Context Protocol").
  { client: "cursor", path: join(".cursor", "mcp.json"), format: "json", key: ["mcpServers"] },
  // VS Code: `.vscode/mcp.json` in the workspace, key `servers` (code.visualstudio.com, "MCP configuration reference").
  { client: "vscode", path: join(".vscode", "mcp.json"), format: "json", key: ["servers"] },
  // Gemini CLI: `.gemini/settings.json` in the project (geminicli.com/docs/tools/mcp-server).
  { client: "gemini", path: join(".gemini", "settings.json"), format: "json", key: ["mcpServers"] },
  // Codex: `.codex/config.toml`, read by Codex for trusted projects only (developers.openai.com/codex/mcp).
  { client: "codex", path: join(".codex", "config.toml"), format: "toml", key: ["mcp_servers"] },
];

export function userHome(env: Env): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/**
 * Where desktop apps keep their settings: ~/Library/Application Support on macOS, %APPDATA% on
 * Windows, $XDG_CONFIG_HOME (default ~/.config) elsewhere, as Electron's appData, which Claude
 * Desktop and VS Code use. Claude Desktop has no official Linux build; community builds use this.
 */
export function appDataDir(places: Pick<Places, "home" | "platform" | "env">): string {
  const { home, platform, env } = places;
  if (platform === "darwin") return join(home, "Library", "Application Support");
  if (platform === "win32") return env.APPDATA || join(home, "AppData", "Roaming");
  return env.XDG_CONFIG_HOME || join(home, ".config");
}

/** Codex's home: $CODEX_HOME, default ~/.codex (developers.openai.com/codex/config). */
export function codexHome(env: Env, home: string): string {
  return env.CODEX_HOME || join(home, ".codex");
}

/** The user-wide files of each client. */
export function userSources(places: Places): ConfigSource[] {
  const { home, env } = places;
  const appData = appDataDir(places);
  const json = (client: ClientId, file: string, key: string[]): ConfigSource => ({ client, scope: "user", file, format: "json", key });
  return [
    // modelcontextprotocol.io/quickstart/user: claude_desktop_config.json under the app's settings folder.
    json("claude-desktop", join(appData, "Claude", "claude_desktop_config.json"), ["mcpServers"]),
    // code.claude.com/docs/en/mcp: user scope is the top-level `mcpServers` of ~/.claude.json.
    json("claude-code", join(home, ".claude.json"), ["mcpServers"]),
    json("cursor", join(home, ".cursor", "mcp.json"), ["mcpServers"]),
    // VS Code's user profile folder holds mcp.json (the default profile; named profiles are not read).
    json("vscode", join(appData, "Code", "User", "mcp.json"), ["servers"]),
    json("vscode-insiders", join(appData, "Code - Insiders", "User", "mcp.json"), ["servers"]),
    // docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json on every OS.
    json("windsurf", join(home, ".codeium", "windsurf", "mcp_config.json"), ["mcpServers"]),
    { client: "codex", scope: "user", file: join(codexHome(env, home), "config.toml"), format: "toml", key: ["mcp_servers"] },
    json("gemini", join(home, ".gemini", "settings.json"), ["mcpServers"]),
  ];
}

/** Every file to read: the user files, Claude Code's local scope (its entry for this project in ~/.claude.json), the project files. */
export function configSources(places: Places): ConfigSource[] {
  const user = userSources(places);
  const local: ConfigSource = {
    client: "claude-code",
    scope: "local",
    file: join(places.home, ".claude.json"),
    format: "json",
    key: ["projects", places.project, "mcpServers"],
  };
  // In the home directory itself, ~/.cursor/mcp.json and the like are user files, not project ones.
  const userFiles = new Set(user.map((source) => source.file));
  const project = PROJECT_FILES.map(
    ({ client, path, format, key }): ConfigSource => ({ client, scope: "project", file: join(places.project, path), format, key }),
  ).filter((source) => !userFiles.has(source.file));
  return [...user, local, ...project];
}

/**
 * The project directory: the nearest directory, from `cwd` up, that holds one of the project
 * files, as the clients find their project roots; the walk stops at a repository's root (a
 * directory with .git) and never reaches the home directory or above it, whose files are the
 * user's. With no project file on the way, the repository root, else `cwd`.
 */
export function findProject(cwd: string, home: string): string {
  const start = resolve(cwd);
  const homeDir = resolve(home);
  for (let dir = start; ; dir = dirname(dir)) {
    if (dir === homeDir || homeDir.startsWith(dir.endsWith(sep) ? dir : dir + sep)) return start;
    if (PROJECT_FILES.some(({ path }) => existsSync(join(dir, path)))) return dir;
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return start;
  }
}
