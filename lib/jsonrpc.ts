// JSON-RPC 2.0 as MCP uses it: message shapes, guards, error codes, and the id bookkeeping
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

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: the request timed out or the connection closed before an answer. */
  RequestTimeout: -32001,
  ConnectionClosed: -32000,
} as const;

function isObject(value: unknown): value is JsonObject {
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
export function isFailure(message: JsonRpcMessage): message is JsonRpcFailure {
  return isResponse(message) && "error" in message;
}

export type ParseResult = { ok: true; value: JsonRpcMessage } | { ok: false; error: string };

/** Checks a decoded value's shape; anything that is not one JSON-RPC 2.0 message is refused. */
export function validateMessage(value: unknown): ParseResult {
  if (!isObject(value)) return { ok: false, error: "not a JSON object" };
  if (value.jsonrpc !== "2.0") return { ok: false, error: 'missing "jsonrpc": "2.0"' };
  if ("method" in value) {
    if (typeof value.method !== "string") return { ok: false, error: "method is not a string" };
    if ("params" in value && value.params !== undefined && !isObject(value.params) && !Array.isArray(value.params)) {
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
      if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string") {
        return { ok: false, error: "error is not {code, message}" };
      }
    }
    return { ok: true, value: value as unknown as JsonRpcMessage };
  }
  return { ok: false, error: "neither a request, a notification nor a response" };
}

/** Parses one line of text into a JSON-RPC message (batches are not part of MCP since 2025-06-18). */
export function parseMessage(text: string): ParseResult {
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

/**
 * Maps ids of several clients onto one upstream connection and back: each forwarded request gets
 * a fresh upstream id, and the response is routed to its owner with the original id restored.
 */
export class IdRemapper<Owner> {
  readonly #allocator: IdAllocator;
  readonly #pending = new Map<JsonRpcId, { owner: Owner; originalId: JsonRpcId }>();

  constructor(prefix = "mcpkit-") {
    this.#allocator = new IdAllocator(prefix);
  }

  outbound(owner: Owner, originalId: JsonRpcId): string {
    const id = this.#allocator.next();
    this.#pending.set(id, { owner, originalId });
    return id;
  }

  /** The owner and original id of a response, or undefined for an id we never sent. */
  inbound(upstreamId: JsonRpcId | null): { owner: Owner; originalId: JsonRpcId } | undefined {
    if (upstreamId === null) return undefined;
    const entry = this.#pending.get(upstreamId);
    if (entry) this.#pending.delete(upstreamId);
    return entry;
  }

  /** Forgets every request of one owner, returning their upstream ids (e.g. to cancel them). */
  dropOwner(owner: Owner): string[] {
    const dropped: string[] = [];
    for (const [id, entry] of this.#pending) {
      if (entry.owner === owner) {
        this.#pending.delete(id);
        dropped.push(String(id));
      }
    }
    return dropped;
  }

  get size(): number {
    return this.#pending.size;
  }
}

/** A message as it arrived: text, or the UTF-8 bytes of one line (what forwarders pass on untouched). */
export type RawMessage = string | Uint8Array;

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

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

/** Messages longer than this are routed on their top-level fields only, never fully parsed. */
export const PEEK_ABOVE_CHARS = 64 * 1024;
const PARTIAL = Symbol("partial");

/** Whether a message came from peekMessage and carries its routing fields only. */
export function isPartial(message: JsonRpcMessage): boolean {
  return (message as { [PARTIAL]?: boolean })[PARTIAL] === true;
}

/**
 * For forwarders: parses small messages fully, and reads only jsonrpc/id/method, which of
 * params/result/error are present, and a string params.name (a tool call's tool) from large ones,
 * jumping over their big values with indexOf. A 20 MB tool result costs a few native scans instead
 * of a full parse (and, given bytes, no decoding). Anything the scanner cannot read falls back to
 * the full parser, so validation is never weaker.
 */
export function parseForRouting(raw: RawMessage): ParseResult {
  if (raw.length <= PEEK_ABOVE_CHARS) return parseMessage(rawText(raw));
  const peeked = peekMessage(typeof raw === "string" ? utf8Encoder.encode(raw) : raw);
  return peeked ? { ok: true, value: peeked } : parseMessage(rawText(raw));
}

/** The whole message: parses the raw text again if only its routing fields were read. */
export function completeMessage(message: JsonRpcMessage, raw: RawMessage): JsonRpcMessage {
  if (!isPartial(message)) return message;
  const parsed = parseMessage(rawText(raw));
  return parsed.ok ? parsed.value : message;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** A small JSON value inside the bytes, or undefined if it is not valid JSON. */
function smallValue(bytes: Uint8Array, start: number, end: number): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(utf8.decode(bytes.subarray(start, end))) };
  } catch {
    return undefined;
  }
}

