// The byte scanner forwarders route by: a large message is read for its top-level routing fields
// (jsonrpc, id, method, which of params/result/error, a tool call's name) straight from its
// bytes, jumping over its big values, and parsed whole only when it must be. And the id of a
// message known only by its first and last bytes, for answering one too large to keep.
import {
  ErrorCode,
  errorResponse,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  parseMessage,
  type RawMessage,
  rawText,
  validateMessage,
} from "./jsonrpc.ts";
import type { Result } from "./result.ts";

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

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
export function parseForRouting(raw: RawMessage): Result<JsonRpcMessage> {
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

/** The bytes of JSON's structure, for the scanners here and in cut-through.ts. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;
/** Integers with this many digits or fewer are exact in a double and read digit by digit; anything else goes to JSON.parse. */
const PLAIN_INTEGER_DIGITS = 15;
/** Strings up to this many bytes are tried as plain ASCII (their bytes are their characters); longer ones go to JSON.parse. */
const PLAIN_STRING_BYTES = 1024;

/** The bytes from `start` to `end` as a Uint8Array (a view when they are one already). */
function bytesBetween(bytes: ArrayLike<number>, start: number, end: number): Uint8Array {
  return bytes instanceof Uint8Array ? bytes.subarray(start, end) : Uint8Array.from(Array.prototype.slice.call(bytes, start, end));
}

/**
 * A JSON number's bytes (`start` to `end`) as a number, or undefined when they are not one. Every
 * routed message's numeric id passes here: the usual integer is read without making a string and parsing it.
 */
export function decodeJsonNumber(bytes: ArrayLike<number>, start = 0, end = bytes.length): number | undefined {
  const negative = bytes[start] === MINUS;
  const first = negative ? start + 1 : start;
  const digits = end - first;
  if (digits > 0 && digits <= PLAIN_INTEGER_DIGITS && (digits === 1 || bytes[first] !== DIGIT_0)) {
    let value = 0;
    let plain = true;
    for (let i = first; i < end && plain; i++) {
      const byte = bytes[i]!;
      plain = byte >= DIGIT_0 && byte <= DIGIT_9;
      value = value * 10 + (byte - DIGIT_0);
    }
    if (plain) return negative ? -value : value;
  }
  try {
    const value = JSON.parse(utf8.decode(bytesBetween(bytes, start, end)));
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  } catch {
    // Not a number a forwarder can route by: left unknown.
    return undefined;
  }
}

/** A JSON string's bytes between its quotes (`start` to `end`) as text; undefined when they are not a valid string. */
export function decodeJsonString(bytes: ArrayLike<number>, start = 0, end = bytes.length): string | undefined {
  // The usual key, method, string id or tool name is plain ASCII without escapes: its bytes are its characters.
  let plain = end - start <= PLAIN_STRING_BYTES;
  for (let i = start; i < end && plain; i++) {
    const byte = bytes[i]!;
    plain = byte >= 0x20 && byte < 0x80 && byte !== BACKSLASH;
  }
  if (plain) return String.fromCharCode(...bytesBetween(bytes, start, end));
  try {
    return JSON.parse(`"${utf8.decode(bytesBetween(bytes, start, end))}"`);
  } catch {
    return undefined;
  }
}

/** A small JSON value inside the bytes (`start` to `end`), or undefined if it is not valid JSON. */
function smallValue(bytes: Uint8Array, start: number, end: number): { value: unknown } | undefined {
  const first = bytes[start];
  if (first === QUOTE) {
    // eachMember and valueEnd end a string at its closing quote: what lies between is the string's.
    const text = end - start >= 2 && bytes[end - 1] === QUOTE ? decodeJsonString(bytes, start + 1, end - 1) : undefined;
    return text === undefined ? undefined : { value: text };
  }
  if (first === MINUS || (first !== undefined && first >= DIGIT_0 && first <= DIGIT_9)) {
    const number = decodeJsonNumber(bytes, start, end);
    return number === undefined ? undefined : { value: number };
  }
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
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code === 32 || code === 10 || code === 13 || code === 9)
        break;
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
 * The one answer to a request dropped for its size (a line splitter's oversize error), when its id
 * can be read from the edges kept of it; undefined for a notification or an id it cannot read.
 * `speaker` (the tool's name) starts the message.
 */
export function oversizeRefusal(
  dropped: { bytes: number; head: string; tail: string },
  limit: number,
  speaker?: string,
): JsonRpcFailure | undefined {
  const id = idFromEdges(dropped.head, dropped.tail);
  if (id === undefined) return undefined;
  const why = `a ${dropped.bytes}-byte message is over the ${limit}-byte limit`;
  return errorResponse(id, ErrorCode.InvalidRequest, speaker ? `${speaker}: ${why}` : why);
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
