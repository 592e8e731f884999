// The one OAuth client of every tool, on the SDK's auth functions (loaded only when a server asks
// for a sign-in or a refresh): the Authorization header for each request, refreshed shortly
// before it expires; and what to do when the server refuses: refresh (after a 401), sign in anew
// (asking first on a terminal, or at once when told to, or not at all: then an error naming the
// command that signs in), or step up to wider scopes (a 403 with insufficient_scope), a bounded
// number of times. One refresh or sign-in at a time per resource, across processes: the one that
// waited re-reads the store and uses what the other got.
import { randomBytes } from "node:crypto";
import { fetchWithinOrigin } from "../io/fetch.ts";
import { oneLine } from "../io/text.ts";
import type { Asker } from "../terminal/asker.ts";
import { openInBrowser } from "../terminal/browser.ts";
import { listenForCallback } from "./callback.ts";
import { AuthRequiredError, signInError } from "./errors.ts";
import { CLIENT_METADATA_URL, type PreRegisteredClient, StoredProvider } from "./provider.ts";
import { pastedCallback, unsafeAuthorizationUrl, waitFor } from "./redirect.ts";
import { revokeTokens } from "./revoke.ts";
import { AuthStore, type StoredTokens } from "./store.ts";

/** A token this close to its expiry is refreshed before it is used. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;
/** How long a sign-in waits for the browser to come back. */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;
/** Step-ups to wider scopes before a request gets through: a server that keeps refusing cannot loop. */
export const MAX_STEP_UPS = 2;
/** Fresh sign-ins after a 401 before a request gets through. */
export const MAX_SIGN_INS = 1;
const STATE_BYTES = 32;
/** A sign-in's lock is waited for as long as the sign-in it waits on may take, and a little more. */
const SIGN_IN_LOCK_SLACK_MS = 30_000;
/** The redirect URI a pasted sign-in registers: loopback, any port. */
const PORTLESS_REDIRECT = "http://127.0.0.1/callback";

export interface OAuthOptions {
  /** "ask": on a terminal, ask first; "yes": sign in without asking; "no": never (an error names the command). */
  signIn: "ask" | "yes" | "no";
  ui: Asker;
  /** How the user signs in by hand, for errors: e.g. `mcp-inspect auth --url https://…`. */
  signInCommand: string;
  /** Open the browser (else only print the URL: --no-browser, where the redirect URL is pasted back). */
  browser?: boolean;
  client?: PreRegisteredClient;
  /** Scopes wanted on top of what the server asks for. */
  scopes?: string[];
  callbackPort?: number;
  callbackTimeoutMs?: number;
  store?: AuthStore;
  fetch?: typeof fetch;
  /** Opens the browser (tests and $BROWSER aside, the platform's opener). */
  openUrl?: (url: string) => Promise<void>;
  /** Aborting stops waiting for the browser (Ctrl-C at the chat prompt). */
  signal?: AbortSignal;
  /** Told when we start and stop waiting for the person (a question, the browser): a command's --timeout holds meanwhile. */
  onuserwait?: (waiting: boolean) => void;
}

export { AuthRequiredError } from "./errors.ts";

type Sdk = typeof import("@modelcontextprotocol/client");
let sdk: Promise<Sdk> | undefined;
const loadSdk = () => (sdk ??= import("@modelcontextprotocol/client"));

export class OAuthSession {
  readonly resource: string;
  readonly #options: OAuthOptions;
  #opened?: AuthStore;
  readonly #fetch: typeof fetch;
  #recovering?: Promise<boolean>;
  #stepUps = 0;
  #signIns = 0;

  constructor(resource: string, options: OAuthOptions) {
    this.resource = resource;
    this.#options = options;
    this.#opened = options.store;
    const fetchImpl = options.fetch ?? fetch;
    this.#fetch = ((url: string | URL, init?: RequestInit) => fetchWithinOrigin(url, init, fetchImpl)) as typeof fetch;
  }

