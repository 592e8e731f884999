// What a non-2xx answer to a POST means. A 2026-07-28 server refuses with a JSON-RPC error in the
// body: that is the request's answer. A 4xx to server/discover without one is a 2025-era server,
// answered as a stdio one would (method not found) so that every client falls back to initialize.
// A 404 to a request of a known session is that session gone; a 401 to a configured Authorization
// header is that header's fault; anything else is an HttpStatusError.
import { HttpStatusError, SessionExpiredError } from "../../io/fetch.ts";
import { ErrorCode, errorResponse, isRequest, type JsonRpcId, type JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { jsonRpcErrorIn } from "./bodies.ts";

/** JSON-RPC errors a 2026-07-28 server sends with a 4xx: they prove a modern server. */
export const MODERN_ERROR_CODES = new Set<number>([
  ErrorCode.UnsupportedProtocolVersion,
  ErrorCode.MissingClientCapability,
  ErrorCode.HeaderMismatch,
  ErrorCode.MethodNotFound,
]);
/** What a Streamable HTTP endpoint of 2025 (or an HTTP+SSE one) answers to a POST it does not take. */
export const LEGACY_REFUSALS = [400, 404, 405];

export interface Refused {
  message: JsonRpcMessage;
  requestId: JsonRpcId | undefined;
  /** The session the request was sent under. */
  sentSession: string | undefined;
  url: string;
  /** The target's own headers carry an Authorization (so OAuth is not ours to try). */
  configuredAuthorization: boolean;
}

/** The refusal as the request's answer, or as the error its sender gets. */
export function refusalOf(status: number, reply: string, refused: Refused): { answer: JsonRpcMessage } | { error: Error } {
  const { message, requestId, sentSession, url } = refused;
  const rpc = jsonRpcErrorIn(reply);
  if (requestId !== undefined && rpc && (rpc.id === requestId || MODERN_ERROR_CODES.has(rpc.error.code))) {
    return { answer: { ...rpc, id: requestId } };
  }
  if (
    requestId !== undefined &&
    isRequest(message) &&
    message.method === "server/discover" &&
    LEGACY_REFUSALS.includes(status) &&
    !sentSession
  ) {
    return {
      answer: errorResponse(requestId, ErrorCode.MethodNotFound, `server/discover is not known here (HTTP ${status}): a 2025-era server`),
    };
  }
  if (status === 404 && sentSession) return { error: new SessionExpiredError(sentSession, reply, url) };
  if (status === 401 && refused.configuredAuthorization) {
    const why =
      `${new URL(url).origin} rejected the configured Authorization header with HTTP 401 (fix the header, ` +
      "or remove it to sign in with OAuth)";
    return { error: new HttpStatusError(401, reply, url, why) };
  }
  return { error: new HttpStatusError(status, reply, url) };
}

export function hasAuthorization(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "authorization");
}
