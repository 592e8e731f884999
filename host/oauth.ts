// OAuth for Streamable-HTTP servers: connect, and on a 401 (with the user's consent) run the
// authorization code flow with PKCE S256 through the SDK's auth machinery (protected-resource
// metadata, authorization-server metadata, dynamic client registration, token exchange), with
// the redirect caught by a one-shot listener on 127.0.0.1. Tokens live in this process only.
import {
  OAuthError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  type Transport,
} from "@modelcontextprotocol/client";
import { randomBytes } from "node:crypto";
import process from "node:process";
import { fetchWithinOrigin } from "../lib/fetch.ts";
import { stripControl } from "../lib/log.ts";
import { isBrowserSafeUrl, openInBrowser } from "../lib/browser.ts";
import { listenForCallback } from "../lib/auth/callback.ts";

/**
 * Redirects as every mcpkit tool follows them (lib/fetch.ts): headers stay with their origin, a
 * move from http to https on the same host is allowed, and anything else is refused by name.
 */
const SAME_ORIGIN = { fetch: (url: string | URL, init?: RequestInit) => fetchWithinOrigin(url, init), redirectPolicy: "follow" as const };

/** How long we wait for the browser to come back to the loopback callback. */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;
export const OAUTH_CLIENT_NAME = "mcp-host";
const STATE_BYTES = 32;

export interface AuthUi {
  /** Ask the user a yes/no question; false means no. */
  confirm(question: string): Promise<boolean>;
  /** Show one line to the user (already safe text). */
  print(line: string): void;
}

export interface HttpConnectOptions {
  /** Static headers from config; when they include Authorization, OAuth never starts. */
  headers?: Record<string, string>;
  ui: AuthUi;
  /** --callback-port: fixed loopback port for the redirect; default a free port. */
  callbackPort?: number;
  /** Default: the system browser, without a shell; failures ignored. The URL is always printed too. */
  openUrl?: (url: string) => Promise<void>;
  /** How long to wait for the callback; default CALLBACK_TIMEOUT_MS (tests shorten it). */
  callbackTimeoutMs?: number;
  /** Aborting stops waiting for the browser (e.g. Ctrl-C at the chat prompt) and closes the listener. */
  signal?: AbortSignal;
}

/**
 * Connects `client` to the Streamable-HTTP server at `url` and returns the connected transport.
 * On a 401 (and no static Authorization header) asks `ui.confirm`, then signs in through the
 * browser and connects again. Declining, a bad callback, or a timeout reject with a one-line Error.
 */
export async function connectHttp(client: Client, url: URL, options: HttpConnectOptions): Promise<Transport> {
  const headers = options.headers ?? {};
  const requestInit: RequestInit = { headers };
  if (Object.keys(headers).some((k) => k.toLowerCase() === "authorization")) {
    const transport = new StreamableHTTPClientTransport(url, { requestInit, ...SAME_ORIGIN });
    try {
      await client.connect(transport);
    } catch (e) {
      if (isUnauthorized(e)) throw new Error(`${url.origin} rejected the configured Authorization header with HTTP 401 (fix the header, or remove it to sign in with OAuth)`);
      throw e;
    }
    return transport;
  }

  // A provider that never has a token makes every negotiation mode surface a 401 as
  // UnauthorizedError, before any discovery or registration traffic is sent.
  const anonymous = new StreamableHTTPClientTransport(url, { requestInit, ...SAME_ORIGIN, authProvider: { token: async () => undefined } });
  try {
    await client.connect(anonymous);
    return anonymous;
  } catch (e) {
    if (!isUnauthorized(e)) throw e;
  }

  return oneAtATime(async () => {
    const question = `${url.origin} requires authorization. Sign in with your browser?`;
    if (!(await options.ui.confirm(question))) {
      throw new Error(`authorization declined for ${url.origin}${url.pathname} (the server requires OAuth; accept the prompt to sign in)`);
    }
    return authorizeAndConnect(client, url, requestInit, options);
  });
}

// Interactive sign-ins run one at a time: a host connecting several servers at once must not ask
// two questions together, and a fixed --callback-port can only serve one flow at a time.
let interactive: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(run: () => Promise<T>): Promise<T> {
  const turn = interactive.then(run, run);
  interactive = turn.catch(() => {});
  return turn;
}