  /** The token store, opened (and its directory made) when a server first refuses us. */
  get #store(): AuthStore {
    this.#opened ??= AuthStore.open();
    return this.#opened;
  }

  /** The stored tokens, if a store exists at all: a server that wants no sign-in makes none, and a store we cannot read is no store. */
  #storedTokens(): StoredTokens | undefined {
    try {
      if (!this.#opened && !AuthStore.exists()) return undefined;
      return this.#store.read(this.resource).tokens;
    } catch {
      return undefined;
    }
  }

  /** The Authorization header for the next request (refreshed first when it is about to expire), or none yet. */
  async authorization(): Promise<string | undefined> {
    let tokens = this.#storedTokens();
    if (tokens && expiresSoon(tokens) && tokens.refresh_token) {
      await this.#refresh(tokens).catch(() => false);
      tokens = this.#storedTokens();
    }
    return tokens ? headerFor(tokens) : undefined;
  }

  /** The header as stored, with no refresh and no waiting (for a request that must not start a sign-in). */
  current(): string | undefined {
    const tokens = this.#storedTokens();
    return tokens ? headerFor(tokens) : undefined;
  }

  /** A request got through: the limits on sign-ins and step-ups start over for the next refusal. */
  settled(): void {
    this.#signIns = 0;
    this.#stepUps = 0;
  }

  /**
   * The server answered 401 or 403. True when the request may be sent again (tokens were
   * refreshed, a sign-in or a step-up succeeded); throws AuthRequiredError when no sign-in may
   * happen here. Concurrent refusals share one recovery.
   */
  recover(response: Response, sentAuthorization?: string, signal?: AbortSignal): Promise<boolean> {
    this.#recovering ??= this.#recover(response, sentAuthorization, signal).finally(() => (this.#recovering = undefined));
    return this.#recovering;
  }

  async #recover(response: Response, sentAuthorization: string | undefined, signal: AbortSignal | undefined): Promise<boolean> {
    const { extractWWWAuthenticateParams } = await loadSdk();
    const challenge = extractWWWAuthenticateParams(response);
    const stored = this.#store.read(this.resource).tokens;
    // Another process stored new tokens since this request went out: try those before anything else.
    if (response.status === 401 && stored && headerFor(stored) !== sentAuthorization && !expiresSoon(stored)) return true;
    // The tokens the server refused (a refresh starts from them); none when the request carried none of ours.
    const sent = response.status === 401 && stored && headerFor(stored) === sentAuthorization ? stored : undefined;
    if (response.status === 403) {
      // Only insufficient_scope is a step-up; any other 403 is a refusal.
      if (challenge.error !== "insufficient_scope") return false;
      if (this.#stepUps >= MAX_STEP_UPS)
        throw new AuthRequiredError(
          `${originOf(this.resource)} still refuses with insufficient_scope after ${MAX_STEP_UPS} step-ups (wanted: ` +
            `${challenge.scope ?? "?"})`,
        );
      const wanted = union(this.#storedTokens()?.scope, challenge.scope, ...(this.#options.scopes ?? []));
      if (this.#options.signIn === "no") {
        // Kept, so that the command named here asks for exactly this.
        this.#store.update(this.resource, (entry) => void (entry.wantedScope = wanted));
        throw new AuthRequiredError(
          `${originOf(this.resource)} needs wider access (scopes: ${wanted ?? "?"}): run ${this.#options.signInCommand}`,
        );
      }
      const stepped = await this.#signIn({ scope: wanted, force: true, resourceMetadataUrl: challenge.resourceMetadataUrl, signal });
      this.#stepUps++;
      return stepped;
    }
    if (sent?.refresh_token && (await this.#refresh(sent).catch(() => false))) return true;
    if (this.#options.signIn === "no") {
      // No Bearer challenge: the server may want an API key rather than OAuth.
      const orHeader = /^\s*Bearer\b/i.test(response.headers.get("www-authenticate") ?? "")
        ? ""
        : ', or pass --header "Authorization: Bearer <token>"';
      throw new AuthRequiredError(`${originOf(this.resource)} requires a sign-in (run ${this.#options.signInCommand}${orHeader})`);
    }
    if (this.#signIns >= MAX_SIGN_INS)
      throw new AuthRequiredError(
        `${originOf(this.resource)} still answers HTTP 401 right after a sign-in (check the server's OAuth setup, or run ` +
          `${this.#options.signInCommand})`,
      );
    const scope = await this.#wantedScope(challenge.scope, challenge.resourceMetadataUrl);
    const signedIn = await this.#signIn({
      scope,
      force: false,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      rejected: sent,
      signal,
    });
    this.#signIns++;
    return signedIn;
  }

  /**
   * Scopes for a sign-in: the challenge's, else the resource metadata's scopes_supported, plus
   * the entry's own (the union). Without configured scopes the SDK finds scopes_supported itself.
   */
  async #wantedScope(challenged: string | undefined, resourceMetadataUrl: URL | undefined): Promise<string | undefined> {
    const configured = this.#options.scopes ?? [];
    if (challenged || configured.length === 0) return union(challenged, ...configured);
    const { discoverOAuthProtectedResourceMetadata } = await loadSdk();
    const metadata = await discoverOAuthProtectedResourceMetadata(this.resource, { resourceMetadataUrl }, this.#fetch).catch(
      () => undefined,
    );
    return union(metadata?.scopes_supported?.join(" "), ...configured);
  }

  /**
   * Signs in now (mcp-inspect auth): whatever the policy says, the user asked for it. The server
   * is asked first, unauthenticated, for its challenge (where its metadata is, what scopes it wants).
   */
  async signInNow(signal?: AbortSignal): Promise<void> {
    const challenge = await this.#probe();
    const entry = this.#store.read(this.resource);
    const scope = union(entry.wantedScope, entry.tokens?.scope, await this.#wantedScope(challenge.scope, challenge.resourceMetadataUrl));
    await this.#signIn({ scope, force: true, explicit: true, resourceMetadataUrl: challenge.resourceMetadataUrl, signal });
  }

  /** The server's WWW-Authenticate to a request without credentials ({} when it has none to give). */
  async #probe(): Promise<{ scope?: string; resourceMetadataUrl?: URL }> {
    const { extractWWWAuthenticateParams } = await loadSdk();
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" });
    const answer = await this.#fetch(this.resource, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: ping,
    }).catch(() => undefined);
    await answer?.body?.cancel().catch(() => {});
    return answer && (answer.status === 401 || answer.status === 403) ? extractWWWAuthenticateParams(answer) : {};
  }

  /** Forgets the stored tokens, revoking them first where the authorization server offers revocation (RFC 7009). */
  async logout(): Promise<{ revoked: boolean; forgotten: boolean }> {
    return this.#store.withLock(this.resource, CALLBACK_TIMEOUT_MS, undefined, async () => {
      const entry = this.#store.read(this.resource);
      const configured = this.#options.client;
      const client = configured
        ? { client_id: configured.clientId, ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}) }
        : entry.client;
      const revoked = await revokeTokens(entry, client, this.#fetch);
      return { revoked, forgotten: this.#store.forget(this.resource) };
    });
  }

  /** A refresh under the resource's lock; false when it cannot be done without a sign-in. */
  async #refresh(used: StoredTokens): Promise<boolean> {
    return this.#store.withLock(this.resource, CALLBACK_TIMEOUT_MS, undefined, async () => {
      // Another process may have refreshed while we waited for the lock.
      const now = this.#store.read(this.resource).tokens;
      if (now && now.access_token !== used.access_token && !expiresSoon(now)) return true;
      if (!now?.refresh_token) return false;
      const { auth } = await loadSdk();
      const provider = this.#provider(undefined, () => {
        throw new AuthRequiredError("a refresh is not enough: the server wants a new sign-in");
      });
      try {
        return (await auth(provider, { serverUrl: this.resource, fetchFn: this.#fetch })) === "AUTHORIZED";
      } catch (error) {
        if (error instanceof AuthRequiredError) return false;
        throw error;
      }
    });
  }

  async #signIn(request: {
    scope?: string;
    force: boolean;
    explicit?: boolean;
    resourceMetadataUrl?: URL;
    rejected?: StoredTokens;
    signal?: AbortSignal;
  }): Promise<boolean> {
    const policy = request.explicit ? "yes" : this.#options.signIn;
    if (policy === "no") throw new AuthRequiredError(`${originOf(this.resource)} requires a sign-in (run ${this.#options.signInCommand})`);
    const signal = anySignal(this.#options.signal, request.signal);
    const waitMs = (this.#options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS) + SIGN_IN_LOCK_SLACK_MS;
    this.#options.onuserwait?.(true);
    try {
      return await this.#store.withLock(this.resource, waitMs, signal, async () => {
        // Three proxies started at once: the first signs in, the others find its tokens here.
        const current = this.#store.read(this.resource).tokens;
        if (!request.force && current && current.access_token !== request.rejected?.access_token && !expiresSoon(current)) return true;
        await oneAtATime(async () => {
          if (policy === "ask") {
            const yes = await this.#options.ui.confirm?.(`${originOf(this.resource)} requires a sign-in. Sign in with your browser?`);
            if (!yes)
              throw new AuthRequiredError(
                `signing in to ${originOf(this.resource)} was declined (run ${this.#options.signInCommand} to sign in)`,
              );
          }
          await this.#authorizeInBrowser(request.scope, request.force, request.resourceMetadataUrl, signal);
        });
        this.#store.update(this.resource, (entry) => void delete entry.wantedScope);
        return true;
      });
    } catch (error) {
      if (signal?.aborted && !(error instanceof AuthRequiredError))
        throw new AuthRequiredError(`signing in to ${originOf(this.resource)} was cancelled`);
      throw error;
    } finally {
      this.#options.onuserwait?.(false);
    }
  }

  /** The authorization code flow with PKCE S256: the browser (or a pasted URL) brings the code back. */
  async #authorizeInBrowser(
    scope: string | undefined,
    force: boolean,
    resourceMetadataUrl: URL | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { auth } = await loadSdk();
    const { ui } = this.#options;
    const state = randomBytes(STATE_BYTES).toString("base64url");
    const paste = this.#options.browser === false && ui.ask !== undefined;
    // A new sign-in discovers anew: the server's metadata (and where it lives) may have moved.
    const entry = this.#store.update(this.resource, (stored) => void delete stored.discovery);
    const storedPort = entry.redirectUri ? Number(new URL(entry.redirectUri).port) || undefined : undefined;
    const callback = paste ? undefined : await this.#listen(state, this.#options.callbackPort ?? storedPort);
    // Pasting needs no listener: a loopback redirect without a port matches any (RFC 8252 section 7.3).
    const pinned = this.#options.callbackPort;
    const redirectUri =
      callback?.redirectUrl.href ?? entry.redirectUri ?? (pinned ? `http://127.0.0.1:${pinned}/callback` : PORTLESS_REDIRECT);
    let authorizationUrl: URL | undefined;
    let refusal: Error | undefined;
    const provider: StoredProvider = this.#provider(
      redirectUri,
      (url) => {
        const metadata = provider.discoveryState()?.authorizationServerMetadata as
          | { code_challenge_methods_supported?: string[] }
          | undefined;
        // No metadata at all is a 2025-03-26 server on its default endpoints, which predates the rule.
        const problem = unsafeAuthorizationUrl(url, state, metadata ? (metadata.code_challenge_methods_supported ?? []) : ["S256"]);
        if (problem) throw (refusal = new AuthRequiredError(problem));
        authorizationUrl = url;
      },
      state,
    );
    try {
      const first = await auth(provider, {
        serverUrl: this.resource,
        scope,
        resourceMetadataUrl,
        fetchFn: this.#fetch,
        forceReauthorization: force,
      }).catch((error: unknown) => {
        throw refusal ?? signInError(this.resource, error, this.#options.signInCommand);
      });
      if (first === "AUTHORIZED") return;
      if (!authorizationUrl) throw new AuthRequiredError(`${originOf(this.resource)} gave no authorization URL`);
      ui.print(
        `Sign in to ${originOf(this.resource)}: open this URL in a browser${paste ? ", then paste the address it sends you to" : ""}:`,
      );
      ui.print(authorizationUrl.href);
      if (this.#options.browser !== false) void (this.#options.openUrl ?? openInBrowser)(authorizationUrl.href).catch(() => {});
      const params = paste
        ? pastedCallback((await ui.ask!("Paste the redirect URL here: ")) ?? "", state)
        : await waitFor(callback!.params, {
            ms: this.#options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS,
            timeout: `timed out waiting for the browser to come back to ${redirectUri} (run ${this.#options.signInCommand} to try again)`,
            signal,
            aborted: `signing in to ${originOf(this.resource)} was cancelled`,
          });
      const code = params.get("code");
      if (!code) {
        const error = params.get("error") ?? "no code";
        const description = params.get("error_description");
        throw new AuthRequiredError(
          oneLine(`the authorization server did not grant access: ${error}${description ? ` (${description})` : ""}`),
        );
      }
      await auth(provider, {
        serverUrl: this.resource,
        authorizationCode: code,
        iss: params.get("iss") ?? undefined,
        fetchFn: this.#fetch,
      }).catch((error: unknown) => {
        throw signInError(this.resource, error, this.#options.signInCommand);
      });
      ui.print(`Signed in to ${originOf(this.resource)}.`);
    } finally {
      await callback?.close();
    }
  }

  /** The loopback listener, on the port the client was registered with when that port is free. */
  async #listen(state: string, port: number | undefined) {
    try {
      return await listenForCallback(port ?? 0, state);
    } catch (error) {
      // The stored port is taken: a new port means a new registration (unless the port was pinned).
      if (this.#options.callbackPort !== undefined || port === undefined) throw error;
      this.#store.update(this.resource, (entry) => {
        delete entry.client;
        delete entry.redirectUri;
      });
      return listenForCallback(0, state);
    }
  }

  #provider(
    redirectUri: string | undefined,
    onredirect: (url: URL) => void,
    state = randomBytes(STATE_BYTES).toString("base64url"),
  ): StoredProvider {
    const fromEnv = process.env.MCPKIT_CLIENT_METADATA_URL;
    return new StoredProvider({
      store: this.#store,
      resource: this.resource,
      redirectUri,
      client: this.#options.client,
      clientMetadataUrl: fromEnv === undefined ? CLIENT_METADATA_URL : fromEnv || undefined,
      onredirect,
      state,
    });
  }
}

