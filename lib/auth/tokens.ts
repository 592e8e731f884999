// Tokens: the Authorization header they make, when they are about to expire, the scopes wanted, and
// the refresh, under the resource's lock so that of many processes with the same expired token one
// redeems the refresh token and the rest read what it stored.

import { type AuthContext, CALLBACK_TIMEOUT_MS, loadSdk } from "./context.ts";
import { AuthRequiredError } from "./errors.ts";
import type { StoredTokens } from "./store.ts";

/** A token this close to its expiry is refreshed before it is used. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;

/** A refresh under the resource's lock; false when it cannot be done without a sign-in (another process's fresh tokens count). */
export async function refresh(ctx: AuthContext, used: StoredTokens): Promise<boolean> {
  return ctx.store.withLock(ctx.resource, CALLBACK_TIMEOUT_MS, undefined, async () => {
    // Another process may have refreshed while we waited for the lock.
    const now = ctx.store.read(ctx.resource).tokens;
    if (now && now.access_token !== used.access_token && !expiresSoon(now)) return true;
    if (!now?.refresh_token) return false;
    const { auth } = await loadSdk();
    const provider = ctx.provider(undefined, () => {
      // The refresh token was spent or revoked: a sign-in is due. The client itself refused is another matter, said as such.
      if (provider.clientRefused) throw new Error("the authorization server refused the client (invalid_client)");
      throw new AuthRequiredError("a refresh is not enough: the server wants a new sign-in");
    });
    try {
      return (await auth(provider, { serverUrl: ctx.resource, fetchFn: ctx.fetch })) === "AUTHORIZED";
    } catch (error) {
      if (error instanceof AuthRequiredError) return false;
      throw error;
    }
  });
}

export function headerFor(tokens: StoredTokens): string {
  return `${tokens.token_type === "DPoP" ? "DPoP" : "Bearer"} ${tokens.access_token}`;
}

/** Within REFRESH_BEFORE_EXPIRY_MS of its expiry, or the last half of a shorter lifetime (a fresh token is never "soon"). */
export function expiresSoon(tokens: StoredTokens): boolean {
  if (typeof tokens.expires_at !== "number") return false;
  const lifetime = typeof tokens.expires_in === "number" ? tokens.expires_in * 1000 : Infinity;
  return tokens.expires_at - Date.now() < Math.min(REFRESH_BEFORE_EXPIRY_MS, lifetime / 2);
}

/** The union of space-separated scope lists, or undefined when there are none. */
export function union(...lists: (string | undefined)[]): string | undefined {
  const scopes = new Set(lists.flatMap((list) => (list ?? "").split(/\s+/).filter(Boolean)));
  return scopes.size > 0 ? [...scopes].join(" ") : undefined;
}

export function originOf(url: string): string {
  return new URL(url).origin;
}
