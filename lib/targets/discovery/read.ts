// Reading one client config file into its server entries, as written (nothing expanded), through
// the one config reader (lib/targets/config-file.ts: regular files, capped, nesting capped, within
// the deadline). A file that is not there is no problem; one that cannot be read or parsed is a
// problem, named.

import { isJsonObject } from "../../wire/jsonrpc.ts";
import type { Result } from "../../wire/result.ts";
import { readConfigFile } from "../config-file.ts";
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
export type ParseCache = Map<string, Promise<Result<unknown> | undefined>>;

export async function readSource(source: ConfigSource, cache: ParseCache, signal?: AbortSignal): Promise<ReadSource> {
  if (!cache.has(source.file)) cache.set(source.file, parseFile(source, signal));
  const parsed = await cache.get(source.file)!;
  if (parsed === undefined) return { entries: [], inputs: [], problems: [] };
  if (!parsed.ok) return { entries: [], inputs: [], problems: [parsed.error] };
  const servers = dig(parsed.value, source.key);
  if (servers === undefined) return { entries: [], inputs: [], problems: [] };
  if (!isJsonObject(servers)) return { entries: [], inputs: [], problems: [`${source.file}: "${source.key.at(-1)}" is not an object`] };
  const entries: ReadSource["entries"] = [];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (isJsonObject(entry)) entries.push([name, entry]);
    else problems.push(`${source.file}: server "${name}" is not an object`);
  }
  return { entries, inputs: source.client.startsWith("vscode") ? inputDefinitions(parsed.value) : [], problems };
}

async function parseFile(source: ConfigSource, signal?: AbortSignal): Promise<Result<unknown> | undefined> {
  const read = await readConfigFile(source.file, source.format, signal);
  if (read.ok) return read;
  return read.error.absent ? undefined : { ok: false, error: `${read.error.problem}; skipped` };
}

function inputDefinitions(config: unknown): InputDefinition[] {
  const inputs = isJsonObject(config) ? config.inputs : undefined;
  if (!Array.isArray(inputs)) return [];
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return inputs
    .filter((input): input is Record<string, unknown> => isJsonObject(input) && typeof input.id === "string")
    .map((input) => ({
      id: input.id as string,
      ...(text(input.type) ? { type: text(input.type) } : {}),
      ...(text(input.description) ? { description: text(input.description) } : {}),
      ...(text(input.default) !== undefined ? { default: text(input.default) } : {}),
      ...(input.password === true ? { password: true } : {}),
      // pickString options are strings or { label, value }.
      ...(Array.isArray(input.options)
        ? { options: input.options.map((option) => String(isJsonObject(option) ? option.value : option)) }
        : {}),
    }));
}

function dig(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}
