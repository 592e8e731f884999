// OAuth end to end, how mcp-inspect finds and meets the authorization server: discovery (resource
// metadata, RFC 8414, OpenID Connect, 2025-03-26), the scopes it asks for, and its client identity
// (pre-registered, a client ID metadata document, dynamic registration). oauth.test.ts has the
// sign-in itself, oauth-tools.test.ts the other tools'.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_METADATA_URL } from "../../../lib/auth/provider.ts";
import { FIXTURE_SCOPE, type OAuthFixture, type OAuthFixtureOptions } from "../../fixtures/oauth-server.ts";
import { ROOT, removeTempDirs, TEST_GUARD_MS, tempDir } from "../../support/helpers.ts";
import { type ServedDocument, serveDocument } from "../../support/https-document.ts";
import { EXIT_AUTH, fixture, machine, stopFixtures, text } from "../../support/oauth-machine.ts";

afterAll(async () => {
  await stopFixtures();
  removeTempDirs();
});

describe("discovery", () => {
  const cases: [string, OAuthFixtureOptions, (f: OAuthFixture) => string[]][] = [
    [
      "resource metadata named by the 401's resource_metadata",
      { resourceMetadata: "header" },
      () => ["/meta/protected-resource", "/.well-known/oauth-authorization-server"],
    ],
    [
      "resource metadata at the path-based well-known URL",
      { resourceMetadata: "path" },
      () => ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"],
    ],
    [
      "resource metadata at the root well-known URL, after the path-based one",
      { resourceMetadata: "root" },
      () => [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
      ],
    ],
    [
      "an issuer with a path: RFC 8414 path insertion",
      { issuerPath: "/tenant" },
      () => ["/meta/protected-resource", "/.well-known/oauth-authorization-server/tenant"],
    ],
    [
      "OpenID Connect discovery, after RFC 8414",
      { issuerPath: "/tenant", serverMetadata: "oidc" },
      () => ["/meta/protected-resource", "/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant"],
    ],
    [
      "a 2025-03-26 server: no resource metadata, so the authorization server's metadata at the MCP server's origin",
      { resourceMetadata: "none" },
      () => [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
      ],
    ],
  ];
  for (const [name, options, expected] of cases) {
    test(
      name,
      async () => {
        const server = await fixture(options);
        const m = machine();
        const run = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
        expect(run.stderr).toBe(run.stderr); // (kept for the failure message)
        expect(run.code).toBe(0);
        expect(server.record.metadataRequests.slice(0, expected(server).length)).toEqual(expected(server));
      },
      TEST_GUARD_MS,
    );
  }

  test(
    "a 2025-03-26 server with no metadata at all: the default /authorize, /token and /register endpoints",
    async () => {
      const server = await fixture({ resourceMetadata: "none", serverMetadata: "none" });
      const m = machine();
      const run = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(0);
      expect(server.record.registrations).toHaveLength(1);
      expect(server.record.authorizations).toHaveLength(1);
      expect(server.record.tokenRequests[0]!.ok).toBe(true);
      // Without resource metadata the resource parameter is the server's own URL (RFC 8707).
      expect(server.record.authorizations[0]!.resource).toBe(server.url);
    },
    TEST_GUARD_MS,
  );

  test(
    "2025-03-26 discovery (no resource metadata) takes metadata naming another issuer on the origin; RFC 8414 discovery refuses it",
    async () => {
      const legacy = await fixture({ resourceMetadata: "none", claimedIssuerPath: "/oauth" });
      const m = machine();
      const run = await m.inspect(["call-tool", "whoami", "--url", legacy.url, "--oauth"]);
      expect(run.code).toBe(0);
      expect(text(run)).toStartWith("authorized as client-");

      const strict = await fixture({ resourceMetadata: "header", claimedIssuerPath: "/oauth" });
      const refused = await m.inspect(["call-tool", "whoami", "--url", strict.url, "--oauth"]);
      expect(refused.code).toBe(EXIT_AUTH);
      expect(refused.json.error.message).toContain("Issuer mismatch in authorization server metadata (RFC 8414 §3.3)");
      expect(strict.record.authorizations).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "a new sign-in discovers anew: stale discovery in the store does not send it elsewhere",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      const file = m.entryFile();
      const entry = JSON.parse(readFileSync(file, "utf8"));
      entry.discovery.authorizationServerUrl = "http://127.0.0.1:1/";
      entry.discovery.authorizationServerMetadata = {
        ...entry.discovery.authorizationServerMetadata,
        issuer: "http://127.0.0.1:1",
        authorization_endpoint: "http://127.0.0.1:1/authorize",
      };
      writeFileSync(file, JSON.stringify(entry));
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      expect(m.tabs()[1]).toStartWith(`${server.issuer}/authorize?`);
    },
    TEST_GUARD_MS,
  );
});