// Interactive sign-ins in one process run one at a time, whatever their server: a host or a
// daemon with several servers must not ask two questions at once, and a pinned callback port
// serves one sign-in at a time.
let interactive: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(run: () => Promise<T>): Promise<T> {
  const turn = interactive.then(run, run);
  interactive = turn.catch(() => {});
  return turn;
}

function headerFor(tokens: StoredTokens): string {
  return `${tokens.token_type === "DPoP" ? "DPoP" : "Bearer"} ${tokens.access_token}`;
}

/** Within REFRESH_BEFORE_EXPIRY_MS of its expiry, or the last half of a shorter lifetime (a fresh token is never "soon"). */
function expiresSoon(tokens: StoredTokens): boolean {
  if (typeof tokens.expires_at !== "number") return false;
  const lifetime = typeof tokens.expires_in === "number" ? tokens.expires_in * 1000 : Infinity;
  return tokens.expires_at - Date.now() < Math.min(REFRESH_BEFORE_EXPIRY_MS, lifetime / 2);
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
}

/** The union of space-separated scope lists, or undefined when there are none. */
export function union(...lists: (string | undefined)[]): string | undefined {
  const scopes = new Set(lists.flatMap((list) => (list ?? "").split(/\s+/).filter(Boolean)));
  return scopes.size > 0 ? [...scopes].join(" ") : undefined;
}

function originOf(url: string): string {
  return new URL(url).origin;
}
