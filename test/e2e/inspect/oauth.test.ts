// OAuth in mcp-inspect, driving the real entry script against the loopback authorization server
// (test/support/oauth-machine.ts): signing in, the token store, refresh, step-up and revocation,
// and how each refusal ends. oauth-discovery.test.ts has discovery, scopes, client identity and the
// other tools' sign-ins.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_SCOPE, FIXTURE_SCOPE } from "../../fixtures/oauth-server.ts";
import { inspect, readUntil, removeTempDirs, TEST_GUARD_MS, tempDir, toolCommand } from "../../support/helpers.ts";
import { EXIT_AUTH, fixture, machine, stopFixtures, text } from "../../support/oauth-machine.ts";

afterAll(async () => {
  await stopFixtures();
  removeTempDirs();
});

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
      const child = Bun.spawn([...toolCommand("mcp-inspect.ts"), "call-tool", "whoami", "--url", server.url, "--oauth"], {
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
      const child = Bun.spawn([...toolCommand("mcp-inspect.ts"), "auth", "--no-browser", "--url", server.url], {
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
