// Signing in: the authorization code flow with PKCE S256, the browser opened (or the URL only
// printed, and the address it leads to pasted back with --no-browser), the loopback listener that
// takes the one callback with our state, under the resource's lock so that one process signs in and
// the others use its tokens; interactive sign-ins of one process one at a time.
import { randomBytes } from "node:crypto";
import { oneLine } from "../io/text.ts";
import { openInBrowser } from "../terminal/browser.ts";
import { askFirst, pasted, whileUserWaits } from "./asking.ts";
import { listenForCallback } from "./callback.ts";
import { documentHint, documentToOffer } from "./client-identity.ts";
import { type AuthContext, CALLBACK_TIMEOUT_MS, loadSdk } from "./context.ts";
import { AuthRequiredError, signInError } from "./errors.ts";
import type { StoredProvider } from "./provider.ts";
import { unsafeAuthorizationUrl, waitFor } from "./redirect.ts";
import type { StoredTokens } from "./store.ts";
import { expiresSoon, originOf } from "./tokens.ts";

export const STATE_BYTES = 32;
/** A sign-in's lock is waited for as long as the sign-in it waits on may take, and a little more. */
const SIGN_IN_LOCK_SLACK_MS = 30_000;
/** The redirect URI a pasted sign-in registers: loopback, any port. */
const PORTLESS_REDIRECT = "http://127.0.0.1/callback";

export interface SignInRequest {
  scope?: string;
  /** Sign in even when the store holds tokens (a step-up, or `mcp-inspect auth`). */
  force: boolean;
  /** The person asked for it (`mcp-inspect auth`): whatever the policy says. */
  explicit?: boolean;
  resourceMetadataUrl?: URL;
  /** The tokens the server refused: others found in the store are tried instead of a sign-in. */
  rejected?: StoredTokens;
  signal?: AbortSignal;
}

/** A sign-in under the resource's lock (three proxies started at once: one signs in, the others use its tokens). */
export async function signIn(ctx: AuthContext, request: SignInRequest): Promise<boolean> {
  const policy = request.explicit ? "yes" : ctx.options.signIn;
  if (policy === "no") throw new AuthRequiredError(`${originOf(ctx.resource)} requires a sign-in (run ${ctx.options.signInCommand})`);
  const signal = anySignal(ctx.options.signal, request.signal);
  const waitMs = (ctx.options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS) + SIGN_IN_LOCK_SLACK_MS;
  try {
    return await ctx.store.withLock(
      ctx.resource,
      waitMs,
      signal,
      async () => {
        // Three proxies started at once: the first signs in, the others find its tokens here.
        const current = ctx.store.read(ctx.resource).tokens;
        if (!request.force && current && current.access_token !== request.rejected?.access_token && !expiresSoon(current)) return true;
        await oneAtATime(async () => {
          if (policy === "ask") await askFirst(ctx, signal);
          await authorizeInBrowser(ctx, request.scope, request.force, request.resourceMetadataUrl, signal);
        });
        ctx.store.update(ctx.resource, (entry) => void delete entry.wantedScope);
        return true;
      },
      // Another process holds the lock: its person is signing in, and ours waits for them.
      (waiting) => ctx.userWait(waiting),
    );
  } catch (error) {
    if (signal?.aborted && !(error instanceof AuthRequiredError))
      throw new AuthRequiredError(`signing in to ${originOf(ctx.resource)} was cancelled`);
    throw error;
  }
}

