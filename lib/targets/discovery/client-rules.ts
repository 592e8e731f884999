// What a client itself decides about its project entries, read from its own files: whether it
// approved them (Claude Code's enabledMcpjsonServers in the user's settings, Codex's trusted
// projects, Gemini CLI's and Copilot CLI's trusted folders) or turned them down, and how Codex
// lays a trusted project's [mcp_servers.X] over the user's, field by field. A project's own files
// never approve that project's servers.
import { dirname, join, resolve, sep } from "node:path";
import { isJsonObject } from "../../wire/jsonrpc.ts";
import { readConfigFile } from "../config-file.ts";
import { claudeConfigDir, codexHome, type Env } from "./clients.ts";

export interface ClientApprovals {
  /** Claude Code: .mcp.json names approved in ~/.claude/settings.json, or every one (enableAllProjectMcpServers). */
  claudeApproved: Set<string> | "all";
  /** Claude Code: .mcp.json names turned down there (disabledMcpjsonServers). */
  claudeRejected: Set<string>;
  /** Codex: the project folders its config.toml trusts (`[projects."<dir>"] trust_level = "trusted"`). */
  codexTrusted: Set<string>;
  /** Gemini CLI's folder trust rules (~/.gemini/trustedFolders.json): a path and TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST. */
  geminiRules: [path: string, level: string][];
  /** Copilot CLI: the folders its config.json trusts (`trusted_folders`); it reads a workspace's servers only inside one. */
  copilotTrusted: string[];
}

export async function clientApprovals(home: string, env: Env, signal?: AbortSignal): Promise<ClientApprovals> {
  // code.claude.com/docs/en/settings: enabledMcpjsonServers, disabledMcpjsonServers, enableAllProjectMcpServers.
  const [claude, codex, gemini, copilot] = await Promise.all([
    readConfigFile(join(claudeConfigDir(env, home), "settings.json"), "json", signal),
    readConfigFile(join(codexHome(env, home), "config.toml"), "toml", signal),
    // $GEMINI_CLI_TRUSTED_FOLDERS_PATH moves it, as Gemini CLI's own Storage.getTrustedFoldersPath does.
    readConfigFile(env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(home, ".gemini", "trustedFolders.json"), "json", signal),
    readConfigFile(join(env.COPILOT_HOME || join(home, ".copilot"), "config.json"), "json", signal),
  ]);
  const copilotConfig = copilot.ok && isJsonObject(copilot.value) ? copilot.value : {};
  const settings = claude.ok && isJsonObject(claude.value) ? claude.value : {};
  const names = (value: unknown) => new Set(Array.isArray(value) ? value.filter((name) => typeof name === "string") : []);
  const projects = codex.ok && isJsonObject(codex.value) && isJsonObject(codex.value.projects) ? codex.value.projects : {};
  return {
    claudeApproved: settings.enableAllProjectMcpServers === true ? "all" : names(settings.enabledMcpjsonServers),
    claudeRejected: names(settings.disabledMcpjsonServers),
    codexTrusted: new Set(
      Object.entries(projects)
        .filter(([, project]) => isJsonObject(project) && project.trust_level === "trusted")
        .map(([dir]) => dir),
    ),
    geminiRules: Object.entries(gemini.ok && isJsonObject(gemini.value) ? gemini.value : {}).filter(
      (rule): rule is [string, string] => typeof rule[1] === "string",
    ),
    copilotTrusted: [...names(copilotConfig.trusted_folders)],
  };
}

/** Whether `folder` is one of `trusted` or inside one (Copilot CLI: a trusted parent trusts the folders below it). */
export function insideAny(trusted: string[], folder: string): boolean {
  return trusted.some((dir) => {
    const holder = resolve(dir);
    return folder === holder || folder.startsWith(holder.endsWith(sep) ? holder : holder + sep);
  });
}

/**
 * Whether Gemini CLI trusts the folder: the longest rule whose folder holds it decides (a
 * TRUST_PARENT rule stands for the folder above its path), as its isPathTrusted does.
 */
export function geminiTrusts(rules: ClientApprovals["geminiRules"], folder: string): boolean {
  let decided: [length: number, level: string] | undefined;
  for (const [path, level] of rules) {
    const inside = insideAny([level === "TRUST_PARENT" ? dirname(path) : path], folder);
    if (inside && (decided === undefined || path.length > decided[0])) decided = [path.length, level];
  }
  return decided?.[1] === "TRUST_FOLDER" || decided?.[1] === "TRUST_PARENT";
}

/** Codex's layering: tables merged key by key, any other value (an array included) replaced. */
export function layered(under: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...under };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    out[key] = isJsonObject(below) && isJsonObject(value) ? layered(below, value) : value;
  }
  return out;
}
