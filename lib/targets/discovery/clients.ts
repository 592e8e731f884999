// Where each MCP client keeps its servers, per OS, as its own documentation says; and which
// directory is "the project". Paths only: nothing here reads a config (`config --write` uses the
// same table, so it writes the files discovery reads).
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import type { ConfigFormat } from "../config-text.ts";

export type Env = Record<string, string | undefined>;
export type Scope = "user" | "project" | "local";
export const CLIENT_IDS = [
  "claude-desktop",
  "claude-code",
  "cursor",
  "vscode",
  "vscode-insiders",
  "windsurf",
  "codex",
  "gemini",
  "opencode",
  "copilot",
  "qwen",
  "zed",
  "cline",
  "roo-code",
  "goose",
  "lm-studio",
  "amazon-q",
] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export interface ConfigSource {
  client: ClientId;
  scope: Scope;
  file: string;
  format: ConfigFormat;
  /** Where the servers object sits in the parsed file. */
  key: string[];
  /** Among one client's files of one scope, a lower rank wins (Claude Code's nearest .mcp.json). */
  rank?: number;
}

export interface Places {
  home: string;
  /** The project directory (see projectRoot). */
  project: string;
  /** Where the command runs (the walks up to the project start here). */
  cwd?: string;
  platform: NodeJS.Platform;
  env: Env;
}

/** The project files, relative to a project directory; each needs approval before its servers run. */
export const PROJECT_FILES: { client: ClientId; path: string; format: ConfigFormat; key: string[] }[] = [
  // Claude Code: `.mcp.json` at the project root (code.claude.com/docs/en/mcp, "Project scope"), and
  // in every folder from the current one up (its own `mcp add -s project` writes the current folder's).
  { client: "claude-code", path: ".mcp.json", format: "json", key: ["mcpServers"] },
  // Cursor: `.cursor/mcp.json` in the project (cursor.com/docs, "Model Context Protocol").
  { client: "cursor", path: join(".cursor", "mcp.json"), format: "json", key: ["mcpServers"] },
  // VS Code: `.vscode/mcp.json` in the workspace, key `servers` (code.visualstudio.com, "MCP configuration reference").
  { client: "vscode", path: join(".vscode", "mcp.json"), format: "json", key: ["servers"] },
  // Gemini CLI: `.gemini/settings.json` in the project (geminicli.com/docs/tools/mcp-server).
  { client: "gemini", path: join(".gemini", "settings.json"), format: "json", key: ["mcpServers"] },
  // Codex: `.codex/config.toml`, read by Codex for trusted projects only (developers.openai.com/codex/mcp).
  { client: "codex", path: join(".codex", "config.toml"), format: "toml", key: ["mcp_servers"] },
  // Qwen Code: `.qwen/settings.json` in the project, Gemini's format (qwenlm.github.io/qwen-code-docs, "MCP servers").
  { client: "qwen", path: join(".qwen", "settings.json"), format: "json", key: ["mcpServers"] },
  // opencode: `opencode.json` (or .jsonc) in the project, key `mcp` (opencode.ai/docs/config, "Locations").
  { client: "opencode", path: "opencode.json", format: "json", key: ["mcp"] },
  { client: "opencode", path: "opencode.jsonc", format: "json", key: ["mcp"] },
  // Copilot CLI: `.github/mcp.json` in the repository (docs.github.com, "Adding MCP servers for GitHub Copilot CLI").
  { client: "copilot", path: join(".github", "mcp.json"), format: "json", key: ["mcpServers"] },
  // Zed: `.zed/settings.json` in the project, key `context_servers` (zed.dev/docs/configuring-zed, "Project settings").
  { client: "zed", path: join(".zed", "settings.json"), format: "json", key: ["context_servers"] },
  // Roo Code: `.roo/mcp.json` at the project root, over the global file (docs.roocode.com/features/mcp/using-mcp-in-roo).
  { client: "roo-code", path: join(".roo", "mcp.json"), format: "json", key: ["mcpServers"] },
  // Amazon Q Developer CLI: `.amazonq/mcp.json` in the workspace (docs.aws.amazon.com/amazonq, "MCP configuration in the CLI").
  { client: "amazon-q", path: join(".amazonq", "mcp.json"), format: "json", key: ["mcpServers"] },
];

/** The clients whose project files are read in every folder from the current one up to the project (nearest first). */
const WALKED: Partial<Record<ClientId, "to-root" | "to-project">> = {
  // Claude Code reads .mcp.json up to the file system's root (checked: `claude mcp list` in a subfolder).
  "claude-code": "to-root",
  // Codex loads .codex/config.toml in each folder from the project root to the current one, the nearest winning.
  codex: "to-project",
  // opencode looks for opencode.json from the current folder up to the git root.
  opencode: "to-project",
};

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

/** Qwen Code's home: $QWEN_HOME, default ~/.qwen (its own `mcp add -s user` writes there). */
export function qwenHome(env: Env, home: string): string {
  return env.QWEN_HOME || join(home, ".qwen");
}

/** Claude Code's own folder: $CLAUDE_CONFIG_DIR, default ~/.claude (its settings.json). */
export function claudeConfigDir(env: Env, home: string): string {
  return env.CLAUDE_CONFIG_DIR || join(home, ".claude");
}

