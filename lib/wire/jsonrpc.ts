// JSON-RPC 2.0 as MCP uses it: message shapes, guards, error codes, and the id bookkeeping
import type { Result } from "./result.ts";
// that forwarders need. Ids are numbers or strings (0 is valid) and are echoed with their
// exact JSON type, so they are never coerced.

export type JsonRpcId = string | number;
export type JsonObject = { [key: string]: unknown };

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
}
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonObject;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: JsonObject;
}
export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Every JSON-RPC error code mcpkit sends or reads, one table. */
export const ErrorCode = {
  // JSON-RPC 2.0.
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  // MCP: the connection closed, or the request timed out, before an answer.
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  // MCP 2026-07-28: the headers and body of an HTTP request disagree; a capability the request needs
  // was not declared; the requested revision is not spoken here (data.supported lists what is).
  HeaderMismatch: -32020,
  MissingClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  // MCP: the user must first finish a step in the browser (URL-mode elicitation).
  UrlElicitationRequired: -32042,
  // mcpkit's own, from the implementation-defined range: mcp-proxy's server restarted under a
  // request that could not be repeated, or is down; a question mcp-daemon is to park for a later call.
  ServerRestarted: -32010,
  ServerUnavailable: -32011,
  ParkQuestion: -32090,
} as const;

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return "method" in message && "id" in message;
}
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return "method" in message && !("id" in message);
}
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !("method" in message) && ("result" in message || "error" in message);
}

/** Checks a decoded value's shape; anything that is not one JSON-RPC 2.0 message is refused. */
export function validateMessage(value: unknown): Result<JsonRpcMessage> {
  if (!isJsonObject(value)) return { ok: false, error: "not a JSON object" };
  if (value.jsonrpc !== "2.0") return { ok: false, error: 'missing "jsonrpc": "2.0"' };
  if ("method" in value) {
    if (typeof value.method !== "string") return { ok: false, error: "method is not a string" };
    if ("params" in value && value.params !== undefined && !isJsonObject(value.params) && !Array.isArray(value.params)) {
      return { ok: false, error: "params is neither an object nor an array" };
    }
    if ("id" in value && !isId(value.id)) return { ok: false, error: "id is neither a string nor a number" };
    return { ok: true, value: value as unknown as JsonRpcMessage };
  }
  if ("result" in value || "error" in value) {
    if (!(isId(value.id) || (value.id === null && "error" in value))) {
      return { ok: false, error: "response id is neither a string nor a number" };
    }
    if ("error" in value) {
      const error = value.error;
      if (!isJsonObject(error) || typeof error.code !== "number" || typeof error.message !== "string") {
        return { ok: false, error: "error is not {code, message}" };
      }
    }
    return { ok: true, value: value as unknown as JsonRpcMessage };
  }
  return { ok: false, error: "neither a request, a notification nor a response" };
}

/** Parses one line of text into a JSON-RPC message (batches are not part of MCP since 2025-06-18). */
export function parseMessage(text: string): Result<JsonRpcMessage> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `invalid JSON (${(error as Error).message})` };
  }
  return validateMessage(value);
}

export function serializeMessage(message: JsonRpcMessage): string {
  return JSON.stringify(message);
}

/** Marks a JSON-RPC error that a channel made up because the transport failed (not the server's). */
export const TRANSPORT_ERROR_DATA = { origin: "mcpkit-transport" } as const;

export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", id, error };
}

/**
 * Hands out ids for messages we originate on a connection that also carries someone else's ids.
 * A string prefix keeps our ids disjoint from any numeric or ordinary string id a peer uses.
 */
export class IdAllocator {
  #next = 0;
  constructor(readonly prefix: string) {}
  next(): string {
    return `${this.prefix}${++this.#next}`;
  }
  owns(id: JsonRpcId | null): boolean {
    return typeof id === "string" && id.startsWith(this.prefix);
  }
}

/** A message as it arrived: text, or the UTF-8 bytes of one line (what forwarders pass on untouched). */
export type RawMessage = string | Uint8Array;

const utf8 = new TextDecoder();

/** The text of a raw message (bytes are expected to be valid UTF-8 already). */
export function rawText(raw: RawMessage): string {
  return typeof raw === "string" ? raw : utf8.decode(raw);
}

/** A line of nothing but whitespace (skipped: it is no message, and no error either). */
export function isBlank(line: RawMessage): boolean {
  if (typeof line === "string") return line.trim() === "";
  for (let i = 0; i < line.length; i++) {
    const code = line[i];
    if (code !== 32 && code !== 9 && code !== 13 && code !== 10) return false;
  }
  return true;
}
