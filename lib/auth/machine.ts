// Machine to machine: the client credentials grant, with the client's secret (client_secret_basic,
// the SDK's ClientCredentialsProvider) or a private key that signs a JWT assertion
// (private_key_jwt, its PrivateKeyJwtProvider). No browser and no person: a token is fetched when
// none is stored or the server refuses the one stored, under the resource's lock (fifty processes
// fetch one), and kept in the token store like any other. The credentials go only to the
// authorization server they were first used with (the SDK's issuer check, SEP-2352).
import { createPrivateKey } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { readFileCappedSync } from "../io/read-capped.ts";
import { MAX_OAUTH_RESPONSE_BYTES } from "../wire/limits.ts";
import { type AuthContext, CALLBACK_TIMEOUT_MS, loadSdk } from "./context.ts";
import { AuthRequiredError, signInError } from "./errors.ts";
import type { PreRegisteredClient } from "./provider.ts";
import type { StoredTokens } from "./store.ts";
import { expiresSoon, originOf } from "./tokens.ts";

/** The JWS algorithm a private key signs with, by its kind. */
function algorithmOf(pem: string, file: string): string {
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new AuthRequiredError(`--client-key-file ${file}: not a private key in PEM form (${(error as Error).message})`);
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  if (key.asymmetricKeyType === "ec" && curve === "prime256v1") return "ES256";
  if (key.asymmetricKeyType === "ec" && curve === "secp384r1") return "ES384";
  throw new AuthRequiredError(
    `--client-key-file ${file}: a ${key.asymmetricKeyType} key${curve ? ` (${curve})` : ""} signs with no JWS algorithm we use`,
  );
}

function readKey(file: string): string {
  const read = readFileCappedSync(file, MAX_OAUTH_RESPONSE_BYTES);
  if (read.ok) return read.value;
  throw new AuthRequiredError(
    `--client-key-file ${file}: ${read.error.reason === "too-large" ? "larger than 1 MB" : `cannot be read (${read.error.detail})`}`,
  );
}

export interface MachineTokenRequest {
  scope?: string;
  /** The token the server just refused (another process's fresh one is used instead of a new one). */
  rejected?: StoredTokens;
  /** A new token whatever is stored (wider scopes, or `mcp-inspect auth`). */
  force?: boolean;
  signal?: AbortSignal;
}

/** A token by the client credentials grant, stored for `ctx.resource`; true when one is there. */
export async function fetchMachineToken(ctx: AuthContext, client: PreRegisteredClient, request: MachineTokenRequest): Promise<boolean> {
  const { scope, rejected, force, signal } = request;
  return ctx.store.withLock(ctx.resource, CALLBACK_TIMEOUT_MS, signal, async () => {
    const current = ctx.store.read(ctx.resource);
    const tokens = current.tokens;
    if (!force && tokens && tokens.access_token !== rejected?.access_token && !expiresSoon(tokens)) return true;
    const sdk = await loadSdk();
    try {
      // The issuer first used is kept: the credentials never go to another authorization server.
      const issuer = current.issuer ?? (await discoveredIssuer(ctx));
      const base: OAuthClientProvider = client.privateKeyFile
        ? (() => {
            const pem = readKey(client.privateKeyFile!);
            return new sdk.PrivateKeyJwtProvider({
              clientId: client.clientId,
              privateKey: pem,
              algorithm: algorithmOf(pem, client.privateKeyFile!),
              expectedIssuer: issuer,
              ...(scope ? { scope } : {}),
            });
          })()
        : new sdk.ClientCredentialsProvider({
            clientId: client.clientId,
            clientSecret: client.clientSecret ?? "",
            expectedIssuer: issuer,
            ...(scope ? { scope } : {}),
          });
      const stored: OAuthClientProvider = {
        get redirectUrl() {
          return undefined;
        },
        get clientMetadata() {
          return base.clientMetadata;
        },
        clientInformation: () => base.clientInformation(),
        tokens: () => undefined,
        saveTokens: (issued) => {
          const lifetime = typeof issued.expires_in === "number" ? { expires_at: Date.now() + issued.expires_in * 1000 } : {};
          ctx.store.update(ctx.resource, (entry) => {
            entry.tokens = { ...(issued as StoredTokens), ...lifetime };
            entry.issuer = issuer;
          });
        },
        redirectToAuthorization: () => {
          throw new AuthRequiredError("the client credentials grant never opens a browser");
        },
        saveCodeVerifier: () => {},
        codeVerifier: () => "",
        prepareTokenRequest: (asked) => base.prepareTokenRequest!(asked),
        ...(base.addClientAuthentication ? { addClientAuthentication: base.addClientAuthentication } : {}),
      };
      return (await sdk.auth(stored, { serverUrl: ctx.resource, scope, fetchFn: ctx.fetch })) === "AUTHORIZED";
    } catch (error) {
      if (error instanceof AuthRequiredError) throw error;
      throw signInError(ctx.resource, ctx.takeOverflow() ?? error, ctx.options.signInCommand);
    }
  });
}

/** The authorization server's issuer, by the resource's metadata (or its origin, as 2025-03-26 has it). */
async function discoveredIssuer(ctx: AuthContext): Promise<string> {
  const { discoverOAuthServerInfo } = await loadSdk();
  const info = await discoverOAuthServerInfo(ctx.resource, { fetchFn: ctx.fetch });
  const issuer = info.authorizationServerMetadata?.issuer ?? String(info.authorizationServerUrl);
  if (!issuer) throw new AuthRequiredError(`${originOf(ctx.resource)} names no authorization server`);
  return issuer;
}
