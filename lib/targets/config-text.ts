// A client config file's text as its client reads it: TOML for Codex's config.toml, else JSON,
// strict first (faster on a large ~/.claude.json), then JSONC (VS Code's comments and commas).
// Used by --config (lib/targets/target.ts) and discovery (lib/targets/discovery/read.ts) alike.
import { parse as parseToml } from "smol-toml";
import type { Result } from "../wire/result.ts";
import { parseJsonc } from "./jsonc.ts";

export type ConfigFormat = "json" | "toml";

/** The parsed value, or the parser's complaint in one line (for "<file> is not valid TOML (...)"). */
export function parseConfigText(text: string, format: ConfigFormat): Result<unknown> {
  if (format === "toml") {
    try {
      return { ok: true, value: parseToml(text) };
    } catch (error) {
      return { ok: false, error: String(error instanceof Error ? error.message : error).split("\n")[0]! };
    }
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return parseJsonc(text);
  }
}

/** The name errors give the format. */
export function formatName(format: ConfigFormat): string {
  return format === "toml" ? "TOML" : "JSON";
}
