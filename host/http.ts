// The host's HTTP servers, on the SDK's own transports: Streamable HTTP, and the deprecated
// HTTP+SSE when the server refuses the first POST the way those servers do (as mcp-inspect does).
// Credentials come from lib's one OAuth client and token store: every request carries the stored
// token, and a 401 or 403 at any request refreshes, signs in (asking first) or steps up.
import { SdkHttpError, SSEClientTransport, StreamableHTTPClientTransport, type Client, type Transport } from "@modelcontextprotocol/client";
import { authorizedFetch, fetchWithinOrigin, HttpStatusError } from "../lib/fetch.ts";
import { stripControl } from "../lib/log.ts";
import { oauthFor, type ChannelAuth } from "../lib/open-channel.ts";
import type { HttpTarget } from "../lib/target.ts";

/** What a Streamable HTTP endpoint never answers to a POST, and a 2024-11-05 HTTP+SSE one does. */
const LEGACY_REFUSALS = [400, 404, 405];

/** Connects `client` to the HTTP server `target` and returns the connected transport. */
export async function connectHttp(client: Client, target: HttpTarget, auth: ChannelAuth): Promise<Transport> {
  const session = oauthFor(target, auth);
  // Redirects as every mcpkit tool follows them: headers stay with their origin.
  const withinOrigin = ((url: string | URL, init?: RequestInit) => fetchWithinOrigin(url, init)) as typeof fetch;
  const fetchFn = session ? authorizedFetch(withinOrigin, session) : withinOrigin;
  const url = new URL(target.url);
  const requestInit: RequestInit = { headers: target.headers };
  const legacy = () => new SSEClientTransport(url, { requestInit, fetch: fetchFn });
  if (target.transport === "sse") return connectWith(client, legacy(), target);
  try {
    return await connectWith(client, new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFn }), target);
  } catch (error) {
    if (target.transport === "streamable-http" || !LEGACY_REFUSALS.includes(statusOf(error) ?? 0)) throw error;
    try {
      return await connectWith(client, legacy(), target);
    } catch {
      throw error; // what the Streamable HTTP attempt said is the clearer story
    }
  }
}

async function connectWith(client: Client, transport: Transport, target: HttpTarget): Promise<Transport> {
  try {
    await client.connect(transport);
    return transport;
  } catch (error) {
    await transport.close().catch(() => {});
    throw explained(error, target);
  }
}

/** The HTTP status behind an SDK transport error (or ours), when there is one. */
function statusOf(error: unknown): number | undefined {
  const found = error as { status?: unknown; data?: { status?: unknown } } | null;
  if (typeof found?.status === "number") return found.status;
  if (SdkHttpError.isInstance(error) && typeof found?.data?.status === "number") return found.data.status;
  const match = /\(HTTP (\d{3})\)/.exec(error instanceof Error ? error.message : "");
  return match ? Number(match[1]) : undefined;
}

/** One line that says what to do: a refused sign-in names the command, a refused header says so. */
function explained(error: unknown, target: HttpTarget): Error {
  const status = statusOf(error);
  const hasHeader = Object.keys(target.headers).some((name) => name.toLowerCase() === "authorization");
  let text: string;
  if (hasHeader && status === 401) {
    text = `${new URL(target.url).origin} rejected the configured Authorization header with HTTP 401 (fix the header, or remove it to sign in with OAuth)`;
  } else if (error instanceof Error && error.cause instanceof HttpStatusError) {
    text = error.cause.message;
  } else if (SdkHttpError.isInstance(error) && status !== undefined) {
    // The SDK quotes the whole body (often an HTML error page): the status says it better.
    text = `HTTP ${status} from ${target.url}`;
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  const wrapped = new Error(stripControl(text.replace(/\s+/g, " ")).trim());
  if (status !== undefined) (wrapped as Error & { status?: number }).status = status;
  return wrapped;
}
