// RFC 7009 token revocation, for logout: both tokens, to the authorization server's
// revocation_endpoint only when it is https (or loopback http), authenticated the way its
// metadata says (client_secret_basic by default for a client with a secret, as RFC 7009 does).
import { readBodyHead } from "../io/fetch.ts";
import { oneLine } from "../io/text.ts";
import { isBrowserSafeUrl } from "../terminal/browser.ts";
import { MAX_ERROR_BODY_BYTES } from "../wire/limits.ts";
import type { AuthEntry } from "./store.ts";

interface ServerMetadata {
  revocation_endpoint?: string;
  revocation_endpoint_auth_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
}

export interface RevokingClient {
  client_id: string;
  client_secret?: string;
}

/** What logout achieved at the authorization server: revoked, or why not (a sentence). */
export type Revocation =
  | { revoked: true }
  /** `again`: logging out again may work (refused, unreachable, no client yet); else it never will. */
  | { revoked: false; why: string; again: boolean; unreachable?: boolean };

/**
 * Revokes the refresh token (which RFC 7009 has revoke the access tokens it issued), then the
 * access token. Revoked means the refresh token was (the access token, without one); anything
 * else says why not.
 */
export async function revokeTokens(entry: AuthEntry, client: RevokingClient | undefined, fetchFn: typeof fetch): Promise<Revocation> {
  const metadata = (entry.discovery?.authorizationServerMetadata ?? {}) as ServerMetadata;
  const named = metadata.revocation_endpoint;
  const endpoint = named && URL.canParse(named) ? new URL(named) : undefined;
  if (!entry.tokens) return { revoked: false, why: "no tokens are stored", again: false };
  if (!named) return { revoked: false, why: "the authorization server offers no token revocation (RFC 7009)", again: false };
  // Tokens and secrets go to no plain-http host, as for the token endpoint.
  if (!endpoint || !isBrowserSafeUrl(endpoint))
    return { revoked: false, why: `its revocation endpoint ${JSON.stringify(named)} is not an https (or loopback) URL`, again: false };
  if (!client)
    return {
      revoked: false,
      why: "no client is known to revoke them as (pass --client-id ID, and --client-secret-env VAR for a client with a secret)",
      again: true,
    };
  const methods = metadata.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported ?? [];
  const secret = client.client_secret;
  const basic = secret !== undefined && (methods.length === 0 || methods.includes("client_secret_basic"));
  const outcomes: ({ why: string; unreachable?: boolean } | undefined)[] = [];
  for (const [token, hint] of [
    [entry.tokens.refresh_token, "refresh_token"],
    [entry.tokens.access_token, "access_token"],
  ] as const) {
    if (!token) continue;
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if (basic) {
      headers.authorization = `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret!)}`)}`;
    } else {
      body.set("client_id", client.client_id);
      if (secret !== undefined) body.set("client_secret", secret);
    }
    outcomes.push(await revokeOne(endpoint, { method: "POST", headers, body }, fetchFn, secret !== undefined));
  }
  const first = outcomes[0];
  return first === undefined ? { revoked: true } : { revoked: false, again: true, ...first };
}

/** One revocation request: undefined when accepted, else why not. */
async function revokeOne(
  endpoint: URL,
  init: RequestInit,
  fetchFn: typeof fetch,
  hadSecret: boolean,
): Promise<{ why: string; unreachable?: boolean } | undefined> {
  let answer: Response;
  try {
    answer = await fetchFn(endpoint, init);
  } catch (error) {
    return { why: `its revocation endpoint could not be reached (${oneLine((error as Error).message)})`, unreachable: true };
  }
  if (answer.ok) {
    await answer.body?.cancel().catch(() => {});
    return undefined;
  }
  const said = await readBodyHead(answer, MAX_ERROR_BODY_BYTES).catch(() => "");
  const error = /"error"\s*:\s*"([^"]{1,100})"/.exec(said)?.[1];
  const refused = `the authorization server refused the revocation (HTTP ${answer.status}${error ? `: ${oneLine(error)}` : ""})`;
  // A confidential client logged out without its secret: the stored client never holds one.
  return {
    why:
      answer.status === 401 && !hadSecret
        ? `${refused}: a client with a secret revokes with it (pass --client-id ID --client-secret-env VAR)`
        : refused,
  };
}
