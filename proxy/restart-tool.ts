// The one tool the proxy adds to the server's: restart_server, its definition, its result, and
// the tool diff it reports for clients that ignore list_changed.
import type { JsonObject } from "../lib/wire/jsonrpc.ts";

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
