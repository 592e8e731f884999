// One server added to a Codex config.toml (`[mcp_servers.<name>]`). smol-toml reads and writes
// TOML but drops comments when it writes, so the file is never rewritten through it: the new
// table is appended as text (an older table of that name, written as `[mcp_servers.<name>]`
// headers, is cut out first), and the result is parsed again to prove that it holds exactly the
// new entry and that nothing else changed. Loaded only by `config --client codex`.
import { parse, stringify } from "smol-toml";
import { isJsonObject } from "../../wire/jsonrpc.ts";
import type { Result } from "../../wire/result.ts";
import { parseConfigText } from "../config-text.ts";

const HEADER = /^\s*\[\[?[^\]]*\]\]?\s*(#.*)?$/;

/** The `[mcp_servers.<name>]` table (and its `.env` sub-table) as TOML text. */
export function serverTable(name: string, entry: Record<string, unknown>): string {
  return stringify({ mcp_servers: { [name]: entry } });
}

/** `text` with the server added or replaced, every other byte kept; or why not, with nothing changed. */
export function tomlWithServer(text: string, name: string, entry: Record<string, unknown>, file: string): Result<string> {
  const before = parseOrError(text, file);
  if (!before.ok) return before;
  const servers = before.value.mcp_servers;
  if (servers !== undefined && !isJsonObject(servers))
    return { ok: false, error: `"mcp_servers" in ${file} is not a table; fix it first, nothing was changed` };
  const kept = isJsonObject(servers) && Object.hasOwn(servers, name) ? withoutTables(text, ["mcp_servers", name]) : text;
  const updated = `${kept}${kept === "" || kept.endsWith("\n") ? "" : "\n"}${kept.trim() === "" ? "" : "\n"}${serverTable(name, entry)}`;
  const after = parseOrError(updated, file);
  const expected = { ...before.value, mcp_servers: { ...(isJsonObject(servers) ? servers : {}), [name]: entry } };
  if (!after.ok || JSON.stringify(sorted(after.value)) !== JSON.stringify(sorted(expected))) {
    return {
      ok: false,
      error:
        `${file} defines mcp_servers.${name} in a form this tool does not edit (an inline table or dotted keys); change it there, ` +
        `or pick another --name; nothing was changed`,
    };
  }
  return { ok: true, value: updated };
}

/** The text without the tables at `path` and below it; comments and blank lines just before the next table stay with that table. */
function withoutTables(text: string, path: string[]): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let cutting = false;
  let held: string[] = [];
  for (const line of lines) {
    if (HEADER.test(line)) {
      const inside = startsWith(headerPath(line), path);
      if (!cutting || !inside) out.push(...held);
      held = [];
      cutting = inside;
      if (!cutting) out.push(line);
      continue;
    }
    if (!cutting) out.push(line);
    else if (/^\s*(#.*)?$/.test(line)) held.push(line);
    else held = [];
  }
  out.push(...held);
  return out.join("\n");
}

/** The key path a `[a."b.c".d]` header names, read by the TOML parser itself (quoting rules and all). */
function headerPath(line: string): string[] {
  try {
    const path: string[] = [];
    let node: unknown = parse(
      line
        .trim()
        .replace(/^\[\[/, "[")
        .replace(/\]\](\s*#.*)?$/, "]"),
    );
    while (isJsonObject(node) && Object.keys(node).length === 1) {
      const key = Object.keys(node)[0]!;
      path.push(key);
      node = node[key];
    }
    return path;
  } catch {
    return [];
  }
}

function startsWith(path: string[], prefix: string[]): boolean {
  return prefix.every((key, i) => path[i] === key);
}

function parseOrError(text: string, file: string): Result<Record<string, unknown>> {
  const parsed = parseConfigText(text, "toml");
  return parsed.ok
    ? { ok: true, value: parsed.value as Record<string, unknown> }
    : { ok: false, error: `${file} is not valid TOML (${parsed.error}); fix it first, nothing was changed` };
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (isJsonObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted(value[key])]),
    );
  return value;
}
