// The SDK's OAuthClientProvider, backed by the token store: what the SDK's auth() asks for (the
// client, the tokens, the discovery state) is read from disk each time, so a refresh another
// process made is seen, and what it saves lands there at once. Client identity in the spec's
// order: a pre-registered client when configured, else a client ID metadata document (when the
// authorization server supports them), else dynamic registration.
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import type { AuthStore, StoredTokens } from "./store.ts";

export const CLIENT_NAME = "mcpkit";
/**
 * The client ID metadata document that this repository's oauth/client-metadata.json is published
 * as (by the release workflow); MCPKIT_CLIENT_METADATA_URL overrides it, and an empty value
 * turns metadata documents off.
 */
export const CLIENT_METADATA_URL = "https://mcpkit.github.io/mcpkit/oauth/client-metadata.json";

/** A client registered with the authorization server beforehand (config `oauth`, or --client-id). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** A PEM private key that signs the client's JWT assertions (private_key_jwt; the client credentials grant). */
  privateKeyFile?: string;
}

export interface StoredProviderOptions {
  store: AuthStore;
  resource: string;
  /** The loopback callback of this sign-in; undefined when only a refresh may happen. */
  redirectUri?: string;
  client?: PreRegisteredClient;
  /** The metadata document URL, or undefined for none. */
  clientMetadataUrl?: string;
  /** Where the user is sent to sign in; throwing refuses (no sign-in allowed here). */
  onredirect: (authorizationUrl: URL) => void;
  state: string;
}

/** A loopback redirect for flows that only refresh: never visited (the SDK needs one to say "interactive"). */
const REFRESH_ONLY_REDIRECT = "http://127.0.0.1/callback";

export class StoredProvider implements OAuthClientProvider {
  readonly #options: StoredProviderOptions;
  #verifier?: string;
  /** The tokens a refresh started from, so that an invalid_grant removes only those. */
  #refreshedFrom?: string;

