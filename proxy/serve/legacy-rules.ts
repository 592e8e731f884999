// What a request of a 2025 session may be before it reaches the session: the Accept it must carry,
// the protocol version header, the methods, the shape of a POST's messages. The statuses and
// messages are the SDK's Streamable HTTP server transport's, so a client sees no difference.
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { ErrorCode, type JsonRpcMessage, validateMessage } from "../../lib/wire/jsonrpc.ts";
import { jsonRpcErrorResponse } from "./responses.ts";

/** Messages in one POST at most (as the SDK's transport). */
export const MAX_BATCH_MESSAGES = 100;

export function refused(status: number, code: number, message: string): Response {
  return jsonRpcErrorResponse(status, null, code, message);
}

export function sessionNotFound(): Response {
  return refused(404, -32001, "Session not found");
}

export function methodNotAllowed(): Response {
  const response = refused(405, -32000, "Method not allowed.");
  response.headers.set("allow", "GET, POST, DELETE");
  return response;
}

/** A POST's messages, checked one by one; or the response that refuses them. */
export function postedMessages(request: Request, body: unknown): JsonRpcMessage[] | Response {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
    return refused(406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream");
  if (Array.isArray(body) && body.length > MAX_BATCH_MESSAGES)
    return refused(400, ErrorCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_MESSAGES} messages`);
  const messages: JsonRpcMessage[] = [];
  for (const value of Array.isArray(body) ? body : [body]) {
    const checked = validateMessage(value);
    if (!checked.ok) return refused(400, ErrorCode.ParseError, "Parse error: Invalid JSON-RPC message");
    messages.push(checked.value);
  }
  return messages;
}

/** A GET that cannot open a stream: no text/event-stream in its Accept, or a version not spoken. */
export function getRefusal(request: Request): Response | undefined {
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream"))
    return refused(406, -32000, "Not Acceptable: Client must accept text/event-stream");
  return versionRefusal(request);
}

/** A version header this transport does not speak (none: the version the session began with). */
export function versionRefusal(request: Request): Response | undefined {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const supported = SUPPORTED_PROTOCOL_VERSIONS.join(", ");
  return refused(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`);
}

/** Whether a stream for a client of `version` may begin with an event without data (before 2025-11-25 it may not). */
export function mayPrime(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version >= "2025-11-25";
}
