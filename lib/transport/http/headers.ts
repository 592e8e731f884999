// The MCP headers of a Streamable HTTP request: MCP-Protocol-Version and Mcp-Session-Id, and on
// 2026-07-28 the method, name and annotated parameters mirrored into headers (Mcp-Method,
// Mcp-Name, Mcp-Param-{Name}) so that gateways can route without reading bodies. Clients MUST
// send the parameters marked `x-mcp-header` in a tool's inputSchema, and MUST drop tools whose
// annotations break the rules.
import { isRequest, type JsonRpcId, type JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { FIRST_MODERN_REVISION, META_PROTOCOL_VERSION } from "../../wire/protocol.ts";
import type { Result } from "../../wire/result.ts";

/** Methods whose `name`, `uri` or (tasks extension, SEP-2663) `taskId` travels as Mcp-Name. */
const MCP_NAME_FIELDS: Record<string, string> = {
  "tools/call": "name",
  "resources/read": "uri",
  "prompts/get": "name",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

export interface ParamHeader {
  /** The chain of `properties` keys from the schema root to the parameter. */
  path: string[];
  /** The header is `Mcp-Param-${name}`. */
  name: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Reads every `x-mcp-header` annotation of a schema, or says why the tool must be dropped. */
export function paramHeaderSpecs(schema: unknown): Result<ParamHeader[]> {
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
      if (!reachable || path.length === 0)
        problems.push(`x-mcp-header at ${path.join(".") || "the root"} is not reachable through properties alone`);
      else if (typeof name !== "string" || !TOKEN.test(name))
        problems.push(`x-mcp-header ${JSON.stringify(name)} at ${path.join(".")} is not a header token`);
      else if (typeof type !== "string" || !HEADER_TYPES.has(type))
        problems.push(`x-mcp-header ${name} is on a ${String(type)} parameter (only string, integer, boolean)`);
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
    else if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= MAX_SAFE)
      headers[`Mcp-Param-${name}`] = String(value);
    else if (typeof value === "string") headers[`Mcp-Param-${name}`] = encode(value);
  }
  return headers;
}

/** MCP 2026-07-28 value encoding: non-header-safe values travel as `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  const safe = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="));
  if (safe) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * The text a header value stands for: `=?base64?…?=` decoded (as UTF-8), anything else as it is
 * (leading and trailing whitespace is not part of a field value). Undefined for a base64 form that
 * is not valid base64 (a bad character, missing padding, or not UTF-8).
 */
export function decodeHeaderValue(value: string): string | undefined {
  const trimmed = value.trim();
  const match = /^=\?base64\?(.*)\?=$/s.exec(trimmed);
  if (!match) return trimmed;
  const encoded = match[1]!;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/**
 * A server's check of a 2026-07-28 request (what mcp-proxy serve answers -32020 for): the headers a
 * client must send, given, and saying what the body says. `specs` are the called tool's annotated
 * parameters when known. Returns what disagrees, or undefined.
 */
export function headerMismatch(given: Headers, message: JsonRpcMessage, version: string, specs?: ParamHeader[]): string | undefined {
  if (!isRequest(message)) return undefined;
  const versionHeader = given.get("mcp-protocol-version");
  if (versionHeader !== null && versionHeader.trim() !== version)
    return `the MCP-Protocol-Version header says ${versionHeader.trim()} but the body's _meta says ${version}`;
  const method = given.get("mcp-method");
  if (method === null) return "the Mcp-Method header is absent";
  if (method.trim() !== message.method) return `the Mcp-Method header says ${method.trim()} but the body's method is ${message.method}`;
  const field = Object.hasOwn(MCP_NAME_FIELDS, message.method) ? MCP_NAME_FIELDS[message.method]! : undefined;
  const name = field ? message.params?.[field] : undefined;
  if (typeof name === "string") {
    const header = given.get("mcp-name");
    if (header === null) return `the Mcp-Name header is absent (the body's ${field} is ${JSON.stringify(name)})`;
    const decoded = decodeHeaderValue(header);
    if (decoded === undefined) return "the Mcp-Name header is not valid base64";
    if (decoded !== name) return `the Mcp-Name header does not match the body's ${field} ${JSON.stringify(name)}`;
  }
  if (!specs) return undefined;
  const expected = paramHeaders(specs, message.params?.arguments, (value) => value);
  for (const { name: headerName, path } of specs) {
    const header = `Mcp-Param-${headerName}`;
    const param = path.join(".");
    const body = expected[header];
    const sent = given.get(header);
    if (body === undefined && sent !== null) return `the ${header} header is sent but the body carries no ${param}`;
    if (body !== undefined && sent === null) return `the body carries ${param}=${JSON.stringify(body)} but the ${header} header is absent`;
    if (sent === null) continue;
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined) return `the ${header} header is not valid base64`;
    if (decoded !== body) return `the ${header} header does not match the body's ${param}`;
  }
  return undefined;
}

/** A 2026-07-28 request names its own revision in `_meta` (a forwarded one must carry it in the header too). */
export function requestRevision(message: JsonRpcMessage | undefined): string | undefined {
  const meta = message && "params" in message ? (message.params?._meta as Record<string, unknown> | undefined) : undefined;
  return typeof meta?.[META_PROTOCOL_VERSION] === "string" ? (meta[META_PROTOCOL_VERSION] as string) : undefined;
}

/**
 * The header rules of one connection: which tools annotate which parameters (learned from the
 * tools/list answers of 2026-07-28 requests), and the headers each message must carry.
 */
export class McpHeaders {
  readonly #toolListIds = new Set<JsonRpcId | null>();
  readonly #toolHeaders = new Map<string, ParamHeader[]>();

  /** The annotated parameters of a tool a tools/list answer told (undefined: not told). */
  specsOf(tool: string): ParamHeader[] | undefined {
    return this.#toolHeaders.get(tool);
  }

  /** Whether a tools/list answer has told this tool's annotated parameters (none is an answer too). */
  knows(tool: string): boolean {
    return this.#toolHeaders.has(tool);
  }

  /** The MCP headers for `message` (or for a GET or DELETE of the session, without one). */
  headers(message: JsonRpcMessage | undefined, version: string | undefined, sessionId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    if (version) headers["MCP-Protocol-Version"] = version;
    if (sessionId) headers["Mcp-Session-Id"] = sessionId;
    if (!message || !isRequest(message) || !version || version < FIRST_MODERN_REVISION) return headers;
    headers["Mcp-Method"] = message.method;
    const field = Object.hasOwn(MCP_NAME_FIELDS, message.method) ? MCP_NAME_FIELDS[message.method]! : undefined;
    const name = field ? message.params?.[field] : undefined;
    if (typeof name === "string") headers["Mcp-Name"] = encodeHeaderValue(name);
    const specs = message.method === "tools/call" && typeof name === "string" ? this.#toolHeaders.get(name) : undefined;
    if (specs) Object.assign(headers, paramHeaders(specs, message.params?.arguments, encodeHeaderValue));
    return headers;
  }

  /** A request on its way: the answer to a 2026-07-28 tools/list is read for annotations. */
  sent(message: JsonRpcMessage, version: string | undefined): void {
    if (isRequest(message) && message.method === "tools/list" && version && version >= FIRST_MODERN_REVISION)
      this.#toolListIds.add(message.id);
  }

  /**
   * A response: a tools/list answer teaches each tool's annotated parameters, and loses the tools
   * whose annotations break the rules (spec MUST). Returns the tools to keep, or undefined when
   * the answer passes as it is.
   */
  toolsToKeep(message: JsonRpcMessage, onerror: (error: Error) => void): unknown[] | undefined {
    if (!("result" in message) || !this.#toolListIds.delete(message.id) || !Array.isArray(message.result.tools)) return undefined;
    const tools = message.result.tools;
    const kept = tools.filter((tool) => {
      const { name, inputSchema } = (tool ?? {}) as { name?: unknown; inputSchema?: unknown };
      if (typeof name !== "string") return true;
      const specs = paramHeaderSpecs(inputSchema);
      if (specs.ok) {
        this.#toolHeaders.set(name, specs.value);
        return true;
      }
      onerror(new Error(`left out tool ${name}: ${specs.error}`));
      return false;
    });
    return kept.length === tools.length ? undefined : kept;
  }
}
