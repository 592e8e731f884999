// Questions a 2025 server asks mid-call through mcp-daemon, answered by a later command: the
// client that cannot answer (no terminal) asks the daemon to park the question; the daemon keeps
// the question and the call waiting for a bounded time, tells the client the question's key, and
// answers the question when a later call of the same session brings `inputResponses` for that key
// (then that call gets the waiting call's result). The same answers file as 2026-07-28's.

import { ErrorCode } from "../wire/jsonrpc.ts";

/** The error a client answers a server's question with (ErrorCode.ParkQuestion), to have the daemon park it. */
export const PARK_ERROR_MESSAGE = "mcpkit: park this question for a later call";
/** The daemon's word to the client: the question is parked under this key. */
export const PARKED_NOTIFICATION = "notifications/mcpkit/parked";
/** Keys of parked questions: never mistaken for a 2026 server's own input keys. */
export const PARKED_KEY_PREFIX = "mcpkit-question-";
/** How long a parked question (and its call) waits for its answer. */
export const PARKED_TTL_MS = 10 * 60_000;

export function isParkRequest(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === ErrorCode.ParkQuestion;
}
