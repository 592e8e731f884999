// The one OAuth client of every tool, on the SDK's auth functions (loaded only when a server asks
// for a sign-in or a refresh): the Authorization header for each request, refreshed shortly
// before it expires; and what to do when the server refuses: refresh (after a 401), sign in anew
// (asking first on a terminal, or at once when told to, or not at all: then an error naming the
// command that signs in), or step up to wider scopes (a 403 with insufficient_scope), a bounded
// number of times. One refresh or sign-in at a time per resource, across processes: the one that
// waited re-reads the store and uses what the other got.
import { randomBytes } from "node:crypto";
import { isBrowserSafeUrl, openInBrowser } from "../browser.ts";
import { fetchWithinOrigin } from "../fetch.ts";
import { stripControl } from "../log.ts";
import { listenForCallback } from "./callback.ts";
import { CLIENT_METADATA_URL, StoredProvider, type PreRegisteredClient } from "./provider.ts";
import { AuthStore, type StoredTokens } from "./store.ts";

/** A token this close to its expiry is refreshed before it is used. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;
/** How long a sign-in waits for the browser to come back. */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;
/** Step-ups to wider scopes one connection may make: a server that keeps refusing cannot loop. */
export const MAX_STEP_UPS = 2;
/** Fresh sign-ins one connection may make after a 401. */
export const MAX_SIGN_INS = 1;
const STATE_BYTES = 32;

export interface AuthUi {
  /** One line for the user (the URL to open, what happened): on stderr, never stdout. */
  print(line: string): void;
  /** A yes/no question; only where there is a terminal. */
  confirm?(question: string): Promise<boolean>;
  /** A line the user pastes (the redirect URL, with --no-browser); only where there is a terminal. */
  readLine?(prompt: string): Promise<string>;
}

export interface OAuthOptions {
  /** "ask": on a terminal, ask first; "yes": sign in without asking; "no": never (an error names the command). */
  signIn: "ask" | "yes" | "no";
  ui: AuthUi;
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
}

