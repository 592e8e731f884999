// RFC 7009 token revocation, for logout: both tokens, to the authorization server's
// revocation_endpoint only when it is https (or loopback http), authenticated the way its
// metadata says (client_secret_basic by default for a client with a secret, as RFC 7009 does).
import { isBrowserSafeUrl } from "../terminal/browser.ts";
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

/** True when the server accepted at least one revocation; false when there was nothing (safe) to revoke with. */
export async function revokeTokens(entry: AuthEntry, client: RevokingClient | undefined, fetchFn: typeof fetch): Promise<boolean> {
  const metadata = (entry.discovery?.authorizationServerMetadata ?? {}) as ServerMetadata;
  const endpoint =
    metadata.revocation_endpoint && URL.canParse(metadata.revocation_endpoint) ? new URL(metadata.revocation_endpoint) : undefined;
  // Tokens and secrets go to no plain-http host, as for the token endpoint.
  if (!endpoint || !isBrowserSafeUrl(endpoint) || !entry.tokens || !client) return false;
  const methods = metadata.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported ?? [];
  const secret = client.client_secret;
  const basic = secret !== undefined && (methods.length === 0 || methods.includes("client_secret_basic"));
  let revoked = false;
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
    const answer = await fetchFn(endpoint, { method: "POST", headers, body }).catch(() => undefined);
    await answer?.body?.cancel().catch(() => {});
    revoked ||= answer?.ok === true;
  }
  return revoked;
}
