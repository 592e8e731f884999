// `<tool> config`: the exact entry an MCP client needs to run one of our tools, with the
// absolute path of the binary (apps started from the dock do not see the shell's PATH), and with
// --write, merged into that client's config file after a backup, never touching other entries.
// The files are the ones discovery reads (lib/targets/discovery/clients.ts).
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readFileCappedSync } from "../../io/read-capped.ts";
import { MAX_CONFIG_BYTES } from "../../wire/limits.ts";
import type { Result } from "../../wire/result.ts";
import type { ConfigFormat } from "../config-text.ts";
import { type ClientId, findProject, PROJECT_FILES, userHome, userSources } from "../discovery/clients.ts";
import { parseJsonc, setJsoncValue } from "../jsonc.ts";

/** claude-code and vscode write the project's file (.mcp.json, .vscode/mcp.json); the others the user's. */
export const CLIENTS = ["claude-desktop", "claude-code", "claude-code-user", "cursor", "vscode", "windsurf", "gemini", "codex"] as const;
export type ClientName = (typeof CLIENTS)[number];

export interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Where each client keeps its servers, under which key, in which format. */
export function clientConfigLocation(
  client: ClientName,
  cwd = process.cwd(),
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
): { file: string; key: string; format: ConfigFormat; scope: "user" | "project" } {
  const home = userHome(env);
  if (client === "claude-code" || client === "vscode") {
    const project = PROJECT_FILES.find((source) => source.client === client)!;
    return { file: join(findProject(cwd, home), project.path), key: project.key[0]!, format: project.format, scope: "project" };
  }
  const id: ClientId = client === "claude-code-user" ? "claude-code" : client;
  const user = userSources({ home, project: cwd, platform, env }).find((source) => source.client === id)!;
  return { file: user.file, key: user.key[0]!, format: user.format, scope: "user" };
}

/**
 * How a client should start `tool` with `args`: the tool's own binary, the multi-tool binary
 * with the tool's name first, or (from source) bun with the entry script.
 */
export function toolCommand(tool: string, args: string[], execPath = process.execPath, entryScript?: string): ServerEntry {
  const binary = basename(execPath).replace(/\.exe$/i, "");
  if (binary === tool) return { command: execPath, args };
  if (binary === "mcpkit") {
    // A link named after the tool sits next to the binary when installed; prefer it, it reads better.
    const link = join(dirname(execPath), tool);
    return existsSync(link) ? { command: link, args } : { command: execPath, args: [tool, ...args] };
  }
  return { command: execPath, args: [resolve(entryScript ?? `${tool}.ts`), ...args] };
}

/**
 * The entry in the client's own format (Claude Code and VS Code want a type), its env as env (never
 * in args, which `claude mcp list` and `codex mcp list` print), and each variable in `passed`
 * handed on from the client's own environment in the client's own syntax, for the client to expand.
 */
export function clientEntry(client: ClientName, entry: ServerEntry, passed: string[] = []): Record<string, unknown> {
  const typed = client === "claude-code" || client === "claude-code-user" || client === "vscode" ? { type: "stdio" } : {};
  const handedOn = handsOnVariables(client) ? Object.fromEntries(passed.map((name) => [name, variableIn(client, name)])) : {};
  const env = { ...handedOn, ...entry.env };
  return {
    ...typed,
    command: entry.command,
    args: entry.args,
    ...(Object.keys(env).length > 0 ? { env } : {}),
    // Codex passes on only the variables `env_vars` names (developers.openai.com/codex/mcp).
    ...(client === "codex" && passed.length > 0 ? { env_vars: passed } : {}),
  };
}

/** Whether a client's env values can name a variable of its own environment (Claude Desktop's cannot; Codex uses env_vars). */
export function handsOnVariables(client: ClientName): boolean {
  return client !== "claude-desktop" && client !== "codex";
}

/** How a client's entry says "this variable of my environment": `${env:NAME}` in VS Code, Cursor and Windsurf, else `${NAME}`. */
function variableIn(client: ClientName, name: string): string {
  return client === "vscode" || client === "cursor" || client === "windsurf" ? `\${env:${name}}` : `\${${name}}`;
}

/**
 * Adds (or replaces) one server in a config file, editing only that entry: comments, trailing
 * commas and the rest of the file stay as they were. A timestamped backup is made first; when the
 * file cannot be written, the backup is removed again and nothing has changed.
 */
export function mergeIntoConfig(
  file: string,
  key: string,
  name: string,
  entry: Record<string, unknown>,
  now = new Date(),
): Result<{ backup?: string }> {
  const existing = readExisting(file);
  if (!existing.ok) return existing;
  const text = existing.value;
  if (text !== "") {
    const parsed = parseJsonc(text);
    if (!parsed.ok) return { ok: false, error: `${file} is not valid JSON (${parsed.error}); fix it first, nothing was changed` };
    const config = parsed.value ?? {};
    if (typeof config !== "object" || config === null || Array.isArray(config))
      return { ok: false, error: `${file} is not a JSON object; fix it first, nothing was changed` };
    const servers = (config as Record<string, unknown>)[key];
    if (servers !== undefined && (typeof servers !== "object" || servers === null || Array.isArray(servers))) {
      return { ok: false, error: `"${key}" in ${file} is not an object; fix it first, nothing was changed` };
    }
  }
  return writeWithBackup(file, text, setJsoncValue(text, [key, name], entry), now);
}

/** The same for Codex's config.toml (`[mcp_servers.<name>]`), comments and all other tables kept (lib/targets/client-config/toml.ts). */
export async function mergeIntoToml(
  file: string,
  name: string,
  entry: Record<string, unknown>,
  now = new Date(),
): Promise<Result<{ backup?: string }>> {
  const existing = readExisting(file);
  if (!existing.ok) return existing;
  const { tomlWithServer } = await import("./toml.ts");
  const updated = tomlWithServer(existing.value, name, entry, file);
  return updated.ok ? writeWithBackup(file, existing.value, updated.value, now) : updated;
}

function readExisting(file: string): Result<string> {
  if (!existsSync(file)) return { ok: true, value: "" };
  const read = readFileCappedSync(file, MAX_CONFIG_BYTES);
  if (!read.ok)
    return {
      ok: false,
      error:
        read.error.reason === "too-large"
          ? `${file} is over the ${MAX_CONFIG_BYTES}-byte limit; nothing was changed`
          : `cannot read ${file} (${read.error.detail})`,
    };
  return { ok: true, value: read.value };
}

/** Writes `updated` over `file` after a timestamped copy of it; when the write fails, the copy goes again and nothing has changed. */
function writeWithBackup(file: string, text: string, updated: string, now: Date): Result<{ backup?: string }> {
  let backup: string | undefined;
  try {
    if (text !== "" || existsSync(file)) {
      const copy = `${file}.bak-${now.toISOString().replace(/[:.]/g, "-")}`;
      copyFileSync(file, copy);
      backup = copy;
    } else {
      mkdirSync(dirname(file), { recursive: true });
    }
    writeFileSync(file, updated.endsWith("\n") ? updated : `${updated}\n`);
  } catch (error) {
    if (backup) {
      try {
        rmSync(backup, { force: true });
      } catch {
        // The backup is a copy of the unchanged file; leaving it is harmless.
      }
    }
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const why =
      code === "EROFS"
        ? "a read-only file system"
        : code === "EACCES" || code === "EPERM"
          ? "no permission"
          : code || (error as Error).message;
    return { ok: false, error: `cannot write ${file} (${why}); nothing was changed` };
  }
  return { ok: true, value: backup ? { backup } : {} };
}