/** opencode's global folder: $XDG_CONFIG_HOME/opencode, default ~/.config/opencode on every OS (opencode.ai/docs/config). */
function opencodeDir(env: Env, home: string): string {
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode");
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
    // geminicli.com/docs/extensions: each extension's gemini-extension.json may bring mcpServers, which Gemini starts.
    ...geminiExtensions(home).map((file) => json("gemini", file, ["mcpServers"])),
    // opencode.ai/docs/config: ~/.config/opencode/opencode.json or .jsonc (its `mcp add` writes .jsonc), key `mcp`.
    json("opencode", join(opencodeDir(env, home), "opencode.json"), ["mcp"]),
    json("opencode", join(opencodeDir(env, home), "opencode.jsonc"), ["mcp"]),
    // docs.github.com, "Adding MCP servers for GitHub Copilot CLI": ~/.copilot/mcp-config.json ($COPILOT_HOME moves it).
    json("copilot", join(env.COPILOT_HOME || join(home, ".copilot"), "mcp-config.json"), ["mcpServers"]),
    // Qwen Code: settings.json in $QWEN_HOME (default ~/.qwen), Gemini's format.
    json("qwen", join(qwenHome(env, home), "settings.json"), ["mcpServers"]),
    // zed.dev/docs/ai/mcp: `context_servers` in Zed's settings.json, ~/.config/zed (Linux, macOS) or %APPDATA%\Zed (Windows).
    json(
      "zed",
      join(places.platform === "win32" ? join(appData, "Zed") : join(env.XDG_CONFIG_HOME || join(home, ".config"), "zed"), "settings.json"),
      ["context_servers"],
    ),
    // Cline and Roo Code keep their servers in VS Code's extension storage (docs.cline.bot, "Configuring MCP servers";
    // docs.roocode.com/features/mcp/using-mcp-in-roo: mcp_settings.json).
    json("cline", join(appData, "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), [
      "mcpServers",
    ]),
    json("roo-code", join(appData, "Code", "User", "globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"), [
      "mcpServers",
    ]),
    // block.github.io/goose/docs/guides/config-files: `extensions` in ~/.config/goose/config.yaml, %APPDATA%\Block\goose\config on Windows.
    {
      client: "goose",
      scope: "user",
      file:
        places.platform === "win32"
          ? join(appData, "Block", "goose", "config", "config.yaml")
          : join(env.XDG_CONFIG_HOME || join(home, ".config"), "goose", "config.yaml"),
      format: "yaml",
      key: ["extensions"],
    },
    // lmstudio.ai/docs/app/mcp: the app's mcp.json in LM Studio's home, ~/.lmstudio, in Cursor's notation.
    json("lm-studio", join(home, ".lmstudio", "mcp.json"), ["mcpServers"]),
    // Amazon Q Developer CLI: ~/.aws/amazonq/mcp.json (docs.aws.amazon.com/amazonq, "MCP configuration in the CLI").
    json("amazon-q", join(home, ".aws", "amazonq", "mcp.json"), ["mcpServers"]),
  ];
}

/** ~/.gemini/extensions/<name>/gemini-extension.json, for each installed extension, in name order. */
function geminiExtensions(home: string): string[] {
  const dir = join(home, ".gemini", "extensions");
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(dir, entry.name, "gemini-extension.json"))
      .sort();
  } catch {
    return [];
  }
}

/** Every file to read: the user files, Claude Code's local scope (its entry for this project in ~/.claude.json), the project files. */
export function configSources(places: Places): ConfigSource[] {
  const user = userSources(places);
  const local: ConfigSource = {
    client: "claude-code",
    scope: "local",
    file: join(places.home, ".claude.json"),
    format: "json",
    // Claude Code keys its local scope by the project root (the git root), whatever the folder it runs in.
    key: ["projects", places.project, "mcpServers"],
  };
  // In the home directory itself, ~/.cursor/mcp.json and the like are user files, not project ones.
  const userFiles = new Set(user.map((source) => source.file));
  const project: ConfigSource[] = [];
  for (const { client, path, format, key } of PROJECT_FILES) {
    const walk = WALKED[client];
    const dirs = walk ? foldersUp(places.cwd ?? places.project, walk === "to-root" ? undefined : places.project) : [places.project];
    for (const [rank, dir] of dirs.entries()) project.push({ client, scope: "project", file: join(dir, path), format, key, rank });
  }
  return [...user, local, ...project.filter((source) => !userFiles.has(source.file))];
}

/** The folders from `start` up to `last` (or the file system's root), nearest first; just `start` when `last` is not above it. */
function foldersUp(start: string, last?: string): string[] {
  const dirs: string[] = [];
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === last || dirname(dir) === dir) return last === undefined || dir === last ? dirs : [resolve(start)];
  }
}

/**
 * The project root, as Claude Code and Codex key a project: the nearest folder, from `cwd` up,
 * with .git; never the home directory or above it, whose files are the user's. Without one, `cwd`.
 */
export function projectRoot(cwd: string, home: string): string {
  const start = resolve(cwd);
  const homeDir = resolve(home);
  for (let dir = start; ; dir = dirname(dir)) {
    if (dir === homeDir || homeDir.startsWith(dir.endsWith(sep) ? dir : dir + sep)) return start;
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * The folder a project file is written to: the nearest folder, from `cwd` up, that holds one of
 * the project files, else the project root (`config --write`; see projectRoot).
 */
export function findProject(cwd: string, home: string): string {
  const root = projectRoot(cwd, home);
  for (const dir of foldersUp(cwd, root)) if (PROJECT_FILES.some(({ path }) => existsSync(join(dir, path)))) return dir;
  return root;
}
