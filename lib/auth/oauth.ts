// The one OAuth client of every tool, on the SDK's auth functions (loaded only when a server asks
// for a sign-in or a refresh): the Authorization header for each request, refreshed shortly
// before it expires; and what to do when the server refuses: refresh (after a 401), sign in anew
// (asking first on a terminal, or at once when told to, or not at all: then an error naming the
// command that signs in), or step up to wider scopes (a 403 with insufficient_scope), a bounded
// number of times. One refresh or sign-in at a time per resource, across processes: the one that
// waited re-reads the store and uses what the other got. Tokens and the refresh are tokens.ts, the
// browser's round trip sign-in.ts; this file decides which a refusal needs.
import { randomBytes } from "node:crypto";
import { oneLine } from "../io/text.ts";
import type { Asker } from "../terminal/asker.ts";
import type { Registration } from "./client-identity.ts";
import { type AuthContext, authFetch, CALLBACK_TIMEOUT_MS, loadSdk, metadataDocumentUrl } from "./context.ts";
import { AuthRequiredError } from "./errors.ts";
import { fetchMachineToken } from "./machine.ts";
import { type PreRegisteredClient, StoredProvider } from "./provider.ts";
import { revokeTokens } from "./revoke.ts";
import { STATE_BYTES, signIn } from "./sign-in.ts";
import { AuthStore, type StoredTokens } from "./store.ts";
import { expiresSoon, headerFor, originOf, refresh, union } from "./tokens.ts";

/** Step-ups to wider scopes before a request gets through: a server that keeps refusing cannot loop. */
export const MAX_STEP_UPS = 2;
/** Fresh sign-ins after a 401 before a request gets through. */
export const MAX_SIGN_INS = 1;

export interface OAuthOptions {
  /** "ask": on a terminal, ask first; "yes": sign in without asking; "no": never (an error names the command). */
  signIn: "ask" | "yes" | "no";
  ui: Asker;
  /** How the user signs in by hand, for errors: e.g. `mcp-inspect auth --url https://…`. */
  signInCommand: string;
  /** Open the browser (else only print the URL: --no-browser, where the redirect URL is pasted back). */
  browser?: boolean;
  client?: PreRegisteredClient;
  /** "client_credentials": machine to machine, with the client's secret or key (no browser, no person). */
  grant?: "authorization_code" | "client_credentials";
  /** How the client identifies itself, forced (default: pre-registered when configured, else a metadata document, else dynamic). */
  registration?: Registration;
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

export class OAuthSession {
  readonly resource: string;
  readonly #options: OAuthOptions;
  #opened?: AuthStore;
  readonly #fetch: typeof fetch;
  #recovering?: Promise<boolean>;
  #stepUps = 0;
  #signIns = 0;
  readonly #userWaitListeners = new Set<(waiting: boolean) => void>();
  #overflow?: Error;

  constructor(resource: string, options: OAuthOptions) {
    this.resource = resource;
    this.#options = options;
    this.#opened = options.store;
    this.#fetch = authFetch(options, (error) => (this.#overflow = error));
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
    if (tokens && expiresSoon(tokens) && this.#machineClient) {
      await fetchMachineToken(this.#context, this.#machineClient, { rejected: tokens }).catch(() => false);
      tokens = this.#storedTokens();
    } else if (tokens && expiresSoon(tokens) && tokens.refresh_token) {
      await refresh(this.#context, tokens).catch(() => false);
      tokens = this.#storedTokens();
    }
    return tokens ? headerFor(tokens) : undefined;
  }

  /** The header as stored, with no refresh and no waiting (for a request that must not start a sign-in). */
  current(): string | undefined {
    const tokens = this.#storedTokens();
    return tokens ? headerFor(tokens) : undefined;
  }

  /** `listener` is told when a sign-in starts and stops waiting for the person (the channel's request timers hold meanwhile). */
  watchUserWait(listener: (waiting: boolean) => void): void {
    this.#userWaitListeners.add(listener);
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
    if (this.#machineClient) return this.#recoverMachine(response.status, challenge.scope, sentAuthorization, signal);
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
      const stepped = await signIn(this.#context, {
        scope: wanted,
        force: true,
        resourceMetadataUrl: challenge.resourceMetadataUrl,
        signal,
      });
      this.#stepUps++;
      return stepped;
    }
    // What the authorization server said when a refresh failed for another reason than the
    // refresh token being spent (that only means a sign-in is due).
    let refreshFailure: string | undefined;
    const refreshed = sent?.refresh_token
      ? await refresh(this.#context, sent).catch((error: unknown) => {
          refreshFailure = oneLine(error instanceof Error ? error.message : String(error));
          return false;
        })
      : false;
    if (refreshed) return true;
    if (this.#options.signIn === "no") {
      if (refreshFailure)
        throw new AuthRequiredError(
          `refreshing the tokens for ${originOf(this.resource)} failed: ${refreshFailure} (run ${this.#options.signInCommand} to sign ` +
            "in again)",
        );
      // No Bearer challenge, and no tokens of ours refused: the server may want an API key rather than OAuth.
      const orHeader =
        sent || /^\s*Bearer\b/i.test(response.headers.get("www-authenticate") ?? "")
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
    const signedIn = await signIn(this.#context, {
      scope,
      force: false,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      rejected: sent,
      signal,
    });
    this.#signIns++;
    return signedIn;
  }