describe("scopes", () => {
  test(
    "from the 401's WWW-Authenticate first",
    async () => {
      const server = await fixture({ challengeScope: "mcp:tools", scopesSupported: ["mcp:tools", "mcp:read"] });
      const m = machine();
      expect((await m.inspect(["list-tools", "--url", server.url, "--oauth"])).code).toBe(0);
      expect(server.record.authorizations[0]!.scope).toBe("mcp:tools");
    },
    TEST_GUARD_MS,
  );

  test(
    "else the resource metadata's scopes_supported",
    async () => {
      const server = await fixture({ challengeScope: null, scopesSupported: ["mcp:tools", "mcp:read"] });
      const m = machine();
      expect((await m.inspect(["list-tools", "--url", server.url, "--oauth"])).code).toBe(0);
      expect(server.record.authorizations[0]!.scope).toBe("mcp:tools mcp:read");
    },
    TEST_GUARD_MS,
  );

  test(
    "else omitted",
    async () => {
      const server = await fixture({ challengeScope: null, scopesSupported: null });
      const m = machine();
      expect((await m.inspect(["list-tools", "--url", server.url, "--oauth"])).code).toBe(0);
      expect(server.record.authorizations[0]!.scope).toBeNull();
    },
    TEST_GUARD_MS,
  );

  test(
    "scopes_supported plus the entry's oauth.scopes when the 401 names none: the union",
    async () => {
      const server = await fixture({ challengeScope: null, scopesSupported: ["mcp:tools", "mcp:read"] });
      const m = machine();
      const config = join(tempDir(), "mcp.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { s: { url: server.url, oauth: { scopes: ["extra:read"] } } } }));
      expect((await m.inspect(["list-tools", "--config", config, "--server", "s", "--oauth"])).code).toBe(0);
      expect(server.record.authorizations[0]!.scope).toBe("mcp:tools mcp:read extra:read");
    },
    TEST_GUARD_MS,
  );

  test(
    "plus the entry's oauth.scopes: the union",
    async () => {
      const server = await fixture();
      const m = machine();
      const config = join(tempDir(), "mcp.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { s: { url: server.url, oauth: { scopes: ["extra:read", FIXTURE_SCOPE] } } } }));
      expect((await m.inspect(["list-tools", "--config", config, "--server", "s", "--oauth"])).code).toBe(0);
      expect(server.record.authorizations[0]!.scope).toBe(`${FIXTURE_SCOPE} extra:read`);
    },
    TEST_GUARD_MS,
  );
});

describe("client identity", () => {
  test(
    "a pre-registered client from the config entry: its secret from ${VAR}, client_secret_basic, never on disk, a pinned callback port",
    async () => {
      const server = await fixture({
        registration: false,
        preRegistered: { clientId: "my-app", clientSecret: "s3cret-value", authMethod: "client_secret_basic" },
      });
      const m = machine({ MY_APP_SECRET: "s3cret-value" });
      const config = join(tempDir(), "mcp.json");
      const port = 30_000 + Math.floor(Math.random() * 20_000);
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { app: { url: server.url, oauth: { clientId: "my-app", clientSecret: "${MY_APP_SECRET}", callbackPort: port } } },
        }),
      );
      const run = await m.inspect(["call-tool", "whoami", "--config", config, "--server", "app", "--oauth"]);
      expect(run.code).toBe(0);
      expect(text(run)).toBe("authorized as my-app");
      expect(server.record.registrations).toEqual([]);
      expect(server.record.authorizations[0]!.redirect_uri).toBe(`http://127.0.0.1:${port}/callback`);
      expect(server.record.tokenRequests[0]!.clientAuth).toBe("client_secret_basic");
      for (const file of m.files()) expect(file).not.toContain("s3cret-value");
    },
    TEST_GUARD_MS,
  );

  test(
    "a pre-registered client registered for client_secret_post where the server takes both: post after one refusal, then at once",
    async () => {
      const server = await fixture({
        registration: false,
        preRegistered: { clientId: "cli-app", clientSecret: "post-secret", authMethod: "client_secret_post" },
        tokenEndpointAuthMethods: ["client_secret_basic", "client_secret_post"],
      });
      const m = machine({ CLI_SECRET: "post-secret" });
      const flags = ["--url", server.url, "--client-id", "cli-app", "--client-secret-env", "CLI_SECRET"];
      const first = await m.inspect(["call-tool", "whoami", ...flags, "--oauth"]);
      expect(first.code).toBe(0);
      expect(text(first)).toBe("authorized as cli-app");
      expect(server.record.tokenRequests.map((r) => r.clientAuth)).toEqual(["bad", "client_secret_post"]);
      // The server stops taking the access token: the refresh authenticates the way that worked, first time.
      server.expireAccessTokens();
      const second = await m.inspect(["call-tool", "whoami", ...flags]);
      expect(second.code).toBe(0);
      expect(server.record.tokenRequests.map((r) => r.clientAuth)).toEqual(["bad", "client_secret_post", "client_secret_post"]);
      expect(server.record.refreshes).toBe(1);
      // The SDK's issuer stamp is kept for a pre-registered client too: no SEP-2352 warning at a sign-in or a refresh.
      expect(first.stderr + second.stderr).not.toContain("SEP-2352");
      for (const file of m.files()) expect(file).not.toContain("post-secret");
    },
    TEST_GUARD_MS,
  );

  test(
    "--client-id with --client-secret-env: client_secret_post when that is what the server takes",
    async () => {
      const server = await fixture({
        registration: false,
        preRegistered: { clientId: "cli-app", clientSecret: "post-secret", authMethod: "client_secret_post" },
      });
      const m = machine({ CLI_SECRET: "post-secret" });
      const run = await m.inspect([
        "call-tool",
        "whoami",
        "--url",
        server.url,
        "--oauth",
        "--client-id",
        "cli-app",
        "--client-secret-env",
        "CLI_SECRET",
      ]);
      expect(run.code).toBe(0);
      expect(text(run)).toBe("authorized as cli-app");
      expect(server.record.tokenRequests[0]!.clientAuth).toBe("client_secret_post");
    },
    TEST_GUARD_MS,
  );

  describe("a client ID metadata document", () => {
    const published = () => JSON.parse(readFileSync(join(ROOT, "oauth/client-metadata.json"), "utf8")) as Record<string, unknown>;
    const documents: ServedDocument[] = [];
    afterAll(() => Promise.all(documents.map((d) => d.stop())));
    const served = () => {
      const document = serveDocument(published());
      documents.push(document);
      return document;
    };

    test(
      "offered when the server supports them and we can fetch it ourselves: no registration",
      async () => {
        expect(published().client_id).toBe(CLIENT_METADATA_URL);
        const document = served();
        const server = await fixture({ clientDocuments: { [document.url]: { ...published(), client_id: document.url } } });
        const m = machine(document.env);
        const run = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
        expect(run.code).toBe(0);
        expect(text(run)).toBe(`authorized as ${document.url}`);
        expect(server.record.registrations).toEqual([]);
        expect(server.record.authorizations[0]!.client_id).toBe(document.url);
        expect(document.fetches()).toBe(1);
      },
      TEST_GUARD_MS,
    );

    test(
      "not offered when we cannot fetch it (the published one, offline): dynamic registration at once",
      async () => {
        const server = await fixture({ clientDocuments: { [CLIENT_METADATA_URL]: published() } });
        const m = machine({ MCPKIT_CLIENT_METADATA_URL: "https://127.0.0.1:9/oauth/client-metadata.json" });
        const run = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
        expect(run.code).toBe(0);
        expect(server.record.registrations).toHaveLength(1);
        expect(server.record.authorizations.map((a) => a.client_id)).toEqual([server.record.registrations[0]!.client_id]);
      },
      TEST_GUARD_MS,
    );

    test(
      "a server that cannot fetch it never calls back: the wait says so at once, and the next sign-in registers dynamically",
      async () => {
        const document = served();
        // The server advertises metadata documents but knows none: its page says invalid_client and goes nowhere.
        const server = await fixture({ clientDocuments: {} });
        const m = machine(document.env);
        const first = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth", "--callback-timeout", "1500"]);
        expect(first.code).toBe(EXIT_AUTH);
        expect(first.stderr).toContain("If the page reports invalid_client, the authorization server could not fetch");
        expect(server.record.authorizations.map((a) => a.client_id)).toEqual([document.url]);
        expect(server.record.registrations).toEqual([]);

        const second = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
        expect(second.code).toBe(0);
        expect(server.record.registrations).toHaveLength(1);
        expect(text(second)).toBe(`authorized as ${server.record.registrations[0]!.client_id}`);
        expect(second.stderr).not.toContain("invalid_client");
      },
      TEST_GUARD_MS,
    );

    test(
      '--registration dynamic, or the entry\'s "oauth": {"registration": "dynamic"}, registers even where the document would do',
      async () => {
        const document = served();
        const server = await fixture({ clientDocuments: { [document.url]: { ...published(), client_id: document.url } } });
        const m = machine(document.env);
        expect((await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth", "--registration", "dynamic"])).code).toBe(0);
        expect(server.record.registrations).toHaveLength(1);

        const other = machine(document.env);
        const config = join(tempDir(), "mcp.json");
        writeFileSync(config, JSON.stringify({ mcpServers: { s: { url: server.url, oauth: { registration: "dynamic" } } } }));
        expect((await other.inspect(["call-tool", "whoami", "--config", config, "--server", "s", "--oauth"])).code).toBe(0);
        expect(server.record.registrations).toHaveLength(2);
        expect(server.record.authorizations.every((a) => a.client_id !== document.url)).toBe(true);

        const wrong = await m.inspect(["list-tools", "--url", server.url, "--registration", "magic"]);
        expect(wrong.code).toBe(1);
        expect(wrong.json.error.message).toBe('--registration must be one of dynamic, metadata-document, pre-registered (not "magic")');
      },
      TEST_GUARD_MS,
    );
  });

  test(
    "no registration, no metadata documents, no client: a clear error that says what to configure",
    async () => {
      const server = await fixture({ registration: false });
      const m = machine();
      const run = await m.inspect(["list-tools", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(EXIT_AUTH);
      expect(run.json.error.message).toContain('"oauth": {"clientId": "..."}');
      expect(run.json.error.message).toContain("--client-id");
    },
    TEST_GUARD_MS,
  );
});
