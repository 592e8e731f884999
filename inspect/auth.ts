// `mcp-inspect auth`: sign in to a server now and keep its tokens (the other tools and later
// calls use them), --logout to revoke and forget them, --list to show what is stored: servers,
// scopes, expiry, never a token.
import type { OAuthSession } from "../lib/auth/oauth.ts";
import { type AuthEntry, AuthStore } from "../lib/auth/store.ts";
import { type ChannelAuth, oauthFor } from "../lib/open.ts";
import type { HttpTarget } from "../lib/targets/target.ts";
import { CommandError, EXIT } from "./output.ts";

export interface StoredSignIn {
  resource: string;
  issuer?: string;
  scopes?: string[];
  expiresAt?: string;
  refreshable: boolean;
}

/** What may be shown of an entry: never a token, never a secret. */
export function describeEntry(entry: AuthEntry): StoredSignIn {
  const tokens = entry.tokens;
  return {
    resource: entry.resource,
    ...(entry.issuer ? { issuer: entry.issuer } : {}),
    ...(tokens?.scope ? { scopes: tokens.scope.split(/\s+/).filter(Boolean) } : {}),
    ...(typeof tokens?.expires_at === "number" ? { expiresAt: new Date(tokens.expires_at).toISOString() } : {}),
    refreshable: Boolean(tokens?.refresh_token),
  };
}

export function listSignIns(): { servers: StoredSignIn[] } {
  return {
    servers: AuthStore.open()
      .list()
      .filter((entry) => entry.tokens)
      .map(describeEntry),
  };
}

async function sessionFor(target: HttpTarget, auth: ChannelAuth): Promise<OAuthSession> {
  // The user asked for it: whatever the target's headers say, this signs in.
  const session = await oauthFor({ ...target, headers: {} }, { ...auth, signIn: "yes" });
  if (!session) throw new Error(`no OAuth for ${target.url}`);
  return session;
}

export async function signIn(target: HttpTarget, auth: ChannelAuth): Promise<StoredSignIn> {
  await (await sessionFor(target, auth)).signInNow(auth.signal);
  return describeEntry(AuthStore.open().read(target.url));
}

/** Revokes and forgets; tokens that could not be revoked are an error that says why, and whether they were kept. */
export async function logout(target: HttpTarget, auth: ChannelAuth): Promise<{ resource: string; revoked: boolean; forgotten: boolean }> {
  const { why, unreachable, ...outcome } = await (await sessionFor(target, auth)).logout();
  if (why === undefined) return { resource: target.url, ...outcome };
  const message = outcome.forgotten
    ? `the tokens for ${target.url} are forgotten here but not revoked: ${why}, so they stay valid at the authorization server ` +
      "until they expire"
    : `the tokens for ${target.url} were not revoked: ${why}; they are kept, so that logging out again can revoke them`;
  throw new CommandError(unreachable ? EXIT.connection : EXIT.auth, message, { resource: target.url, ...outcome });
}
