// What `mcp-inspect test` checks, as data: each check's id, the spec clause it tests and its
// severity, and every threshold the checks use. The checks themselves live beside this file; a
// result is one of these with a status and what was seen.

export type Severity = "error" | "warning";
export type Status = "pass" | "fail" | "skip" | "not-applicable";

export interface CheckSpec {
  title: string;
  clause: string;
  severity: Severity;
}

export interface CheckResult extends CheckSpec {
  id: string;
  status: Status;
  /** What was seen: why it passed, failed or was skipped. */
  seen: string;
  /** A failure --baseline names as known: reported, but it does not fail the run. */
  known?: boolean;
}

/** How long a stdio server may take to exit once its stdin closes (the spec's client then signals it). */
export const SHUTDOWN_GRACE_MS = 5_000;
/** A server that pages past this many pages is taken to page forever. */
export const MAX_CHECKED_PAGES = 1_000;
/** Requests sent at once by the concurrency check, every one of which must be answered. */
export const CONCURRENT_REQUESTS = 20;
/** After a cancelled request and the ping behind it, how long progress or a result for it is watched for. */
export const CANCEL_QUIET_MS = 1_000;
/** How long the cancellation check waits for the call's first progress before cancelling anyway. */
export const CANCEL_FIRST_PROGRESS_MS = 2_000;
/** Resources read and prompts got at most (each listed one is a request); the rest are listed as not checked. */
export const MAX_READS = 100;
/** Tool names: 1 to 128 characters of A-Z a-z 0-9 _ - . (2025-11-25 server/tools, Tool names). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The Origin the HTTP check sends: one no server of ours could be served from. */
export const FOREIGN_ORIGIN = "https://mcpkit-foreign-origin.invalid";
/** Names no server has, for the unknown-method and unknown-tool checks. */
export const UNKNOWN_METHOD = "mcpkit/no-such-method";
export const UNKNOWN_TOOL = "mcpkit_no_such_tool";
/** What `seen` lists at most before saying how many more. */
export const MAX_LISTED = 5;

const TOOLS = "server/tools";
export const CHECKS = {
  "stdout-clean": {
    title: "stdout carries only protocol messages",
    clause: "basic/transports (stdio): the server MUST NOT write anything to its stdout that is not a valid MCP message",
    severity: "error",
  },
  shutdown: {
    title: `the server exits within ${SHUTDOWN_GRACE_MS / 1000} s of its stdin closing`,
    clause: "basic/lifecycle (shutdown, stdio): the client closes the server's stdin, then signals it if it has not exited",
    severity: "warning",
  },
  "tool-names": {
    title: "tool names follow the naming rules",
    clause: `${TOOLS} (tool names): 1-128 characters of A-Z a-z 0-9 _ - . and unique within the server`,
    severity: "warning",
  },
  "schemas-valid": {
    title: "every inputSchema and outputSchema is valid JSON Schema",
    clause: `${TOOLS} (tool): inputSchema MUST be a valid JSON Schema object (2020-12 unless $schema says otherwise), $ref resolvable`,
    severity: "error",
  },
  "structured-content": {
    title: "structuredContent validates against outputSchema",
    clause: `${TOOLS} (output schema): servers MUST provide structured results that conform to the outputSchema`,
    severity: "error",
  },
  pagination: {
    title: "pagination terminates",
    clause:
      "server/utilities/pagination: a cursor is an opaque token for the next page " +
      `(a repeated one, or over ${MAX_CHECKED_PAGES} pages, loops)`,
    severity: "error",
  },
  "unknown-method": {
    title: "an unknown method gets -32601",
    clause: "JSON-RPC 2.0 (5.1): a method that does not exist is answered with error -32601 Method not found",
    severity: "error",
  },
  "unknown-tool": {
    title: "an unknown tool gets a protocol error",
    clause: `${TOOLS} (error handling): unknown tools are protocol errors (JSON-RPC error, e.g. -32602)`,
    severity: "warning",
  },
  "invalid-arguments": {
    title: "invalid arguments get the error the revision prescribes",
    clause: `${TOOLS} (error handling): since 2025-11-25 input validation errors are tool execution errors (a result with isError)`,
    severity: "warning",
  },
  liveness: {
    title: "ping (2025) or server/discover (2026-07-28) answers",
    clause: "basic/utilities/ping: the receiver MUST respond promptly; 2026-07-28: server/discover",
    severity: "error",
  },
  cancellation: {
    title: "cancellation stops the work",
    clause: "basic/utilities/cancellation: the receiver SHOULD stop processing the cancelled request and not send a response",
    severity: "warning",
  },
  concurrency: {
    title: `${CONCURRENT_REQUESTS} requests in flight are all answered`,
    clause: "basic (requests): every request MUST get a response; JSON-RPC does not limit requests in flight",
    severity: "error",
  },
  "tool-calls": {
    title: "the tools that may be called answer",
    clause: `${TOOLS} (calling tools): a call gets a CallToolResult (content, or isError for a failure)`,
    severity: "error",
  },
  "resources-read": {
    title: "every listed resource reads",
    clause: "server/resources (reading resources): a listed resource's URI is read with resources/read",
    severity: "error",
  },
  "prompts-get": {
    title: "every listed prompt gets",
    clause: "server/prompts (getting a prompt): prompts/get returns the prompt's messages",
    severity: "error",
  },
  completion: {
    title: "completion answers where offered",
    clause: "server/utilities/completion: a server that declares completions answers completion/complete with completion.values",
    severity: "error",
  },
  "http-session": {
    title: "HTTP session lifecycle",
    clause: "basic/transports (Streamable HTTP, session management): an unknown or ended Mcp-Session-Id gets 404",
    severity: "error",
  },
  "http-origin": {
    title: "HTTP Origin validation",
    clause: "basic/transports (security warning): servers MUST validate the Origin header (403 for an invalid one)",
    severity: "error",
  },
  baseline: {
    title: "every --baseline entry still fails",
    clause: "mcp-inspect test --baseline: a known failure that now passes is a stale entry (remove it)",
    severity: "error",
  },
} as const satisfies Record<string, CheckSpec>;

export type CheckId = keyof typeof CHECKS;

/** A result for check `id`. */
export function result(id: CheckId, status: Status, seen: string): CheckResult {
  return { id, ...CHECKS[id], status, seen };
}

/** Up to MAX_LISTED items, then how many more. */
export function listed(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED).join("; ");
  return items.length > MAX_LISTED ? `${shown}; and ${items.length - MAX_LISTED} more` : shown;
}

/** Whether the run fails: an error-severity check failed that no baseline entry names. */
export function failed(results: CheckResult[]): boolean {
  return results.some((r) => r.status === "fail" && r.severity === "error" && !r.known);
}