  /** The client of the client credentials grant, when that is the grant. */
  get #machineClient(): PreRegisteredClient | undefined {
    if (this.#options.grant !== "client_credentials") return undefined;
    const client = this.#options.client;
    if (!client || (!client.clientSecret && !client.privateKeyFile))
      throw new AuthRequiredError(
        "the client credentials grant needs its client: --client-id ID with --client-secret-env VAR or --client-key-file PATH " +
          '(or "oauth": {"clientId", "clientSecret" or "privateKeyFile"})',
      );
    return client;
  }

  /** A refusal under the client credentials grant: a new token (wider, for a 403 insufficient_scope), bounded as sign-ins are. */
  async #recoverMachine(status: number, challenged: string | undefined, sentAuthorization: string | undefined, signal?: AbortSignal) {
    const client = this.#machineClient!;
    const stored = this.#store.read(this.resource).tokens;
    const rejected = stored && headerFor(stored) === sentAuthorization ? stored : undefined;
    const scope = union(stored?.scope, challenged, ...(this.#options.scopes ?? []));
    if (status === 403) {
      if (this.#stepUps >= MAX_STEP_UPS)
        throw new AuthRequiredError(
          `${originOf(this.resource)} still refuses with insufficient_scope after ${MAX_STEP_UPS} new tokens (wanted: ${scope ?? "?"})`,
        );
      this.#stepUps++;
      return fetchMachineToken(this.#context, client, { scope, force: true, signal });
    }
    if (this.#signIns >= MAX_SIGN_INS)
      throw new AuthRequiredError(`${originOf(this.resource)} still answers HTTP 401 right after a new token (check the client's grant)`);
    this.#signIns++;
    return fetchMachineToken(this.#context, client, { scope: union(challenged, ...(this.#options.scopes ?? [])), rejected, signal });
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
    if (this.#machineClient) {
      const scope = union(challenge.scope, ...(this.#options.scopes ?? []));
      await fetchMachineToken(this.#context, this.#machineClient, { scope, force: true, signal });
      return;
    }
    const entry = this.#store.read(this.resource);
    const scope = union(entry.wantedScope, entry.tokens?.scope, await this.#wantedScope(challenge.scope, challenge.resourceMetadataUrl));
    await signIn(this.#context, { scope, force: true, explicit: true, resourceMetadataUrl: challenge.resourceMetadataUrl, signal });
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

  /**
   * Revokes the stored tokens (RFC 7009) and forgets them. When they could not be revoked, `why`
   * says so: they are kept where logging out again may revoke them (refused, unreachable), and
   * forgotten where it never will (the server offers no revocation).
   */
  async logout(): Promise<{ revoked: boolean; forgotten: boolean; why?: string; unreachable?: boolean }> {
    return this.#store.withLock(this.resource, CALLBACK_TIMEOUT_MS, this.#options.signal, async () => {
      const entry = this.#store.read(this.resource);
      if (!entry.tokens) return { revoked: false, forgotten: this.#store.forget(this.resource) };
      const configured = this.#options.client;
      const client = configured
        ? { client_id: configured.clientId, ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}) }
        : entry.client;
      const revocation = await revokeTokens(entry, client, this.#fetch);
      if (revocation.revoked) return { revoked: true, forgotten: this.#store.forget(this.resource) };
      const forgotten = !revocation.again && this.#store.forget(this.resource);
      return { revoked: false, forgotten, why: revocation.why, ...(revocation.unreachable ? { unreachable: true } : {}) };
    });
  }

  /** What signing in and refreshing need of this session. */
  get #context(): AuthContext {
    return {
      resource: this.resource,
      store: this.#store,
      options: this.#options,
      fetch: this.#fetch,
      takeOverflow: () => {
        const overflow = this.#overflow;
        this.#overflow = undefined;
        return overflow;
      },
      userWait: (waiting) => {
        this.#options.onuserwait?.(waiting);
        for (const listener of this.#userWaitListeners) listener(waiting);
      },
      metadataDocumentUrl: metadataDocumentUrl(),
      provider: (redirectUri, onredirect, state = randomBytes(STATE_BYTES).toString("base64url"), clientMetadataUrl) =>
        new StoredProvider({
          store: this.#store,
          resource: this.resource,
          redirectUri,
          client: this.#options.client,
          clientMetadataUrl,
          onredirect,
          state,
        }),
    };
  }
}
