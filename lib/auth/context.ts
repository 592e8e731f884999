// What signing in and refreshing share: the session they work for, how long a sign-in may wait for
// the browser, and the SDK's auth functions, loaded only when a server first asks for them.
import type { OAuthOptions } from "./oauth.ts";
import type { StoredProvider } from "./provider.ts";
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
  /** Tells everyone who holds timers (the command's --timeout, the client's requests) that a person is, or no longer is, waited for. */
  userWait(waiting: boolean): void;
  /** The SDK's provider on the token store, for this redirect (undefined: a refresh only). */
  provider(redirectUri: string | undefined, onredirect: (url: URL) => void, state?: string): StoredProvider;
}

type Sdk = typeof import("@modelcontextprotocol/client");
let sdk: Promise<Sdk> | undefined;
export const loadSdk = () => (sdk ??= import("@modelcontextprotocol/client"));
