// A session recorded by `mcp-proxy --record`, read back as what `mcp-inspect mock` answers from:
// the handshake, and each request of the client's with what the server sent until its answer
// (its own requests to the client, its notifications). Requests are matched on method and params,
// `_meta` left out: progress tokens and per-request revisions differ from run to run.
import { isJsonObject, type JsonObject, type JsonRpcId } from "../../lib/wire/jsonrpc.ts";
import { RECORDING_FORMAT } from "../../lib/wire/protocol.ts";
import type { Result } from "../../lib/wire/result.ts";

/** How much of a request a miss's error shows. */
const SHOWN_PARAMS_CHARS = 200;

export interface Exchange {
  method: string;
  params: JsonObject;
  /** The answer: `result` or `error`. */
  answer: { result: unknown } | { error: unknown };
  /** What the server sent before answering, in order: its own requests and its notifications. */
  before: JsonObject[];
}

export interface Recording {
  exchanges: Exchange[];
}

interface Line {
  from?: string;
  message?: JsonObject;
}

/** The recording in `text`, or why it is not one. */
export function parseRecording(text: string, source: string): Result<Recording> {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? "");
  } catch {
    header = undefined;
  }
  if (!isJsonObject(header) || header.recording !== RECORDING_FORMAT)
    return { ok: false, error: `${source} is not a recording of mcp-proxy --record (its first line names no ${RECORDING_FORMAT})` };
  const exchanges: Exchange[] = [];
  const open = new Map<JsonRpcId, Exchange>();
  let serverSaid: JsonObject[] = [];
  for (const [index, text] of lines.slice(1).entries()) {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      return { ok: false, error: `${source}, line ${index + 2}: not JSON` };
    }
    const message = line.message;
    if (!isJsonObject(message)) continue;
    const id = message.id as JsonRpcId | undefined;
    if (line.from === "client" && typeof message.method === "string" && id !== undefined) {
      open.set(id, {
        method: message.method,
        params: isJsonObject(message.params) ? message.params : {},
        answer: { result: {} },
        before: [],
      });
      serverSaid = [];
    } else if (line.from === "server" && typeof message.method === "string") {
      serverSaid.push(message);
    } else if (line.from === "server" && id !== undefined && open.has(id)) {
      const exchange = open.get(id)!;
      open.delete(id);
      exchange.answer = "error" in message ? { error: message.error } : { result: message.result };
      exchanges.push({ method: exchange.method, params: exchange.params, answer: exchange.answer, before: serverSaid });
      serverSaid = [];
    }
  }
  return { ok: true, value: { exchanges } };
}

/** The params as they are matched: `_meta` left out, at the top and in `arguments`. */
export function comparable(params: JsonObject): string {
  const { _meta: _left, ...rest } = params;
  return stableJson(rest);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (!isJsonObject(value)) return JSON.stringify(value);
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
    .join(",")}}`;
}

/** Every leaf as path=value, for how far apart two requests are. */
function leaves(value: unknown, path = ""): string[] {
  if (isJsonObject(value)) return Object.entries(value).flatMap(([key, inner]) => (key === "_meta" ? [] : leaves(inner, `${path}.${key}`)));
  if (Array.isArray(value)) return value.flatMap((inner, i) => leaves(inner, `${path}[${i}]`));
  return [`${path}=${JSON.stringify(value)}`];
}

function distance(a: JsonObject, b: JsonObject): number {
  const left = new Set(leaves(a));
  const right = new Set(leaves(b));
  return [...left].filter((x) => !right.has(x)).length + [...right].filter((x) => !left.has(x)).length;
}

/** The recorded request a miss is told about: same method and nearest params, else any. */
export function closest(recording: Recording, method: string, params: JsonObject): string {
  const same = recording.exchanges.filter((e) => e.method === method);
  const pool = same.length > 0 ? same : recording.exchanges;
  if (pool.length === 0) return "the recording has no requests";
  const best = pool.reduce((a, b) => (distance(b.params, params) < distance(a.params, params) ? b : a));
  const shown = comparable(best.params);
  return `${best.method} ${shown.length > SHOWN_PARAMS_CHARS ? `${shown.slice(0, SHOWN_PARAMS_CHARS)}…` : shown}`;
}
