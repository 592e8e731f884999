// The one tool the proxy adds to the server's: restart_server. Its definition; the server's answers
// the proxy changes to advertise it (a successful initialize or server/discover gains
// tools.listChanged, so the client hears of restarts; the last page of tools/list gains the tool,
// and a tools/list the server does not offer at all, -32601, lists only it; every other answer,
// errors included, passes as it came); its result; and the tool diff it reports for clients that
// ignore list_changed.
import { ErrorCode, type JsonObject, type JsonRpcId, type JsonRpcResponse } from "../lib/wire/jsonrpc.ts";

export const RESTART_TOOL = "restart_server";

export const RESTART_TOOL_DEFINITION = {
  name: RESTART_TOOL,
  description:
    "Restart the MCP server behind mcp-proxy (after you changed its code). The connection stays up; the result says how long the " +
    "restart took and which tools were added, removed or changed.",
  inputSchema: { type: "object", properties: {} },
  annotations: { title: "Restart the server", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export interface RestartReport {
  ok: boolean;
  reason: string;
  durationMs: number;
  error?: string;
  tools?: { added: string[]; removed: string[]; changed: string[] };
}

/** The methods whose answers may be patched (so they are read in full). */
export const PATCHED_METHODS = new Set(["initialize", "server/discover", "tools/list"]);

/** The handshakes whose result carries the server's capabilities. */
export const isHandshake = (method: string) => method === "initialize" || method === "server/discover";

/** `answer` (read in full) to the client's request `id` of `method`, patched; undefined when it passes unchanged. */
export function patchAnswer(method: string, id: JsonRpcId, answer: JsonRpcResponse): JsonRpcResponse | undefined {
  if ("result" in answer && isHandshake(method)) return { ...answer, id, result: withListChanged(answer.result) };
  if (method !== "tools/list") return undefined;
  if ("result" in answer && !answer.result.nextCursor) {
    const tools = Array.isArray(answer.result.tools) ? answer.result.tools : [];
    return { ...answer, id, result: { ...answer.result, tools: [...tools, RESTART_TOOL_DEFINITION] } };
  }
  if ("error" in answer && answer.error.code === ErrorCode.MethodNotFound) {
    // A server with no tools at all: we advertised tools for restart_server, so we list it.
    return { jsonrpc: "2.0", id, result: { tools: [RESTART_TOOL_DEFINITION] } };
  }
  return undefined;
}

/** An initialize (or server/discover) result that declares tools.listChanged, whatever the server declared. */
export function withListChanged(result: JsonObject): JsonObject {
  const capabilities = (result.capabilities as JsonObject | undefined) ?? {};
  const tools = (capabilities.tools as JsonObject | undefined) ?? {};
  return { ...result, capabilities: { ...capabilities, tools: { ...tools, listChanged: true } } };
}

/** The tools/call result for a restart; `modern` clients (2026-07-28) get a resultType. */
export function restartToolResult(report: RestartReport, modern: boolean): JsonObject {
  const lines = report.ok
    ? [`Restarted the server in ${report.durationMs} ms.`]
    : [`The restart failed after ${report.durationMs} ms: ${report.error}`];
  if (report.tools) {
    const { added, removed, changed } = report.tools;
    lines.push(
      added.length + removed.length + changed.length === 0
        ? "Tools: no change."
        : `Tools added: ${added.join(", ") || "none"}; removed: ${removed.join(", ") || "none"}; changed: ${changed.join(", ") || "none"}.`,
    );
  }
  const result: JsonObject = {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: report as unknown as JsonObject,
    isError: !report.ok,
  };
  if (modern) result.resultType = "complete";
  return result;
}

/** Every tool of a server by name, as JSON text (what diffTools compares); `list` sends one tools/list. */
export async function listAllTools(list: (params: JsonObject) => Promise<JsonObject>): Promise<Map<string, string>> {
  const tools = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const result = await list(cursor ? { cursor } : {});
    for (const tool of (result.tools as JsonObject[] | undefined) ?? []) tools.set(String(tool.name), JSON.stringify(tool));
    cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : undefined;
  } while (cursor);
  return tools;
}

/** Tool definitions by name (as JSON text) before and after: what was added, removed or changed. */
export function diffTools(
  before: Map<string, string>,
  after: Map<string, string>,
): { added: string[]; removed: string[]; changed: string[] } {
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const changed = [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name));
  return { added, removed, changed };
}