/** The server wants a sign-in this process may not do (or the user declined): exit 3. */
export class AuthRequiredError extends Error {}

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

  /** The token store, opened (and its directory made) on first use: a server that wants no sign-in never touches it. */
  get #store(): AuthStore {
    this.#opened ??= AuthStore.open();
    return this.#opened;
  }

  /** The Authorization header for the next request (refreshed first when it is about to expire), or none yet. */
  async authorization(): Promise<string | undefined> {
    let tokens = this.#store.read(this.resource).tokens;
    if (tokens && expiresSoon(tokens) && tokens.refresh_token) {
      await this.#refresh(tokens).catch(() => false);
      tokens = this.#store.read(this.resource).tokens;
    }
    return tokens ? headerFor(tokens) : undefined;
  }

  /**
   * The server answered 401 or 403. True when the request may be sent again (tokens were
   * refreshed, a sign-in or a step-up succeeded); throws AuthRequiredError when no sign-in may
   * happen here. Concurrent refusals share one recovery.
   */
  recover(response: Response, sentAuthorization?: string): Promise<boolean> {
    this.#recovering ??= this.#recover(response, sentAuthorization).finally(() => (this.#recovering = undefined));
    return this.#recovering;
  }

  async #recover(response: Response, sentAuthorization: string | undefined): Promise<boolean> {
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
      if (this.#stepUps >= MAX_STEP_UPS) throw new AuthRequiredError(`${originOf(this.resource)} still refuses with insufficient_scope after ${MAX_STEP_UPS} step-ups (wanted: ${challenge.scope ?? "?"})`);
      this.#stepUps++;
      const granted = this.#store.read(this.resource).tokens?.scope;
      return this.#signIn({ scope: union(granted, challenge.scope, ...(this.#options.scopes ?? [])), force: true, resourceMetadataUrl: challenge.resourceMetadataUrl });
    }
    if (sent?.refresh_token && (await this.#refresh(sent).catch(() => false))) return true;
    if (this.#options.signIn === "no") {
      // No Bearer challenge: the server may want an API key rather than OAuth.
      const orHeader = /^\s*Bearer\b/i.test(response.headers.get("www-authenticate") ?? "") ? "" : ', or pass --header "Authorization: Bearer <token>"';
      throw new AuthRequiredError(`${originOf(this.resource)} requires a sign-in (run ${this.#options.signInCommand}${orHeader})`);
    }
    if (this.#signIns >= MAX_SIGN_INS) throw new AuthRequiredError(`${originOf(this.resource)} still answers HTTP 401 after signing in (check the server's OAuth setup, or run ${this.#options.signInCommand})`);
    this.#signIns++;
    return this.#signIn({ scope: union(challenge.scope, ...(this.#options.scopes ?? [])), force: false, resourceMetadataUrl: challenge.resourceMetadataUrl, rejected: sent });
  }

  /** Signs in now (mcp-inspect auth): whatever the policy says, the user asked for it. */
  async signInNow(): Promise<void> {
    await this.#signIn({ scope: union(...(this.#options.scopes ?? [])), force: true, explicit: true });
  }

  /** Forgets the stored tokens, revoking them first where the authorization server offers revocation (RFC 7009). */
  async logout(): Promise<{ revoked: boolean; forgotten: boolean }> {
    const entry = this.#store.read(this.resource);
    let revoked = false;
    const endpoint = (entry.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
    const client = this.#options.client ? { client_id: this.#options.client.clientId, client_secret: this.#options.client.clientSecret } : entry.client;
    if (endpoint && entry.tokens && client) {
      for (const [token, hint] of [[entry.tokens.refresh_token, "refresh_token"], [entry.tokens.access_token, "access_token"]] as const) {
        if (!token) continue;
        const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
        if (client.client_secret) body.set("client_secret", client.client_secret);
        const answer = await this.#fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body }).catch(() => undefined);
        revoked ||= answer?.ok === true;
      }
    }
    return { revoked, forgotten: this.#store.forget(this.resource) };
  }

  /** A refresh under the resource's lock; false when it cannot be done without a sign-in. */
  async #refresh(used: StoredTokens): Promise<boolean> {
    return this.#store.withLock(this.resource, CALLBACK_TIMEOUT_MS, async () => {
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

  async #signIn(request: { scope?: string; force: boolean; explicit?: boolean; resourceMetadataUrl?: URL; rejected?: StoredTokens }): Promise<boolean> {
    const policy = request.explicit ? "yes" : this.#options.signIn;
    if (policy === "no") throw new AuthRequiredError(`${originOf(this.resource)} requires a sign-in (run ${this.#options.signInCommand})`);
    return this.#store.withLock(this.resource, (this.#options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS) + 30_000, async () => {
      // Three proxies started at once: the first signs in, the others find its tokens here.
      const current = this.#store.read(this.resource).tokens;
      if (!request.force && current && current.access_token !== request.rejected?.access_token && !expiresSoon(current)) return true;
      await oneAtATime(async () => {
        if (policy === "ask") {
          const yes = await this.#options.ui.confirm?.(`${originOf(this.resource)} requires a sign-in. Sign in with your browser?`);
          if (!yes) throw new AuthRequiredError(`signing in to ${originOf(this.resource)} was declined (run ${this.#options.signInCommand} to sign in)`);
        }
        await this.#authorizeInBrowser(request.scope, request.force, request.resourceMetadataUrl);
      });
      return true;
    });
  }

  /** The authorization code flow with PKCE S256: the browser (or a pasted URL) brings the code back. */
  async #authorizeInBrowser(scope: string | undefined, force: boolean, resourceMetadataUrl?: URL): Promise<void> {
    const { auth } = await loadSdk();
    const { ui } = this.#options;
    const state = randomBytes(STATE_BYTES).toString("base64url");
    const paste = this.#options.browser === false && ui.readLine !== undefined;
    const entry = this.#store.read(this.resource);
    const storedPort = entry.redirectUri ? Number(new URL(entry.redirectUri).port) : undefined;
    const callback = paste ? undefined : await this.#listen(state, this.#options.callbackPort ?? storedPort);
    const redirectUri = callback?.redirectUrl.href ?? entry.redirectUri ?? `http://127.0.0.1:${this.#options.callbackPort ?? 0}/callback`;
    let authorizationUrl: URL | undefined;
    let refusal: Error | undefined;
    const provider: StoredProvider = this.#provider(redirectUri, (url) => {
      const metadata = provider.discoveryState()?.authorizationServerMetadata as { code_challenge_methods_supported?: string[] } | undefined;
      // No metadata at all is a 2025-03-26 server on its default endpoints, which predates the rule.
      const problem = unsafeAuthorizationUrl(url, state, metadata ? (metadata.code_challenge_methods_supported ?? []) : ["S256"]);
      if (problem) throw (refusal = new AuthRequiredError(problem));
      authorizationUrl = url;
    }, state);
    try {
      const first = await auth(provider, { serverUrl: this.resource, scope, resourceMetadataUrl, fetchFn: this.#fetch, forceReauthorization: force }).catch((error: unknown) => {
        throw refusal ?? signInError(this.resource, error, this.#options.signInCommand);
      });
      if (first === "AUTHORIZED") return;
      if (!authorizationUrl) throw new AuthRequiredError(`${originOf(this.resource)} gave no authorization URL`);
      ui.print(`Sign in to ${originOf(this.resource)}: open this URL in a browser${paste ? ", then paste the address it sends you to" : ""}:`);
      ui.print(authorizationUrl.href);
      if (this.#options.browser !== false) void (this.#options.openUrl ?? openInBrowser)(authorizationUrl.href).catch(() => {});
      const params = paste
        ? pastedCallback(await ui.readLine!("Paste the redirect URL here: "), state)
        : await waitFor(callback!.params, {
            ms: this.#options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS,
            timeout: `timed out waiting for the browser to come back to ${redirectUri} (run ${this.#options.signInCommand} to try again)`,
            signal: this.#options.signal,
            aborted: `signing in to ${originOf(this.resource)} was cancelled`,
          });
      const code = params.get("code");
      if (!code) {
        const error = params.get("error") ?? "no code";
        const description = params.get("error_description");
        throw new AuthRequiredError(oneLine(`the authorization server did not grant access: ${error}${description ? ` (${description})` : ""}`));
      }
      await auth(provider, { serverUrl: this.resource, authorizationCode: code, iss: params.get("iss") ?? undefined, fetchFn: this.#fetch }).catch((error: unknown) => {
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

  #provider(redirectUri: string | undefined, onRedirect: (url: URL) => void, state = randomBytes(STATE_BYTES).toString("base64url")): StoredProvider {
    const fromEnv = process.env.MCPKIT_CLIENT_METADATA_URL;
    return new StoredProvider({
      store: this.#store,
      resource: this.resource,
      redirectUri,
      client: this.#options.client,
      clientMetadataUrl: fromEnv === undefined ? CLIENT_METADATA_URL : fromEnv || undefined,
      onRedirect,
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

/** The union of space-separated scope lists, or undefined when there are none. */
export function union(...lists: (string | undefined)[]): string | undefined {
  const scopes = new Set(lists.flatMap((list) => (list ?? "").split(/\s+/).filter(Boolean)));
  return scopes.size > 0 ? [...scopes].join(" ") : undefined;
}

function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * What keeps us from sending the user to this URL: https or loopback only, our state, and PKCE
 * S256, which the server must advertise (spec: no code_challenge_methods_supported means no PKCE
 * support, and the client MUST refuse to proceed).
 */
function unsafeAuthorizationUrl(url: URL, state: string, challengeMethods: string[] | undefined): string | undefined {
  const where = `${url.protocol}//${url.host}`;
  if (!isBrowserSafeUrl(url)) return `refusing to open the authorization endpoint ${where} (only https or loopback http URLs are opened)`;
  if (!challengeMethods?.includes("S256") || url.searchParams.get("code_challenge_method") !== "S256") {
    return `the authorization server at ${where} does not advertise PKCE S256 (refusing to sign in without it)`;
  }
  if (url.searchParams.get("state") !== state) return "internal error: the authorization request does not carry our state";
  return undefined;
}

/** The redirect URL pasted back (--no-browser): its state must be ours. */
function pastedCallback(text: string, state: string): URLSearchParams {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new AuthRequiredError("that is not the URL the browser was sent to (paste the whole address, http://127.0.0.1:…/callback?code=…)");
  }
  if (url.searchParams.get("state") !== state) throw new AuthRequiredError("the pasted URL is not from this sign-in (its state does not match)");
  return url.searchParams;
}

/** Text that came from a server, safe on a terminal: one line, no control sequences. */
function oneLine(text: string): string {
  return stripControl(text.replace(/\s+/g, " ")).trim();
}

function signInError(resource: string, error: unknown, command: string): Error {
  const text = oneLine(error instanceof Error ? error.message : String(error));
  if (/does not support dynamic client registration/i.test(text)) {
    return new AuthRequiredError(
      `the authorization server for ${originOf(resource)} registers no clients by itself (no dynamic registration, no client ID metadata documents): register one with it, then give its ID as "oauth": {"clientId": "..."} in the config entry, or ${command} --client-id ID`,
    );
  }
  return new AuthRequiredError(`signing in to ${originOf(resource)} failed: ${text}`);
}

/** `promise`, or a rejection after `ms` or when `signal` aborts, whichever comes first. */
function waitFor<T>(promise: Promise<T>, o: { ms: number; timeout: string; signal?: AbortSignal; aborted: string }): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AuthRequiredError(o.timeout)), o.ms);
    onAbort = () => reject(new AuthRequiredError(o.aborted));
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, stop]).finally(() => {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  });
}