  constructor(options: StoredProviderOptions) {
    this.#options = options;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#options.client ? undefined : this.#options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#options.redirectUri ?? this.#entry().redirectUri ?? REFRESH_ONLY_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.#options.client?.clientSecret ? "client_secret_basic" : "none",
    };
  }

  state(): string {
    return this.#options.state;
  }

  /** `context.issuer`: the authorization server the SDK resolved for this use (it stamps what it saves with it). */
  clientInformation(context?: { issuer?: string }): StoredOAuthClientInformation | undefined {
    const configured = this.#options.client;
    if (!configured) {
      const { client, issuer } = this.#entry();
      // A store written before clients were stamped with their issuer is stamped on reading.
      return (client && issuer && client.issuer === undefined ? { ...client, issuer } : client) as StoredOAuthClientInformation | undefined;
    }
    // What we learnt of this client is kept on disk without its secret: the authorization server
    // it belongs to (the SDK's SEP-2352 stamp, so it is not re-stamped, with a warning, at every
    // use) and how it authenticates at the token endpoint.
    const stored = this.#entry().client;
    const learnt = stored?.client_id === configured.clientId ? stored : undefined;
    return {
      client_id: configured.clientId,
      ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}),
      ...(typeof learnt?.issuer === "string" ? { issuer: learnt.issuer } : context?.issuer ? { issuer: context.issuer } : {}),
      ...(typeof learnt?.token_endpoint_auth_method === "string" ? { token_endpoint_auth_method: learnt.token_endpoint_auth_method } : {}),
    } as StoredOAuthClientInformation;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    // A configured secret stays in its environment variable, never on disk.
    const { client_secret: _secret, ...withoutSecret } = info as StoredOAuthClientInformation & { client_secret?: string };
    const kept = this.#options.client ? withoutSecret : info;
    this.#options.store.update(this.#options.resource, (entry) => {
      entry.client = kept as typeof entry.client;
      entry.redirectUri = this.redirectUrl;
      if (info.issuer) entry.issuer = info.issuer;
    });
  }

  tokens(): StoredOAuthTokens | undefined {
    const { tokens, issuer } = this.#entry();
    this.#refreshedFrom = tokens?.refresh_token;
    return (tokens && issuer && tokens.issuer === undefined ? { ...tokens, issuer } : tokens) as StoredOAuthTokens | undefined;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    const issued = tokens as StoredOAuthTokens & StoredTokens;
    const expires = typeof issued.expires_in === "number" ? { expires_at: Date.now() + issued.expires_in * 1000 } : {};
    const configured = this.#options.client;
    this.#options.store.update(this.#options.resource, (entry) => {
      entry.tokens = { ...issued, ...expires };
      if (issued.issuer) entry.issuer = issued.issuer;
      // Which client the tokens were issued to (a pre-registered one without its secret): a logout without its flags names it.
      if (configured && entry.client?.client_id !== configured.clientId)
        entry.client = { client_id: configured.clientId, ...(issued.issuer ? { issuer: issued.issuer } : {}) };
    });
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no PKCE code verifier was saved for this authorization");
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#options.store.update(this.#options.resource, (entry) => {
      entry.discovery = state as unknown as Record<string, unknown>;
    });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#entry().discovery as OAuthDiscoveryState | undefined;
  }

  /**
   * The server says these credentials no longer work. Tokens are re-read first: another process
   * may have rotated them since this one read them, and those are kept.
   */
  /** Set when the authorization server refused the client itself (invalid_client, unauthorized_client) during this use. */
  clientRefused = false;

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "client") this.clientRefused = true;
    this.#options.store.update(this.#options.resource, (entry) => {
      if ((scope === "all" || scope === "tokens") && entry.tokens?.refresh_token === this.#refreshedFrom) delete entry.tokens;
      if (scope === "client" && this.#options.client?.clientSecret) {
        // A pre-registered client refused (invalid_client) as HTTP Basic may be registered for
        // client_secret_post (the SDK prefers Basic where the server takes both): the SDK's one
        // retry, and every later use, sends the secret in the body. Refused that way too, it is
        // the secret, and the error says so.
        const client = entry.client?.client_id === this.#options.client.clientId ? entry.client : undefined;
        if (client?.token_endpoint_auth_method !== "client_secret_post" && this.#serverTakes("client_secret_post"))
          entry.client = { ...client, client_id: this.#options.client.clientId, token_endpoint_auth_method: "client_secret_post" };
      }
      if ((scope === "all" || scope === "client") && !this.#options.client) delete entry.client;
      if (scope === "all" || scope === "discovery") delete entry.discovery;
    });
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
  }

  /**
   * The RFC 8707 resource we ask tokens for: the one the resource metadata names (it must be this
   * server, or a path above it on the same origin), else the server's own URL, so that a
   * 2025-03-26 server without metadata gets its `resource` parameter too.
   */
  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL | undefined> {
    const server = new URL(serverUrl);
    server.hash = "";
    if (!resource) return server;
    const named = new URL(resource);
    const above = named.pathname.endsWith("/") ? named.pathname : `${named.pathname}/`;
    if (named.origin !== server.origin || !(server.pathname === named.pathname || server.pathname.startsWith(above))) {
      throw new Error(`the server's metadata names the resource ${resource}, which is not ${server.href}`);
    }
    return named;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.#options.onredirect(authorizationUrl);
  }

  /** Whether the authorization server's metadata lists `method` for its token endpoint. */
  #serverTakes(method: string): boolean {
    const metadata = this.#entry().discovery?.authorizationServerMetadata as
      | { token_endpoint_auth_methods_supported?: string[] }
      | undefined;
    return metadata?.token_endpoint_auth_methods_supported?.includes(method) === true;
  }

  #entry() {
    return this.#options.store.read(this.#options.resource);
  }
}