/** The authorization code flow with PKCE S256: the browser (or a pasted URL) brings the code back. */
async function authorizeInBrowser(
  ctx: AuthContext,
  scope: string | undefined,
  force: boolean,
  resourceMetadataUrl: URL | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { auth, IssuerMismatchError, discoverOAuthProtectedResourceMetadata } = await loadSdk();
  const { ui, signInCommand } = ctx.options;
  const registration = ctx.options.registration;
  if (registration === "pre-registered" && !ctx.options.client)
    throw new AuthRequiredError(
      `--registration pre-registered needs the client's ID: "oauth": {"clientId": "..."} in the config entry, or --client-id ID`,
    );
  ctx.takeOverflow(); // one left from an earlier request is not this sign-in's
  const state = randomBytes(STATE_BYTES).toString("base64url");
  const paste = ctx.options.browser === false && ui.ask !== undefined;
  // A new sign-in discovers anew: the server's metadata (and where it lives) may have moved. A
  // registered client bound to fewer scopes than asked for now (a step-up) is registered again:
  // the server would refuse it with invalid_scope.
  const entry = ctx.store.update(ctx.resource, (stored) => {
    delete stored.discovery;
    if (!ctx.options.client && !registeredFor(stored.client?.scope, scope)) delete stored.client;
  });
  const document = await documentToOffer({
    registration,
    preRegistered: ctx.options.client !== undefined,
    url: ctx.metadataDocumentUrl,
    entry,
    fetch: ctx.fetch,
    signal,
  });
  const storedPort = entry.redirectUri ? Number(new URL(entry.redirectUri).port) || undefined : undefined;
  const callback = paste ? undefined : await listen(ctx, state, ctx.options.callbackPort ?? storedPort);
  // Pasting needs no listener: a loopback redirect without a port matches any (RFC 8252 section 7.3).
  const pinned = ctx.options.callbackPort;
  const redirectUri =
    callback?.redirectUrl.href ?? entry.redirectUri ?? (pinned ? `http://127.0.0.1:${pinned}/callback` : PORTLESS_REDIRECT);
  let authorizationUrl: URL | undefined;
  let refusal: Error | undefined;
  const provider: StoredProvider = ctx.provider(
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
    document,
  );
  try {
    const start = (skipIssuerMetadataValidation: boolean) =>
      auth(provider, {
        serverUrl: ctx.resource,
        scope,
        resourceMetadataUrl,
        fetchFn: ctx.fetch,
        forceReauthorization: force,
        skipIssuerMetadataValidation,
      });
    const first = await start(false)
      .catch(async (error: unknown) => {
        // 2025-03-26 discovery (no protected resource metadata: the server's origin stands for the
        // authorization server) predates RFC 8414's issuer rule, and its metadata may name another
        // issuer on that origin; RFC 8414 discovery from resource metadata stays strict.
        const metadataIssuer = error instanceof IssuerMismatchError && error.kind === "metadata" && !refusal;
        if (!metadataIssuer) throw error;
        const resourceMetadata = await discoverOAuthProtectedResourceMetadata(ctx.resource, { resourceMetadataUrl }, ctx.fetch).catch(
          () => undefined,
        );
        if (resourceMetadata) throw error;
        return start(true);
      })
      .catch((error: unknown) => {
        throw refusal ?? signInError(ctx.resource, ctx.takeOverflow() ?? error, signInCommand);
      });
    if (first === "AUTHORIZED") return;
    if (!authorizationUrl) throw new AuthRequiredError(`${originOf(ctx.resource)} gave no authorization URL`);
    const byDocument = document !== undefined && provider.clientInformation()?.client_id === document;
    ui.print(`Sign in to ${originOf(ctx.resource)}: open this URL in a browser${paste ? ", then paste the address it sends you to" : ""}:`);
    ui.print(authorizationUrl.href);
    if (byDocument) ui.print(documentHint(signInCommand));
    if (ctx.options.browser !== false) void (ctx.options.openUrl ?? openInBrowser)(authorizationUrl.href).catch(() => {});
    const params = await whileUserWaits(ctx, () =>
      paste
        ? pasted(ctx, state, signal)
        : waitFor(callback!.params, {
            ms: ctx.options.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS,
            timeout: `timed out waiting for the browser to come back to ${redirectUri} (run ${signInCommand} to try again)`,
            signal,
            aborted: `signing in to ${originOf(ctx.resource)} was cancelled`,
          }),
    ).catch((error: unknown) => {
      // No callback with our metadata document as the client: the server may not have been able to
      // fetch it. The next sign-in to this server registers dynamically instead.
      if (byDocument) rememberDocumentFailed(ctx, document);
      throw error;
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
      serverUrl: ctx.resource,
      authorizationCode: code,
      iss: params.get("iss") ?? undefined,
      fetchFn: ctx.fetch,
    }).catch((error: unknown) => {
      throw signInError(ctx.resource, ctx.takeOverflow() ?? error, signInCommand);
    });
    ui.print(`Signed in to ${originOf(ctx.resource)}.`);
  } finally {
    await callback?.close();
  }
}

function rememberDocumentFailed(ctx: AuthContext, document: string): void {
  ctx.store.update(ctx.resource, (entry) => {
    entry.metadataDocumentFailed = document;
    if (entry.client?.client_id === document) delete entry.client;
  });
}

/** Whether a client registered with `registered` scopes (undefined: not bound to any) may ask for `wanted`. */
function registeredFor(registered: unknown, wanted: string | undefined): boolean {
  if (typeof registered !== "string" || !wanted) return true;
  const allowed = new Set(registered.split(/\s+/));
  return wanted.split(/\s+/).every((scope) => !scope || allowed.has(scope));
}

/** The loopback listener, on the port the client was registered with when that port is free. */
async function listen(ctx: AuthContext, state: string, port: number | undefined) {
  try {
    return await listenForCallback(port ?? 0, state);
  } catch (error) {
    // The stored port is taken: a new port means a new registration (unless the port was pinned).
    if (ctx.options.callbackPort !== undefined || port === undefined) throw error;
    ctx.store.update(ctx.resource, (entry) => {
      delete entry.client;
      delete entry.redirectUri;
    });
    return listenForCallback(0, state);
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

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
}