/**
 * Visits the members of the JSON object that opens at `start`; `visit(key, valueStart, valueEnd)`.
 * Returns the index just past the object, or -1 when the bytes are not such an object.
 */
function eachMember(bytes: Uint8Array, start: number, visit: (key: string, valueStart: number, valueEnd: number) => boolean): number {
  let i = skipSpace(bytes, start);
  if (bytes[i] !== OPEN_BRACE) return -1;
  i = skipSpace(bytes, i + 1);
  while (bytes[i] !== CLOSE_BRACE) {
    if (bytes[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd < 0) return -1;
    const key = smallValue(bytes, i, keyEnd + 1);
    if (!key) return -1;
    i = skipSpace(bytes, keyEnd + 1);
    if (bytes[i] !== COLON) return -1;
    const valueStart = skipSpace(bytes, i + 1);
    const end = valueEnd(bytes, valueStart);
    if (end < 0 || !visit(key.value as string, valueStart, end)) return -1;
    i = skipSpace(bytes, end);
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1);
    else if (bytes[i] !== CLOSE_BRACE) return -1;
  }
  return i + 1;
}

function peekMessage(bytes: Uint8Array): JsonRpcMessage | undefined {
  const fields: Record<string, unknown> = {};
  let toolName: string | undefined;
  const end = eachMember(bytes, 0, (key, start, end) => {
    if (key === "jsonrpc" || key === "id" || key === "method") {
      const parsed = smallValue(bytes, start, end);
      if (!parsed) return false;
      fields[key] = parsed.value;
    } else if (key === "params" || key === "result" || key === "error") {
      fields[key] = true;
      if (key === "params" && bytes[start] === OPEN_BRACE) {
        eachMember(bytes, start, (inner, innerStart, innerEnd) => {
          if (inner === "name" && bytes[innerStart] === QUOTE && innerEnd - innerStart <= 1024) {
            const name = smallValue(bytes, innerStart, innerEnd);
            if (typeof name?.value === "string") toolName = name.value;
          }
          return true;
        });
      }
    }
    return true;
  });
  if (end < 0 || skipSpace(bytes, end) !== bytes.length) return undefined;
  const shape: Record<string, unknown> = { jsonrpc: fields.jsonrpc };
  if ("method" in fields) shape.method = fields.method;
  if ("id" in fields) shape.id = fields.id;
  if (toolName !== undefined) shape.params = { name: toolName };
  if (fields.result) shape.result = {};
  if (fields.error) shape.error = { code: 0, message: "" };
  const checked = validateMessage(shape);
  if (!checked.ok) return undefined;
  Object.defineProperty(checked.value, PARTIAL, { value: true });
  return checked.value;
}

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length) {
    const code = bytes[i];
    if (code !== 32 && code !== 10 && code !== 13 && code !== 9) break;
    i++;
  }
  return i;
}

/** Index of the quote closing the string that opens at `start`, or -1. */
function stringEnd(bytes: Uint8Array, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, i);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

/** Index just past the JSON value that starts at `start`, or -1. */
function valueEnd(bytes: Uint8Array, start: number): number {
  const first = bytes[start];
  if (first === QUOTE) {
    const end = stringEnd(bytes, start);
    return end < 0 ? -1 : end + 1;
  }
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let i = start;
    for (; i < bytes.length; i++) {
      const code = bytes[i];
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code === 32 || code === 10 || code === 13 || code === 9) break;
    }
    return i === start ? -1 : i;
  }
  let depth = 0;
  for (let i = start; i < bytes.length; i++) {
    const code = bytes[i];
    if (code === QUOTE) {
      i = stringEnd(bytes, i);
      if (i < 0) return -1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The id of a message known only by its first and last bytes (the rest was too large to keep):
 * clients usually write the id early, servers built on the SDK write it last. Lets a forwarder
 * answer instead of leaving a caller waiting for a reply to a message it had to drop.
 */
export function idFromEdges(head: string, tail = ""): JsonRpcId | undefined {
  if (!/^\s*\{/.test(head)) return undefined;
  const early = head.match(/^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"]*"\s*,)*\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*[,}]/);
  const late = tail.match(/[,{]\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/);
  const found = early?.[1] ?? late?.[1];
  if (found === undefined) return undefined;
  try {
    const id = JSON.parse(found);
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}