async function authorizeAndConnect(client: Client, url: URL, requestInit: RequestInit, options: HttpConnectOptions): Promise<Transport> {
  const state = randomBytes(STATE_BYTES).toString("base64url");
  const callback = await listenForCallback(options.callbackPort ?? 0, state);
  const open = options.openUrl ?? openInBrowser;
  let refusal: Error | undefined;
  let redirected = false;
  let done = false;
  const provider = new MemoryOAuthProvider(callback.redirectUrl, state, (authorizationUrl) => {
    if (done) throw new Error(`${url.origin} asks to sign in again (reconnect to authorize)`);
    const checked = checkAuthorizationUrl(authorizationUrl, state, provider.discovery);
    if (!checked.ok) throw (refusal = new Error(checked.error));
    redirected = true;
    options.ui.print(`Open this URL in your browser to authorize ${url.origin}:`);
    options.ui.print(authorizationUrl.href);
    // Not awaited: an opener that hangs must not hold the flow; the URL is printed anyway.
    void Promise.resolve()
      .then(() => open(authorizationUrl.href))
      .catch(() => {});
  });

  try {
    const authTransport = new StreamableHTTPClientTransport(url, { requestInit, ...SAME_ORIGIN, authProvider: provider });
    try {
      await client.connect(authTransport);
      return authTransport; // the server let us in after all
    } catch (e) {
      if (refusal) throw refusal;
      if (!redirected) throw new Error(`authorization with ${url.origin} failed: ${oneLine(e)}`);
    }

    const params = await waitFor(callback.params, {
      ms: options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS,
      timeout: `timed out waiting for the browser to return to ${callback.redirectUrl.href} (run again to retry)`,
      signal: options.signal,
      aborted: `authorization with ${url.origin} was cancelled`,
    });
    try {
      // Validates iss (RFC 9207) before redeeming the code; state was checked by the listener.
      await authTransport.finishAuth(params);
    } catch (e) {
      throw new Error(`authorization with ${url.origin} failed: ${oneLine(e)}`);
    }

    const transport = new StreamableHTTPClientTransport(url, { requestInit, ...SAME_ORIGIN, authProvider: provider });
    try {
      await client.connect(transport);
    } catch (e) {
      if (isUnauthorized(e)) throw new Error(`${url.origin} still answers HTTP 401 after authorization (check the server's OAuth setup)`);
      throw e;
    }
    return transport;
  } finally {
    done = true;
    await callback.close();
  }
}

/** True for what the SDK throws on an HTTP 401, in every negotiation mode. */
function isUnauthorized(e: unknown): boolean {
  if (UnauthorizedError.isInstance(e)) return true;
  return SdkHttpError.isInstance(e) && (e.code === SdkErrorCode.ClientHttpAuthentication || e.data?.status === 401);
}

/** An error as one terminal-safe line (server-supplied text loses control sequences). */
function oneLine(e: unknown): string {
  let text = e instanceof Error ? e.message : String(e);
  if (OAuthError.isInstance(e) && !text.includes(e.code)) text = `${e.code}: ${text}`;
  return stripControl(text.replace(/\s+/g, " ")).trim();
}

/** `promise`, or a rejection after `ms` or when `signal` aborts, whichever comes first. */
function waitFor<T>(promise: Promise<T>, o: { ms: number; timeout: string; signal?: AbortSignal; aborted: string }): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(o.timeout)), o.ms);
    (timer as { unref?: () => void }).unref?.();
    onAbort = () => reject(new Error(o.aborted));
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, stop]).finally(() => {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  });
}

// ---- what may be opened ------------------------------------------------------------------

/** https anywhere, or http on a loopback host: the only URLs we hand to a browser. */
type Checked = { ok: true } | { ok: false; error: string };

function checkAuthorizationUrl(authorizationUrl: URL, state: string, discovery: OAuthDiscoveryState | undefined): Checked {
  const where = `${authorizationUrl.protocol}//${authorizationUrl.host}`;
  if (!isBrowserSafeUrl(authorizationUrl)) {
    return { ok: false, error: `refusing to open the authorization endpoint ${where} (only https or loopback http URLs are opened)` };
  }
  // Spec (security considerations): no code_challenge_methods_supported in the metadata means no
  // PKCE support, and the client MUST refuse to proceed. The SDK only checks S256 when the list exists.
  const methods = discovery?.authorizationServerMetadata?.code_challenge_methods_supported;
  if (!methods?.includes("S256") || authorizationUrl.searchParams.get("code_challenge_method") !== "S256") {
    return { ok: false, error: `the authorization server at ${where} does not advertise PKCE S256 (refusing to sign in without it)` };
  }
  if (authorizationUrl.searchParams.get("state") !== state) {
    return { ok: false, error: "internal error: the authorization request does not carry our state" };
  }
  return { ok: true };
}

// ---- the provider: in-memory state for one server ------------------------------------------

class MemoryOAuthProvider implements OAuthClientProvider {
  private client?: StoredOAuthClientInformation;
  private saved?: StoredOAuthTokens;
  private verifier?: string;
  discovery?: OAuthDiscoveryState;

  constructor(
    private readonly redirect: URL,
    private readonly expectedState: string,
    private readonly onAuthorizationUrl: (url: URL) => void,
  ) {}

  get redirectUrl(): string {
    return this.redirect.href;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: OAUTH_CLIENT_NAME,
      redirect_uris: [this.redirect.href],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier was saved for this authorization");
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
  redirectToAuthorization(url: URL) {
    this.onAuthorizationUrl(url);
  }
}
