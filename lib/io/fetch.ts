// HTTP as every tool does it: redirects followed only where the configured headers (a token, an
// API key) may go, and response bodies read with a cap, so a server that sends without end costs
// a bounded amount of memory.
import { Buffer } from "node:buffer";
import { MAX_REDIRECTS } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const SHOWN_BODY_CHARS = 200;

/** A non-2xx answer that carried no JSON-RPC error for us. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    url: string,
    /** What to say instead of the status line (an auth failure that names the command to run). */
    explanation?: string,
  ) {
    const shown = body.trim().slice(0, SHOWN_BODY_CHARS);
    super(explanation ?? `HTTP ${status} from ${url}${shown ? `: ${shown}` : ""}`);
    this.explained = explanation !== undefined;
  }

  /** The message already says what happened and what to do (no generic hint belongs after it). */
  readonly explained: boolean;
}

/** A 2025-era session the server no longer knows (HTTP 404 to its Mcp-Session-Id): it never saw the request, and a new session fixes it. */
export class SessionExpiredError extends HttpStatusError {
  constructor(
    readonly sessionId: string,
    body: string,
    url: string,
  ) {
    super(404, body, url, `session ${sessionId} expired or unknown (${body.slice(0, SHOWN_BODY_CHARS)})`);
  }
}

/** The server could not be reached at all: refused, no such host, a TLS failure, a reset connection. */
export class NetworkError extends Error {}

/** Credentials for every request of a connection, and what to do when the server refuses them. */
export interface HttpAuth {
  /** The Authorization header value, or undefined for none (yet). */
  authorization(): Promise<string | undefined>;
  /**
   * A 401 or 403 came back for a request sent with `sent` (the Authorization it carried): true
   * when the request may be sent again; throws when a sign-in is needed but not allowed.
   */
  recover(response: Response, sent: string | undefined, signal?: AbortSignal): Promise<boolean>;
  /** A request got through (the limits on recovering start over). */
  settled?(): void;
  /** The header as it stands, with no refresh and no waiting. */
  current?(): string | undefined;
  /** Tells `listener` when a recovery starts and stops waiting for a person (a sign-in in the browser). */
  watchUserWait?(listener: (waiting: boolean) => void): void;
}

/** Tries per request: a refresh, a sign-in, a step-up to wider scopes. */
export const MAX_AUTH_ATTEMPTS = 3;

/**
 * fetch with the connection's credentials: each request carries the current Authorization, and
 * a 401 or 403 lets `auth` recover (refresh, sign in, step up) before the request goes again.
 */
export function authorizedFetch(fetchImpl: typeof fetch, auth: HttpAuth): typeof fetch {
  return (async (url: string | URL, init: RequestInit = {}) => {
    for (let attempt = 0; ; attempt++) {
      const authorization = await auth.authorization();
      const headers = new Headers(init.headers);
      if (authorization) headers.set("Authorization", authorization);
      const response = await fetchImpl(url, { ...init, headers });
      if (response.status !== 401 && response.status !== 403) {
        auth.settled?.();
        return response;
      }
      if (attempt >= MAX_AUTH_ATTEMPTS) return response;
      let again: boolean;
      try {
        again = await auth.recover(response, authorization, init.signal ?? undefined);
      } catch (error) {
        await response.body?.cancel().catch(() => {});
        throw new HttpStatusError(response.status, "", String(url), (error as Error).message);
      }
      if (!again) return response;
      await response.body?.cancel().catch(() => {});
    }
  }) as typeof fetch;
}

/** A redirect we did not follow: the user may pass the new location on purpose. */
export class RedirectRefusedError extends Error {
  constructor(
    message: string,
    readonly location: string,
  ) {
    super(message);
  }
}

/**
 * fetch, following at most MAX_REDIRECTS redirects, and only within the origin (or from http to
 * https on the same host, default port to default port): Bun's own redirect handling carries
 * custom headers such as X-Api-Key to any host it is sent to. A redirect elsewhere is refused with
 * an error that names the new location.
 */
export async function fetchWithinOrigin(url: string | URL, init: RequestInit = {}, fetchImpl: typeof fetch = fetch): Promise<Response> {
  let current = new URL(url);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body;
  for (let hop = 0; ; hop++) {
    const response = await reachable(() => fetchImpl(current, { ...init, method, body, redirect: "manual" }), init.signal);
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectRefusedError(`${current.origin} redirected to ${JSON.stringify(location)}, which is not a URL`, location);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new RedirectRefusedError(`${current.origin} redirected to ${next.href}; only http(s) redirects are followed`, next.href);
    }
    if (!mayCarryHeaders(current, next)) {
      throw new RedirectRefusedError(
        `${current.origin} redirected to another origin (${next.href}); not followed, so your headers stay with ${current.origin} (use ` +
          `that URL instead if you trust it)`,
        next.href,
      );
    }
    if (hop >= MAX_REDIRECTS)
      throw new RedirectRefusedError(`${url} redirected more than ${MAX_REDIRECTS} times (last to ${next.href})`, next.href);
    // As the fetch standard does: 303 turns into a GET, and so do 301/302 after a POST.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    current = next;
  }
}

/** A fetch whose failure to reach the server at all becomes a NetworkError (an abort stays what it is). */
async function reachable(send: () => Promise<Response>, signal: AbortSignal | null | undefined): Promise<Response> {
  try {
    return await send();
  } catch (error) {
    if (signal?.aborted || error instanceof HttpStatusError || (error as Error).name === "AbortError") throw error;
    throw new NetworkError((error as Error).message, { cause: error });
  }
}

/** Same origin, or the same host moving from http to https (default port to default port). */
export function mayCarryHeaders(from: URL, to: URL): boolean {
  if (from.origin === to.origin) return true;
  return from.protocol === "http:" && to.protocol === "https:" && from.hostname === to.hostname && from.port === "" && to.port === "";
}

/**
 * A response body as text, up to `maxBytes`; past that the body is cancelled and the read fails
 * with the count so far. `wait`, when given, is awaited before each read (backpressure).
 */
export async function readBodyCapped(
  response: Pick<Response, "body">,
  maxBytes: number,
  wait?: () => Promise<void> | undefined,
): Promise<Result<string, { bytes: number }>> {
  if (!response.body) return { ok: true, value: "" };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    await wait?.();
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      return { ok: false, error: { bytes } };
    }
    chunks.push(value);
  }
  return { ok: true, value: new TextDecoder().decode(Buffer.concat(chunks, bytes)) };
}

/** The first `maxBytes` of a body (an error page, read for its message); the rest is not read. */
export async function readBodyHead(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, maxBytes - bytes));
      bytes += Math.min(value.length, maxBytes - bytes);
    }
  } catch {
    // A broken body: what arrived is all there is.
  }
  await reader.cancel().catch(() => {});
  return new TextDecoder().decode(Buffer.concat(chunks, bytes));
}
