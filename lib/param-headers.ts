// MCP 2026-07-28 Streamable HTTP: tool parameters marked `x-mcp-header` in a tool's inputSchema
// are mirrored into `Mcp-Param-{Name}` headers, so gateways can route without reading bodies.
// Clients MUST send them, and MUST drop tools whose annotations break the rules.

export interface ParamHeader {
  /** The chain of `properties` keys from the schema root to the parameter. */
  path: string[];
  /** The header is `Mcp-Param-${name}`. */
  name: string;
}

export type SpecResult = { ok: true; value: ParamHeader[] } | { ok: false; error: string };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Reads every `x-mcp-header` annotation of a schema, or says why the tool must be dropped. */
export function paramHeaderSpecs(schema: unknown): SpecResult {
  const found: ParamHeader[] = [];
  const problems: string[] = [];
  const walk = (node: unknown, path: string[], reachable: boolean) => {
    if (typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path, false);
      return;
    }
    const record = node as Record<string, unknown>;
    if ("x-mcp-header" in record) {
      const name = record["x-mcp-header"];
      const type = record.type;
      if (!reachable || path.length === 0) problems.push(`x-mcp-header at ${path.join(".") || "the root"} is not reachable through properties alone`);
      else if (typeof name !== "string" || !TOKEN.test(name)) problems.push(`x-mcp-header ${JSON.stringify(name)} at ${path.join(".")} is not a header token`);
      else if (typeof type !== "string" || !HEADER_TYPES.has(type)) problems.push(`x-mcp-header ${name} is on a ${String(type)} parameter (only string, integer, boolean)`);
      else found.push({ path, name });
    }
    for (const [key, value] of Object.entries(record)) {
      if (key === "properties" && typeof value === "object" && value !== null && !Array.isArray(value)) {
        for (const [property, child] of Object.entries(value)) walk(child, [...path, property], reachable);
      } else if (key !== "x-mcp-header") {
        walk(value, path, false);
      }
    }
  };
  walk(schema, [], true);
  const seen = new Set<string>();
  for (const { name } of found) {
    const lower = name.toLowerCase();
    if (seen.has(lower)) problems.push(`x-mcp-header ${name} is used twice`);
    seen.add(lower);
  }
  return problems.length > 0 ? { ok: false, error: problems.join("; ") } : { ok: true, value: found };
}

/** The headers for one call's arguments; a missing or null value sends no header. */
export function paramHeaders(specs: ParamHeader[], args: unknown, encode: (value: string) => string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, name } of specs) {
    let value: unknown = args;
    for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null) continue;
    if (typeof value === "boolean") headers[`Mcp-Param-${name}`] = String(value);
    else if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= MAX_SAFE) headers[`Mcp-Param-${name}`] = String(value);
    else if (typeof value === "string") headers[`Mcp-Param-${name}`] = encode(value);
  }
  return headers;
}
