// OAuth in every tool, driving the real entry scripts against the loopback authorization server
// (test/fixtures/oauth-server.ts), headless: $BROWSER is test/fixtures/browser.ts, which follows
// the authorization URL's redirects to the callback and logs each URL it was given (a tab).
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_METADATA_URL } from "../../../lib/auth/provider.ts";
import { ADMIN_SCOPE, FIXTURE_SCOPE, type OAuthFixture, type OAuthFixtureOptions, startOAuthServer } from "../../fixtures/oauth-server.ts";
import {
  BUN,
  INITIALIZE,
  inspect,
  LinePeer,
  NO_VENDOR_KEYS,
  ROOT,
  readUntil,
  removeTempDirs,
  runTool,
  TEST_GUARD_MS,
  tempDir,
} from "../../support/helpers.ts";
import { type ServedDocument, serveDocument } from "../../support/https-document.ts";

const BROWSER_SCRIPT = join(ROOT, "test/fixtures/browser.ts");
const EXIT_AUTH = 3;

const fixtures: OAuthFixture[] = [];
const peers: LinePeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});
afterAll(async () => {
  await Promise.allSettled(fixtures.map((f) => f.stop()));
  removeTempDirs();
});

async function fixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const f = await startOAuthServer(options);
  fixtures.push(f);
  return f;
}

