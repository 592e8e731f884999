// Reading one client config file into its server entries, as written (nothing expanded): JSON
// (strict first, it is faster on a large ~/.claude.json; then JSONC), or TOML for Codex. A file
// that is not there is no problem; one that cannot be read or parsed is a problem, named.
import { parse as parseToml } from "smol-toml";
import { parseJsonc } from "../jsonc.ts";
import { MAX_CONFIG_BYTES } from "../limits.ts";
import { readFileCappedSync } from "../read-capped.ts";
import type { ConfigSource } from "./clients.ts";

/** A VS Code input variable definition (`inputs` beside `servers`). */
export interface InputDefinition {
  id: string;
  type?: string;
  description?: string;
  default?: string;
  password?: boolean;
  options?: string[];
}

export interface ReadSource {
  entries: [name: string, entry: Record<string, unknown>][];
  inputs: InputDefinition[];
  problems: string[];
}

/** Parsed files, by path: ~/.claude.json is read once for its user and its local scope. */
export type ParseCache = Map<string, { ok: true; value: unknown } | { ok: false; error: string } | undefined>;

export function readSource(source: ConfigSource, cache: ParseCache): ReadSource {
  const parsed = cache.has(source.file) ? cache.get(source.file) : parseFile(source);
  cache.set(source.file, parsed);
  if (parsed === undefined) return { entries: [], inputs: [], problems: [] };
  if (!parsed.ok) return { entries: [], inputs: [], problems: [parsed.error] };
  const servers = dig(parsed.value, source.key);
  if (servers === undefined) return { entries: [], inputs: [], problems: [] };
  if (!isRecord(servers)) return { entries: [], inputs: [], problems: [`${source.file}: "${source.key.at(-1)}" is not an object`] };
  const entries: ReadSource["entries"] = [];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (isRecord(entry)) entries.push([name, entry]);
    else problems.push(`${source.file}: server "${name}" is not an object`);
  }
  return { entries, inputs: source.client.startsWith("vscode") ? inputDefinitions(parsed.value) : [], problems };
}

function parseFile(source: ConfigSource): { ok: true; value: unknown } | { ok: false; error: string } | undefined {
  const read = readFileCappedSync(source.file, MAX_CONFIG_BYTES);
  if (!read.ok) {
    if (read.detail === "ENOENT" || read.detail === "ENOTDIR") return undefined;
    return { ok: false, error: read.error === "too-large" ? `${source.file} is over the ${MAX_CONFIG_BYTES}-byte limit; skipped` : `cannot read ${source.file} (${read.detail}); skipped` };
  }
  if (source.format === "toml") {
    try {
      return { ok: true, value: parseToml(read.text) };
    } catch (error) {
      return { ok: false, error: `${source.file} is not valid TOML (${firstLine(error)}); skipped` };
    }
  }
  try {
    return { ok: true, value: JSON.parse(read.text) };
  } catch {
    const parsed = parseJsonc(read.text);
    return parsed.ok ? parsed : { ok: false, error: `${source.file} is not valid JSON (${parsed.error}); skipped` };
  }
}

function inputDefinitions(config: unknown): InputDefinition[] {
  const inputs = isRecord(config) ? config.inputs : undefined;
  if (!Array.isArray(inputs)) return [];
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return inputs.filter((input): input is Record<string, unknown> => isRecord(input) && typeof input.id === "string").map((input) => ({
    id: input.id as string,
    ...(text(input.type) ? { type: text(input.type) } : {}),
    ...(text(input.description) ? { description: text(input.description) } : {}),
    ...(text(input.default) !== undefined ? { default: text(input.default) } : {}),
    ...(input.password === true ? { password: true } : {}),
    // pickString options are strings or { label, value }.
    ...(Array.isArray(input.options) ? { options: input.options.map((option) => String(isRecord(option) ? option.value : option)) } : {}),
  }));
}

function dig(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split("\n")[0]!;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
