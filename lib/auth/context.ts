// What signing in and refreshing share: the session they work for, how long a sign-in may wait for
// the browser, the fetch every auth request goes through, and the SDK's auth functions, loaded only
// when a server first asks for them.
import { cappedFetch } from "../io/capped-body.ts";
import { fetchWithinOrigin } from "../io/fetch.ts";
import { MAX_OAUTH_RESPONSE_BYTES } from "../wire/limits.ts";
import type { OAuthOptions } from "./oauth.ts";
import { CLIENT_METADATA_URL, type StoredProvider } from "./provider.ts";
import type { AuthStore } from "./store.ts";

/** How long a sign-in waits for the browser to come back. */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;

/** What signing in and refreshing need of the session they work for. */
export interface AuthContext {
  resource: string;
  store: AuthStore;
  options: OAuthOptions;
  /** fetch within the origin (redirects elsewhere refused). */
  fetch: typeof fetch;
  /**
   * The last auth answer that went past its cap since the last call, if any: the SDK swallows some
   * failures (resource metadata it cannot read) and fails later for another reason, so a sign-in's
   * error names this one first.
   */
  takeOverflow(): Error | undefined;
  /** Tells everyone who holds timers (the command's --timeout, the client's requests) that a person is, or no longer is, waited for. */
  userWait(waiting: boolean): void;
  /** Our client ID metadata document's URL (MCPKIT_CLIENT_METADATA_URL, else the published one; undefined: none). */
  metadataDocumentUrl: string | undefined;
  /** The SDK's provider on the token store, for this redirect (undefined: a refresh only), offering `clientMetadataUrl` when given. */
  provider(redirectUri: string | undefined, onredirect: (url: URL) => void, state?: string, clientMetadataUrl?: string): StoredProvider;
}

type Sdk = typeof import("@modelcontextprotocol/client");
let sdk: Promise<Sdk> | undefined;
export const loadSdk = () => (sdk ??= import("@modelcontextprotocol/client"));

/**
 * fetch for every auth request (discovery, registration, token, refresh, revocation): within the
 * origin, each body capped at MAX_OAUTH_RESPONSE_BYTES, ended by the command's signal, and each
 * request bounded by the callback timeout (the tools without --timeout have no other bound).
 */
export function authFetch(options: OAuthOptions, onoverflow?: (error: Error) => void): typeof fetch {
  const fetchImpl = options.fetch ?? fetch;
  const bound = options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS;
  const capped = cappedFetch(fetchImpl, MAX_OAUTH_RESPONSE_BYTES, onoverflow);
  return ((url: string | URL, init: RequestInit = {}) => {
    const signals = [init.signal, options.signal, AbortSignal.timeout(bound)].filter((s): s is AbortSignal => Boolean(s));
    return fetchWithinOrigin(url, { ...init, signal: AbortSignal.any(signals) }, capped);
  }) as typeof fetch;
}

/** Our client ID metadata document: MCPKIT_CLIENT_METADATA_URL (empty: none), else the published one. */
export function metadataDocumentUrl(): string | undefined {
  const fromEnv = process.env.MCPKIT_CLIENT_METADATA_URL;
  return fromEnv === undefined ? CLIENT_METADATA_URL : fromEnv || undefined;
}