/** One user's machine: a token store, a headless browser that logs its tabs. */
function machine(extra: Record<string, string> = {}) {
  const home = tempDir("mcpkit-oauth-");
  const tabs = join(home, "tabs.log");
  writeFileSync(tabs, "");
  const env = { MCPKIT_AUTH_DIR: join(home, "auth"), BROWSER: `${BUN} ${BROWSER_SCRIPT}`, MCPKIT_TEST_BROWSER_LOG: tabs, ...extra };
  return {
    env,
    store: env.MCPKIT_AUTH_DIR,
    tabs: () => readFileSync(tabs, "utf8").split("\n").filter(Boolean),
    /** Every stored file's text (to prove what is, and is not, on disk). */
    files: () =>
      readdirSync(env.MCPKIT_AUTH_DIR)
        .filter((name) => name.endsWith(".json"))
        .map((name) => readFileSync(join(env.MCPKIT_AUTH_DIR, name), "utf8")),
    /** The one stored entry's file (after a single sign-in). */
    entryFile: () => join(env.MCPKIT_AUTH_DIR, readdirSync(env.MCPKIT_AUTH_DIR).find((name) => name.endsWith(".json"))!),
    inspect: (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
      inspect(args, { ...options, env: { ...env, ...options.env } }),
  };
}

const text = (result: { json: any }) => result.json?.data?.content?.[0]?.text as string | undefined;

describe("mcp-inspect", () => {
  test(
    "a 401 with nothing stored and no terminal: exit 3 with the exact command to run, and nothing registered",
    async () => {
      const server = await fixture();
      const m = machine();
      const run = await m.inspect(["call-tool", "whoami", "--url", server.url]);
      expect(run.code).toBe(EXIT_AUTH);
      expect(run.json.error.code).toBe("AUTH_REQUIRED");
      expect(run.json.error.message).toBe(`${server.issuer} requires a sign-in (run mcp-inspect auth --url ${server.url})`);
      expect(m.tabs()).toEqual([]);
      expect(server.record.registrations).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "a config entry's error names the entry: mcp-inspect auth --config FILE --server NAME",
    async () => {
      const server = await fixture();
      const m = machine();
      const config = join(tempDir(), "mcp.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { linear: { url: server.url } } }));
      const run = await m.inspect(["list-tools", "--config", config, "--server", "linear"]);
      expect(run.code).toBe(EXIT_AUTH);
      expect(run.json.error.message).toContain(`(run mcp-inspect auth --config ${config} --server linear)`);
    },
    TEST_GUARD_MS,
  );

  test(
    "--oauth signs in through the browser, stores the tokens privately, and the next run needs no browser",
    async () => {
      const server = await fixture();
      const m = machine();
      const first = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
      expect(first.code).toBe(0);
      const clientId = server.record.registrations[0]!.client_id;
      expect(text(first)).toBe(`authorized as ${clientId}`);
      expect(m.tabs()).toHaveLength(1);
      // The URL is always on stderr too; stdout is only the envelope.
      expect(first.stderr).toContain(m.tabs()[0]!);

      const second = await m.inspect(["call-tool", "whoami", "--url", server.url]);
      expect(second.code).toBe(0);
      expect(text(second)).toBe(`authorized as ${clientId}`);
      expect(m.tabs()).toHaveLength(1);
      expect(server.record.registrations).toHaveLength(1);

      // A 0700 directory of 0600 files; tokens only there, never in output, URLs or argv.
      expect(statSync(m.store).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(m.store)) expect(statSync(join(m.store, name)).mode & 0o777).toBe(0o600);
      const stored = m.files().join("\n");
      for (const token of [...server.record.accessTokens, ...server.record.refreshTokens]) {
        expect(stored).toContain(token);
        for (const output of [first.stdout, first.stderr, second.stdout, second.stderr, ...m.tabs()]) expect(output).not.toContain(token);
      }
      // Keyed by resource and by the authorization server that issued them.
      const entry = JSON.parse(m.files()[0]!);
      expect(entry.resource).toBe(server.url);
      expect(entry.issuer).toBe(server.issuer);
    },
    TEST_GUARD_MS,
  );

  test(
    "the sign-in follows the spec: PKCE S256, our state, the resource parameter, the registered loopback redirect",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["list-tools", "--url", server.url, "--oauth"])).code).toBe(0);
      const [authz] = server.record.authorizations;
      expect(authz!.code_challenge_method).toBe("S256");
      expect(authz!.state!.length).toBeGreaterThanOrEqual(32);
      expect(authz!.resource).toBe(server.url);
      expect(authz!.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(server.record.registrations[0]!.redirect_uris).toEqual([authz!.redirect_uri!]);
      expect(server.record.tokenRequests[0]).toMatchObject({
        grant_type: "authorization_code",
        verifierMatches: true,
        resource: server.url,
        clientAuth: "none",
        ok: true,
      });
    },
    TEST_GUARD_MS,
  );

  test(
    "auth signs in now; auth --list shows servers, scopes and expiry but never a token; auth --logout revokes, then forgets",
    async () => {
      const server = await fixture();
      const m = machine();
      const signIn = await m.inspect(["auth", "--url", server.url]);
      expect(signIn.code).toBe(0);
      expect(m.tabs()).toHaveLength(1);

      const list = await m.inspect(["auth", "--list"]);
      expect(list.code).toBe(0);
      const [shown] = list.json.data.servers;
      expect(shown).toMatchObject({ resource: server.url, issuer: server.issuer, scopes: [FIXTURE_SCOPE], refreshable: true });
      expect(Date.parse(shown.expiresAt)).toBeGreaterThan(Date.now());
      for (const token of [...server.record.accessTokens, ...server.record.refreshTokens]) expect(list.stdout).not.toContain(token);

      const logout = await m.inspect(["auth", "--logout", "--url", server.url]);
      expect(logout.code).toBe(0);
      expect(logout.json.data).toMatchObject({ revoked: true, forgotten: true });
      expect(server.record.revocations.sort()).toEqual([server.record.accessTokens[0]!, server.record.refreshTokens[0]!].sort());
      expect((await m.inspect(["auth", "--list"])).json.data.servers).toEqual([]);
      expect((await m.inspect(["list-tools", "--url", server.url])).code).toBe(EXIT_AUTH);
    },
    TEST_GUARD_MS,
  );

  test(
    "auth --logout that cannot revoke says so and exits non-zero: a confidential client without its secret keeps its tokens",
    async () => {
      const server = await fixture({
        registration: false,
        preRegistered: { clientId: "app", clientSecret: "s3cret", authMethod: "client_secret_basic" },
      });
      const m = machine({ APP_SECRET: "s3cret" });
      const client = ["--client-id", "app", "--client-secret-env", "APP_SECRET"];
      expect((await m.inspect(["auth", "--url", server.url, ...client])).code).toBe(0);
      const refused = await m.inspect(["auth", "--logout", "--url", server.url]);
      expect(refused.code).toBe(EXIT_AUTH);
      expect(refused.json.error.message).toBe(
        `the tokens for ${server.url} were not revoked: the authorization server refused the revocation (HTTP 401: invalid_client): a ` +
          "client with a secret revokes with it (pass --client-id ID --client-secret-env VAR); they are kept, so that logging out " +
          "again can revoke them",
      );
      expect(server.record.revocations).toEqual([]);
      const revoked = await m.inspect(["auth", "--logout", "--url", server.url, ...client]);
      expect(revoked.code).toBe(0);
      expect(revoked.json.data).toMatchObject({ revoked: true, forgotten: true });
      expect(server.record.revocations).toContain(server.record.refreshTokens[0]!);

      const none = await fixture({ revocation: false });
      expect((await m.inspect(["auth", "--url", none.url])).code).toBe(0);
      const forgotten = await m.inspect(["auth", "--logout", "--url", none.url]);
      expect(forgotten.code).toBe(EXIT_AUTH);
      expect(forgotten.json.error.message).toBe(
        `the tokens for ${none.url} are forgotten here but not revoked: the authorization server offers no token revocation (RFC 7009), ` +
          "so they stay valid at the authorization server until they expire",
      );
      expect((await m.inspect(["auth", "--list"])).json.data.servers).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "a token about to expire is refreshed before it is used: no 401, no browser, the refresh token rotated",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      // An hour passes: the stored token has ten seconds left.
      const file = m.entryFile();
      const entry = JSON.parse(readFileSync(file, "utf8"));
      entry.tokens.expires_at = Date.now() + 10_000;
      writeFileSync(file, JSON.stringify(entry));
      const refused = server.record.unauthorizedMcp;
      const run = await m.inspect(["call-tool", "whoami", "--url", server.url]);
      expect(run.code).toBe(0);
      expect(server.record.refreshes).toBe(1);
      expect(server.record.unauthorizedMcp).toBe(refused);
      expect(m.tabs()).toHaveLength(1);
      expect(m.files()[0]).toContain(server.record.refreshTokens[1]!);
    },
    TEST_GUARD_MS,
  );

  test(
    "a refresh token the server no longer takes (invalid_grant): the tokens are dropped and a new sign-in follows",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      const file = m.entryFile();
      const before = readFileSync(file, "utf8");
      server.expireAccessTokens();
      expect((await m.inspect(["call-tool", "whoami", "--url", server.url])).code).toBe(0); // refreshed: the old refresh token is spent
      writeFileSync(file, before); // a stale copy comes back (a restored backup)
      server.expireAccessTokens();
      const refused = await m.inspect(["call-tool", "whoami", "--url", server.url]);
      expect(refused.code).toBe(EXIT_AUTH);
      expect(refused.json.error.message).toContain(`run mcp-inspect auth --url ${server.url}`);
      const signedIn = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
      expect(signedIn.code).toBe(0);
      expect(m.tabs()).toHaveLength(2);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 403 insufficient_scope steps up with the union of scopes, and the call goes through",
    async () => {
      const server = await fixture();
      const m = machine();
      const run = await m.inspect(["call-tool", "admin", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(0);
      expect(text(run)).toBe(`admin with ${FIXTURE_SCOPE} ${ADMIN_SCOPE}`);
      expect(server.record.authorizations.map((a) => a.scope)).toEqual([FIXTURE_SCOPE, `${FIXTURE_SCOPE} ${ADMIN_SCOPE}`]);
    },
    TEST_GUARD_MS,
  );

  test(
    "a step-up beyond what the dynamically registered client was registered for registers again first, then goes through",
    async () => {
      const server = await fixture({ scopesBoundAtRegistration: true });
      const m = machine();
      const run = await m.inspect(["call-tool", "admin", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(0);
      expect(text(run)).toBe(`admin with ${FIXTURE_SCOPE} ${ADMIN_SCOPE}`);
      expect(server.record.registrations.map((r) => r.scope)).toEqual([FIXTURE_SCOPE, `${FIXTURE_SCOPE} ${ADMIN_SCOPE}`]);
      expect(m.tabs()).toHaveLength(2);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that keeps refusing the scope cannot loop: a bounded number of step-ups, then exit 3",
    async () => {
      const server = await fixture({ grantableScopes: [FIXTURE_SCOPE] });
      const m = machine();
      const run = await m.inspect(["call-tool", "admin", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(EXIT_AUTH);
      expect(run.json.error.message).toContain("still refuses with insufficient_scope after 2 step-ups");
      expect(server.record.authorizations).toHaveLength(3);
    },
    TEST_GUARD_MS,
  );

  test(
    "a step-up where no sign-in may happen names the scopes, and mcp-inspect auth then asks for them",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      const refused = await m.inspect(["call-tool", "admin", "--url", server.url]);
      expect(refused.code).toBe(EXIT_AUTH);
      expect(refused.json.error.message).toContain(
        `needs wider access (scopes: ${FIXTURE_SCOPE} ${ADMIN_SCOPE}): run mcp-inspect auth --url ${server.url}`,
      );
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      expect(server.record.authorizations.at(-1)!.scope).toBe(`${FIXTURE_SCOPE} ${ADMIN_SCOPE}`);
      expect((await m.inspect(["call-tool", "admin", "--url", server.url])).code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that needs no sign-in never touches the token store (an unusable one included)",
    async () => {
      const { startReferenceHttp } = await import("../../support/helpers.ts");
      const http = await startReferenceHttp();
      try {
        const home = tempDir();
        const fresh = await inspect(["ping", "--url", http.url], { env: { HOME: home, MCPKIT_AUTH_DIR: "" } });
        expect(fresh.code).toBe(0);
        expect(existsSync(join(home, ".mcpkit", "auth"))).toBe(false);
        const { chmodSync, mkdirSync } = await import("node:fs");
        const open = join(home, "open-store");
        mkdirSync(open);
        chmodSync(open, 0o755);
        const unusable = await inspect(["ping", "--url", http.url], { env: { MCPKIT_AUTH_DIR: open } });
        expect(unusable.code).toBe(0);
      } finally {
        await http.stop();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "a person slower than --timeout and the server/discover probe signs in once: one tab, and the call goes through",
    async () => {
      const server = await fixture();
      // The probe and the handshake are bounded by --timeout (2 s); the person takes twice that.
      const m = machine({ MCPKIT_TEST_BROWSER_DELAY_MS: "4000" });
      const run = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth", "--timeout", "2000"]);
      expect(run.code).toBe(0);
      expect(m.tabs()).toHaveLength(1);
      expect(server.record.authorizations).toHaveLength(1);
      expect(server.record.registrations).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "Ctrl-C while the sign-in waits for the browser: exit 130 at once, the lock and the port let go",
    async () => {
      const server = await fixture();
      const m = machine({ BROWSER: "true" }); // opens nothing: the sign-in waits
      const child = Bun.spawn([BUN, join(ROOT, "mcp-inspect.ts"), "call-tool", "whoami", "--url", server.url, "--oauth"], {
        env: { ...process.env, ...m.env, NO_COLOR: "1" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const seen = await readUntil(child.stderr.getReader(), (text) => text.includes("/authorize?"));
      const port = Number(new URL(decodeURIComponent(/redirect_uri=([^&\s]+)/.exec(seen)![1]!)).port);
      child.kill("SIGINT");
      expect(await child.exited).toBe(130);
      const envelope = JSON.parse(await new Response(child.stdout).text());
      expect(envelope.error.code).toBe("CANCELLED");
      expect(readdirSync(m.store).filter((name) => name.endsWith(".lock"))).toEqual([]);
      expect(
        await fetch(`http://127.0.0.1:${port}/callback`).then(
          () => "listening",
          () => "closed",
        ),
      ).toBe("closed");
    },
    TEST_GUARD_MS,
  );

  test(
    "any other 403 is an auth error, exit 3, with no sign-in",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      const run = await m.inspect(["call-tool", "forbidden", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(EXIT_AUTH);
      expect(run.json.error.details.httpStatus).toBe(403);
      expect(server.record.authorizations).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "--no-browser prints the URL and takes the redirect URL pasted on stdin: no callback listener needed",
    async () => {
      const server = await fixture();
      const m = machine();
      // Play the user on another machine: open the printed URL there, copy where it lands.
      const child = Bun.spawn([BUN, join(ROOT, "mcp-inspect.ts"), "auth", "--no-browser", "--url", server.url], {
        env: { ...process.env, ...m.env, NO_COLOR: "1" },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const authorizationLine = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m;
      const authorizationUrl = authorizationLine.exec(
        await readUntil(child.stderr.getReader(), (text) => authorizationLine.test(text)),
      )?.[1];
      expect(authorizationUrl).toBeDefined();
      const landing = (await fetch(authorizationUrl!, { redirect: "manual" })).headers.get("location")!;
      expect(new URL(landing).searchParams.get("code")).toBeTruthy();
      child.stdin.write(`${landing}\n`);
      child.stdin.end();
      expect(await child.exited).toBe(0);
      expect(m.tabs()).toEqual([]);
      // No listener, so no port: a loopback redirect registered without one matches any (RFC 8252).
      expect(server.record.registrations[0]!.redirect_uris).toEqual(["http://127.0.0.1/callback"]);
      expect((await m.inspect(["call-tool", "whoami", "--url", server.url])).code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a wrong iss in the authorization response is refused (RFC 9207): no code is redeemed",
    async () => {
      const server = await fixture({ callbackIss: "http://evil.example" });
      const m = machine();
      const run = await m.inspect(["auth", "--url", server.url]);
      expect(run.code).toBe(EXIT_AUTH);
      expect(run.stderr + run.stdout).toMatch(/iss/i);
      expect(server.record.tokenRequests).toEqual([]);
    },
    TEST_GUARD_MS,
  );
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

describe("mcp-proxy --url", () => {
  const PROXY = join(ROOT, "mcp-proxy.ts");

  test(
    "signs in like mcp-remote: URL on stderr, the browser opened, the client's requests held until it is done",
    async () => {
      const server = await fixture();
      const m = machine();
      const peer = new LinePeer([BUN, PROXY, "--url", server.url], { env: m.env });
      peers.push(peer);
      // Sent at once, before any sign-in: all are held, then answered.
      peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
      await peer.waitFor(() => peer.responseTo(1) !== undefined);
      expect(peer.responseTo(0).result.serverInfo.name).toBe("mcpkit-oauth-fixture");
      expect(peer.responseTo(1).result.content[0].text).toStartWith("authorized as client-");
      expect(m.tabs()).toHaveLength(1);
      expect(peer.stderr).toContain(m.tabs()[0]!);
    },
    TEST_GUARD_MS,
  );

  test(
    "a sign-in that never comes back: after the callback timeout each held request is answered with an error naming mcp-inspect auth",
    async () => {
      const server = await fixture();
      const m = machine({ BROWSER: "true" }); // a browser that opens nothing
      const peer = new LinePeer([BUN, PROXY, "--url", server.url, "--callback-timeout", "300"], { env: m.env });
      peers.push(peer);
      peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      await peer.waitFor(() => peer.responseTo(0) !== undefined && peer.responseTo(1) !== undefined);
      for (const id of [0, 1]) expect(peer.responseTo(id).error.message).toContain(`mcp-inspect auth --url ${server.url}`);
    },
    TEST_GUARD_MS,
  );

  test(
    "a long-running proxy signs in again when it must, a second time too (the limits are per request)",
    async () => {
      const server = await fixture({ refreshTokens: false });
      const m = machine();
      const peer = new LinePeer([BUN, PROXY, "--url", server.url], { env: m.env });
      peers.push(peer);
      await peer.request(0, "initialize", INITIALIZE());
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (const id of [1, 2]) {
        server.expireAccessTokens();
        const answer = await peer.request(id, "tools/call", { name: "whoami", arguments: {} });
        expect(answer.result.content[0].text).toStartWith("authorized as client-");
      }
      expect(m.tabs()).toHaveLength(3);
    },
    TEST_GUARD_MS,
  );

  test(
    "three proxies started at once sign in once: one browser tab, one registration",
    async () => {
      const server = await fixture();
      const m = machine();
      const three = [0, 1, 2].map(() => new LinePeer([BUN, PROXY, "--url", server.url], { env: m.env }));
      peers.push(...three);
      for (const peer of three) peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      await Promise.all(three.map((peer) => peer.waitFor(() => peer.responseTo(0) !== undefined)));
      for (const peer of three) expect(peer.responseTo(0).result.serverInfo.name).toBe("mcpkit-oauth-fixture");
      expect(m.tabs()).toHaveLength(1);
      expect(server.record.registrations).toHaveLength(1);
      expect(server.record.tokensIssued).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 401 at a later request refreshes, once across two proxies, with no new sign-in",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      const two = [0, 1].map(() => new LinePeer([BUN, PROXY, "--url", server.url], { env: m.env }));
      peers.push(...two);
      for (const peer of two) {
        await peer.request(0, "initialize", INITIALIZE());
        peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      }
      server.expireAccessTokens();
      for (const peer of two) peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
      await Promise.all(two.map((peer) => peer.waitFor(() => peer.responseTo(1) !== undefined)));
      for (const peer of two) expect(peer.responseTo(1).result.content[0].text).toStartWith("authorized as client-");
      expect(server.record.refreshes).toBe(1);
      expect(server.record.authorizations).toHaveLength(1);
      expect(m.tabs()).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );
});

describe("on a terminal", () => {
  test(
    "mcp-inspect asks before signing in (stdin and stderr both terminals), then answers",
    async () => {
      const server = await fixture();
      const m = machine();
      const { inTerminal } = await import("../../support/terminal.ts");
      const term = inTerminal([BUN, join(ROOT, "mcp-inspect.ts"), "call-tool", "whoami", "--url", server.url], {
        env: { ...process.env, ...m.env, NO_COLOR: "1", TERM: "xterm" },
      });
      try {
        await term.see(`${server.issuer} requires a sign-in. Sign in with your browser? [y/N]`);
        term.type("y\r");
        await term.see("authorized as client-");
        expect(await term.child.exited).toBe(0);
      } finally {
        term.close();
      }
      expect(m.tabs()).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );
});

describe("mcp-daemon", () => {
  test(
    "a stateful session uses the store; one that needs a sign-in answers with an error naming the command",
    async () => {
      const { daemonDir, stopDaemons } = await import("../../support/helpers.ts");
      const server = await fixture();
      const m = machine({ MCPKIT_DAEMON_DIR: daemonDir() });
      try {
        const refused = await m.inspect(["call-tool", "whoami", "--stateful", "--url", server.url]);
        expect(refused.code).toBe(EXIT_AUTH);
        expect(refused.json.error.message).toContain(`mcp-inspect auth --url ${server.url}`);
        expect(m.tabs()).toEqual([]);

        expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
        const served = await m.inspect(["call-tool", "whoami", "--stateful", "--url", server.url]);
        expect(served.code).toBe(0);
        expect(text(served)).toStartWith("authorized as client-");
        // The access token stops working: the daemon's session refreshes it at the next call.
        server.expireAccessTokens();
        const again = await m.inspect(["call-tool", "whoami", "--stateful", "--url", server.url]);
        expect(again.code).toBe(0);
        expect(server.record.refreshes).toBe(1);
        expect(m.tabs()).toHaveLength(1);
      } finally {
        await stopDaemons();
      }
    },
    TEST_GUARD_MS,
  );
});

describe("mcp-host", () => {
  test(
    "-p: a 403 insufficient_scope in a tool call steps up with one more tab, the call goes through, and the host exits 0",
    async () => {
      const server = await fixture();
      const m = machine();
      const run = await runTool("mcp-host.ts", ["--server", server.url, "--oauth", "--provider", "scripted", "-p", "call admin"], {
        env: { ...NO_VENDOR_KEYS, ...m.env },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`admin with ${FIXTURE_SCOPE} ${ADMIN_SCOPE}`);
      expect(server.record.authorizations.map((a) => a.scope)).toEqual([FIXTURE_SCOPE, `${FIXTURE_SCOPE} ${ADMIN_SCOPE}`]);
      expect(m.tabs()).toHaveLength(2);
    },
    TEST_GUARD_MS,
  );

  test(
    "asks, signs in through the browser, and keeps the tokens for the next chat",
    async () => {
      const { HostDriver } = await import("../../support/host-driver.ts");
      const server = await fixture();
      const m = machine();
      const first = new HostDriver(["--server", server.url], m.env);
      try {
        await first.waitFor("[y/N]");
        first.send("y");
        await first.waitFor(/connected to "mcpkit-oauth-fixture" as localhost \(2026-07-28, 3 tools/);
        first.send("whoami", "/quit");
        await first.waitFor(/whoami returned: authorized as client-\S+/);
        expect(await first.exit()).toBe(0);
        for (const token of server.record.accessTokens) expect(first.stdout + first.stderr).not.toContain(token);
      } finally {
        first.child.kill("SIGKILL");
      }
      expect(m.tabs()).toHaveLength(1);

      const second = new HostDriver(["--server", server.url], m.env);
      try {
        await second.waitFor(/connected to "mcpkit-oauth-fixture" as localhost/);
        second.send("/quit");
        expect(await second.exit()).toBe(0);
        expect(second.stdout).not.toContain("[y/N]");
      } finally {
        second.child.kill("SIGKILL");
      }
      expect(m.tabs()).toHaveLength(1);
      expect(server.record.authorizations).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );
});
