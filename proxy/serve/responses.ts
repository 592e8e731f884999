// The HTTP answers serve makes itself (before a message reaches any server): a JSON-RPC error as
// the body, with the status the Streamable HTTP transport gives it.
import type { JsonRpcId } from "../../lib/wire/jsonrpc.ts";

export function jsonRpcErrorResponse(status: number, id: JsonRpcId | null, code: number, message: string, data?: unknown): Response {
  const error = { code, message, ...(data === undefined ? {} : { data }) };
  return Response.json({ jsonrpc: "2.0", id, error }, { status });
}
