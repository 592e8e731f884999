// A client config file's text as its client reads it: TOML for Codex's config.toml, else JSON,
// strict first (faster on a large ~/.claude.json), then JSONC (VS Code's comments and commas).
// Nesting past MAX_CONFIG_DEPTH is refused before any parser sees the text (jsonc-parser recurses
// and overflows its stack on a few megabytes of `[`), and again after (TOML nests by dotted keys).
// Used by --config (lib/targets/config-entry.ts) and discovery (lib/targets/config-file.ts) alike.
import { parse as parseToml } from "smol-toml";
import { isJsonObject } from "../wire/jsonrpc.ts";
import { MAX_CONFIG_DEPTH } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";
import { parseJsonc } from "./jsonc.ts";

export type ConfigFormat = "json" | "toml" | "yaml";

const TOO_DEEP = `nested deeper than ${MAX_CONFIG_DEPTH} levels`;

/** The parsed value, or the parser's complaint in one line (for "<file> is not valid TOML (...)"). */
export function parseConfigText(text: string, format: ConfigFormat): Result<unknown> {
  if (bracketDepthOver(text, format, MAX_CONFIG_DEPTH)) return { ok: false, error: TOO_DEEP };
  const parsed = parseUnchecked(text, format);
  if (parsed.ok && valueDepthOver(parsed.value, MAX_CONFIG_DEPTH)) return { ok: false, error: TOO_DEEP };
  return parsed;
}

function parseUnchecked(text: string, format: ConfigFormat): Result<unknown> {
  if (format === "yaml") return parseYaml(text);
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
  return format === "toml" ? "TOML" : format === "yaml" ? "YAML" : "JSON";
}

/** The runtime's YAML parser where it has one (bun's; Goose's config.yaml is the one YAML file read). */
type YamlParser = { parse(text: string): unknown };

function parseYaml(text: string): Result<unknown> {
  const yaml = (globalThis as { Bun?: { YAML?: YamlParser } }).Bun?.YAML;
  if (!yaml) return { ok: false, error: "YAML is read only when running under bun" };
  try {
    return { ok: true, value: yaml.parse(text) };
  } catch (error) {
    return { ok: false, error: String(error instanceof Error ? error.message : error).split("\n")[0]! };
  }
}

/**
 * Whether `[` and `{` outside strings and comments nest past `limit`, in one pass: JSON strings and
 * `//`, `/* *\/` comments (JSONC); TOML's four string forms and `#` comments; YAML's flow collections alike.
 */
function bracketDepthOver(text: string, format: ConfigFormat, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "[" || char === "{") {
      if (++depth > limit) return true;
    } else if (char === "]" || char === "}") depth = Math.max(0, depth - 1);
    else if (char === '"' || (char === "'" && format !== "json")) i = stringEnd(text, i, format);
    else if (format !== "json" && char === "#") i = lineEnd(text, i);
    else if (format === "json" && char === "/" && text[i + 1] === "/") i = lineEnd(text, i);
    else if (format === "json" && char === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? text.length : close + 1;
    }
  }
  return false;
}

/** The index of the quote that closes the string opening at `start` (TOML's ''' and """ included). */
function stringEnd(text: string, start: number, format: ConfigFormat): number {
  const quote = text[start]!;
  const triple = quote.repeat(3);
  if (format === "toml" && text.startsWith(triple, start)) {
    const close = text.indexOf(triple, start + 3);
    return close === -1 ? text.length : close + 2;
  }
  const escapes = quote === '"';
  for (let i = start + 1; i < text.length; i++) {
    if (escapes && text[i] === "\\") i++;
    else if (text[i] === quote || text[i] === "\n") return i;
  }
  return text.length;
}

function lineEnd(text: string, start: number): number {
  const end = text.indexOf("\n", start);
  return end === -1 ? text.length : end;
}

/** Whether the parsed value nests past `limit`, walked without recursion. */
function valueDepthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    const children = Array.isArray(item) ? item : isJsonObject(item) ? Object.values(item) : undefined;
    if (!children) continue;
    if (depth + 1 > limit) return true;
    for (const child of children) stack.push([child, depth + 1]);
  }
  return false;
}
