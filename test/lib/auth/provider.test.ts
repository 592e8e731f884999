// lib/auth/provider: the SDK's OAuthClientProvider on the token store: everything read from disk
// each time, saved there at once, a configured secret never written, credentials invalidated only
// when they are still the ones this provider used, and the resource checked against the server.
import { afterAll, afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { join } from "node:path";
import { CLIENT_NAME, StoredProvider, type StoredProviderOptions } from "../../../lib/auth/provider.ts";
import { AuthStore } from "../../../lib/auth/store.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);
afterEach(() => setSystemTime());

const RESOURCE = "https://mcp.example.com/mcp";
const METADATA_URL = "https://mcpkit.example/client-metadata.json";

function provider(options: Partial<StoredProviderOptions> = {}) {
  const store = options.store ?? AuthStore.open({ MCPKIT_AUTH_DIR: join(tempDir("mcpkit-auth-"), "auth") });
  const redirects: URL[] = [];
  const made = new StoredProvider({
    store,
    resource: RESOURCE,
    clientMetadataUrl: METADATA_URL,
    onredirect: (url) => void redirects.push(url),
    state: "the-state",
    ...options,
  });
  return { provider: made, store, redirects };
}

describe("who the client is", () => {
  test("a pre-registered client: its id (and secret), no metadata document, client_secret_basic", () => {
    const { provider: p } = provider({ client: { clientId: "cid", clientSecret: "sec" }, redirectUri: "http://127.0.0.1:5000/callback" });
    expect(p.clientMetadataUrl).toBeUndefined();
    expect(p.clientInformation()).toEqual({ client_id: "cid", client_secret: "sec" });
    expect(p.clientMetadata).toEqual({
      client_name: CLIENT_NAME,
      redirect_uris: ["http://127.0.0.1:5000/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    });
  });

  test("a pre-registered public client: no secret, auth method none", () => {
    const { provider: p } = provider({ client: { clientId: "cid" } });
    expect(p.clientInformation()).toEqual({ client_id: "cid" });
    expect(p.clientMetadata.token_endpoint_auth_method).toBe("none");
  });

  test("otherwise: the metadata document, and whatever client the store holds", () => {
    const { provider: p, store } = provider();
    expect(p.clientMetadataUrl).toBe(METADATA_URL);
    expect(p.clientInformation()).toBeUndefined();
    store.update(RESOURCE, (entry) => void (entry.client = { client_id: "registered" }));
    expect(p.clientInformation()).toEqual({ client_id: "registered" }); // read from disk, not remembered
  });

  test("the redirect: this sign-in's, else the one registered, else a loopback one never visited (a refresh)", () => {
    const { provider: p, store } = provider();
    expect(p.redirectUrl).toBe("http://127.0.0.1/callback");
    store.update(RESOURCE, (entry) => void (entry.redirectUri = "http://127.0.0.1:4444/callback"));
    expect(p.redirectUrl).toBe("http://127.0.0.1:4444/callback");
    expect(provider({ store, redirectUri: "http://127.0.0.1:5555/callback" }).provider.redirectUrl).toBe("http://127.0.0.1:5555/callback");
  });
});

describe("what it saves", () => {
  test("a registered client with its redirect and issuer", () => {
    const { provider: p, store } = provider({ redirectUri: "http://127.0.0.1:5000/callback" });
    p.saveClientInformation({ client_id: "dyn", client_secret: "dyn-secret", issuer: "https://as" } as never);
    expect(store.read(RESOURCE)).toMatchObject({
      client: { client_id: "dyn", client_secret: "dyn-secret" },
      redirectUri: "http://127.0.0.1:5000/callback",
      issuer: "https://as",
    });
  });

  test("a configured client's secret never lands on disk", () => {
    const { provider: p, store } = provider({ client: { clientId: "cid", clientSecret: "from-env" } });
    p.saveClientInformation({ client_id: "cid", client_secret: "from-env" } as never);
    expect(store.read(RESOURCE).client).toEqual({ client_id: "cid" });
  });

  test("tokens, with when they expire (by the clock at saving) and their issuer", () => {
    setSystemTime(new Date(1_800_000_000_000));
    const { provider: p, store } = provider();
    p.saveTokens({ access_token: "a", token_type: "Bearer", expires_in: 3600, refresh_token: "r", issuer: "https://as" } as never);
    expect(store.read(RESOURCE)).toMatchObject({
      tokens: { access_token: "a", refresh_token: "r", expires_in: 3600, expires_at: 1_800_000_000_000 + 3_600_000 },
      issuer: "https://as",
    });
    p.saveTokens({ access_token: "b", token_type: "Bearer" } as never);
    expect(store.read(RESOURCE).tokens).toEqual({ access_token: "b", token_type: "Bearer" });
  });

  test("the discovery state, and the PKCE verifier (in memory only)", () => {
    const { provider: p, store } = provider();
    p.saveDiscoveryState({ authorizationServerUrl: "https://as" } as never);
    expect(p.discoveryState()).toEqual({ authorizationServerUrl: "https://as" } as never);
    expect(() => p.codeVerifier()).toThrow("no PKCE code verifier was saved for this authorization");
    p.saveCodeVerifier("verifier");
    expect(p.codeVerifier()).toBe("verifier");
    expect(JSON.stringify(store.read(RESOURCE))).not.toContain("verifier");
  });

  test("its state, and where it sends the user", () => {
    const { provider: p, redirects } = provider();
    expect(p.state()).toBe("the-state");
    p.redirectToAuthorization(new URL("https://as/authorize?x=1"));
    expect(redirects.map(String)).toEqual(["https://as/authorize?x=1"]);
  });
});

describe("invalidateCredentials", () => {
  function seeded(options: Partial<StoredProviderOptions> = {}) {
    const made = provider(options);
    made.store.update(RESOURCE, (entry) => {
      entry.client = { client_id: "dyn" };
      entry.tokens = { access_token: "a", token_type: "Bearer", refresh_token: "r1" };
      entry.discovery = { authorizationServerUrl: "https://as" };
    });
    made.provider.tokens(); // the tokens a refresh would start from
    made.provider.saveCodeVerifier("v");
    return made;
  }

  // [scope, what is left: client, tokens, discovery, verifier]
  const cases: ["all" | "client" | "tokens" | "verifier" | "discovery", boolean, boolean, boolean, boolean][] = [
    ["all", false, false, false, false],
    ["client", false, true, true, true],
    ["tokens", true, false, true, true],
    ["discovery", true, true, false, true],
    ["verifier", true, true, true, false],
  ];
  for (const [scope, client, tokens, discovery, verifier] of cases)
    test(`${scope}: only that goes`, () => {
      const { provider: p, store } = seeded();
      p.invalidateCredentials(scope);
      const entry = store.read(RESOURCE);
      expect([entry.client !== undefined, entry.tokens !== undefined, entry.discovery !== undefined]).toEqual([client, tokens, discovery]);
      if (verifier) expect(p.codeVerifier()).toBe("v");
      else expect(() => p.codeVerifier()).toThrow("no PKCE code verifier");
    });

  test("tokens another process rotated since this provider read them are kept", () => {
    const { provider: p, store } = seeded();
    store.update(RESOURCE, (entry) => void (entry.tokens = { access_token: "b", token_type: "Bearer", refresh_token: "r2" }));
    p.invalidateCredentials("tokens");
    expect(store.read(RESOURCE).tokens?.refresh_token).toBe("r2");
  });

  test("with a configured client, the store's client is not what is invalidated (the configured one is in use)", () => {
    const { provider: p, store } = seeded({ client: { clientId: "cid" } });
    p.invalidateCredentials("all");
    expect(store.read(RESOURCE).client).toEqual({ client_id: "dyn" });
    expect(p.clientInformation()).toEqual({ client_id: "cid" });
  });
});

describe("validateResourceURL", () => {
  const { provider: p } = provider();
  const accepted: [string, string, string | undefined, string][] = [
    [
      "no resource named: the server's own URL, without its fragment",
      "https://mcp.example.com/mcp#x",
      undefined,
      "https://mcp.example.com/mcp",
    ],
    ["the server itself", "https://mcp.example.com/mcp", "https://mcp.example.com/mcp", "https://mcp.example.com/mcp"],
    ["a path above it", "https://mcp.example.com/a/mcp", "https://mcp.example.com/a", "https://mcp.example.com/a"],
    ["a path above it, with its slash", "https://mcp.example.com/a/mcp", "https://mcp.example.com/a/", "https://mcp.example.com/a/"],
    ["the origin", "https://mcp.example.com/a/mcp", "https://mcp.example.com/", "https://mcp.example.com/"],
  ];
  for (const [what, server, resource, url] of accepted)
    test(`${what}: ${url}`, async () => expect(String(await p.validateResourceURL(server, resource))).toBe(url));

  const refused: [string, string, string][] = [
    ["another origin", "https://mcp.example.com/mcp", "https://evil.example.com/mcp"],
    ["another port", "https://mcp.example.com/mcp", "https://mcp.example.com:8443/mcp"],
    ["a sibling whose name starts the same", "https://mcp.example.com/mcp2", "https://mcp.example.com/mcp"],
    ["a path below the server", "https://mcp.example.com/mcp", "https://mcp.example.com/mcp/tools"],
  ];
  for (const [what, server, resource] of refused)
    test(`${what} is refused`, async () => {
      await expect(p.validateResourceURL(server, resource)).rejects.toThrow(
        `the server's metadata names the resource ${resource}, which is not ${new URL(server).href}`,
      );
    });
});

describe("what is learnt of a pre-registered client, and stores from before issuer stamps", () => {
  const CONFIGURED = { clientId: "cid", clientSecret: "sec" };

  test("the issuer stamp: the one stored for it, else the SDK's for this use (so the SDK never warns of a missing stamp)", () => {
    const { provider: p, store } = provider({ client: CONFIGURED });
    expect(p.clientInformation({ issuer: "https://as" })).toEqual({ client_id: "cid", client_secret: "sec", issuer: "https://as" });
    store.update(RESOURCE, (entry) => void (entry.client = { client_id: "cid", issuer: "https://as/stored" }));
    expect(p.clientInformation({ issuer: "https://as" })).toMatchObject({ issuer: "https://as/stored" });
    // Stored for another client ID: not this one's.
    store.update(RESOURCE, (entry) => void (entry.client = { client_id: "other", issuer: "https://elsewhere" }));
    expect(p.clientInformation()).toEqual({ client_id: "cid", client_secret: "sec" });
  });

  test("refused as Basic (invalid_client) where the server takes client_secret_post: post from then on, never the secret on disk", () => {
    const { provider: p, store } = provider({ client: CONFIGURED });
    p.saveDiscoveryState({
      authorizationServerUrl: "https://as",
      authorizationServerMetadata: { token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"] },
    } as never);
    p.invalidateCredentials("client");
    expect(p.clientInformation()).toMatchObject({
      client_id: "cid",
      client_secret: "sec",
      token_endpoint_auth_method: "client_secret_post",
    });
    expect(JSON.stringify(store.read(RESOURCE))).not.toContain('sec"');
    // Refused that way too: nothing more to try, and nothing changes.
    p.invalidateCredentials("client");
    expect(store.read(RESOURCE).client).toEqual({ client_id: "cid", token_endpoint_auth_method: "client_secret_post" });
  });

  test("a server that does not list client_secret_post: the method is left alone", () => {
    const { provider: p } = provider({ client: CONFIGURED });
    p.saveDiscoveryState({
      authorizationServerUrl: "https://as",
      authorizationServerMetadata: { token_endpoint_auth_methods_supported: ["client_secret_basic"] },
    } as never);
    p.invalidateCredentials("client");
    expect(p.clientInformation()).toEqual({ client_id: "cid", client_secret: "sec" });
  });

  test("a store written without stamps: the client and the tokens read back with the entry's issuer", () => {
    const { provider: p, store } = provider();
    store.update(RESOURCE, (entry) => {
      entry.issuer = "https://as";
      entry.client = { client_id: "dyn" };
      entry.tokens = { access_token: "a", token_type: "Bearer" };
    });
    expect(p.clientInformation()).toEqual({ client_id: "dyn", issuer: "https://as" } as never);
    expect(p.tokens()).toEqual({ access_token: "a", token_type: "Bearer", issuer: "https://as" } as never);
  });
});
