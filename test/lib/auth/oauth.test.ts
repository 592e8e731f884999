/**
 * lib's OAuth client under an SDK Client, as mcp-host connects (lib's HTTP channel as the SDK
 * transport), in process, against a
 * real loopback authorization server + protected MCP server (test/fixtures/oauth-server.ts). The
 * test plays the user and the browser: its openUrl fetches the authorization URL, whose
 * auto-consent redirect lands on the loopback callback. Then OAuthSession itself: which refusal
 * needs what (a refresh, a sign-in, a step-up, an error), bounded, and logout. The entry scripts'
 * own flows are in test/e2e/inspect/oauth.test.ts.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type ClientOptions, type Transport } from "@modelcontextprotocol/client";
import { ChannelTransport } from "../../../host/channel-transport.ts";
import { connectionFailure } from "../../../host/servers.ts";
import { CALLBACK_PATH } from "../../../lib/auth/callback.ts";
import { AuthRequiredError } from "../../../lib/auth/errors.ts";
import { MAX_SIGN_INS, MAX_STEP_UPS, type OAuthOptions, OAuthSession } from "../../../lib/auth/oauth.ts";
import { AuthStore } from "../../../lib/auth/store.ts";
import type { ChannelAuth } from "../../../lib/open.ts";
import { openChannel } from "../../../lib/open.ts";
import type { HttpTarget } from "../../../lib/targets/target.ts";
import type { Asker } from "../../../lib/terminal/asker.ts";
import { isBrowserSafeUrl } from "../../../lib/terminal/browser.ts";
import { ADMIN_SCOPE, FIXTURE_SCOPE, type OAuthFixture, type OAuthFixtureOptions, startOAuthServer } from "../../fixtures/oauth-server.ts";
import { removeTempDirs } from "../../support/helpers.ts";
import { privateStore } from "../../support/oauth-user.ts";

const T = 20_000; // generous bound against hangs, not a performance check
const MODERN = "2026-07-28";

// ---- bookkeeping --------------------------------------------------------------------------------
const fixtures: OAuthFixture[] = [];
const clients: Client[] = [];

// Each test signs in from nothing: its own token store.
const stores: string[] = [];
beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-auth-"));
  stores.push(dir);
  process.env.MCPKIT_AUTH_DIR = join(dir, "auth");
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(fixtures.map((f) => f.stop()));
  for (const dir of stores) rmSync(dir, { recursive: true, force: true });
  removeTempDirs();
  delete process.env.MCPKIT_AUTH_DIR;
});

type Options = Omit<ChannelAuth, "signIn" | "ui"> & { ui: Asker; headers?: Record<string, string> };
/** mcp-host's connection to `url`, asking the scripted user first as the host does. */
async function connect(c: Client, url: string, { headers = {}, ...auth }: Options): Promise<Transport> {
  const target: HttpTarget = { kind: "http", url, headers, transport: "auto" };
  const transport = new ChannelTransport(await openChannel(target, { auth: { signIn: "ask", ...auth } })) as unknown as Transport;
  await c.connect(transport).catch((error: unknown) => {
    throw connectionFailure(error);
  });
  return transport;
}

async function fixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const f = await startOAuthServer(options);
  fixtures.push(f);
  return f;
}

type Era = "legacy" | "auto" | "pin";
function client(era: Era = "auto"): Client {
  const options: ClientOptions = {
    ...(era === "auto" ? { versionNegotiation: { mode: "auto" } } : {}),
    ...(era === "pin" ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
  };
  const c = new Client({ name: "host-oauth-test", version: "0" }, options);
  clients.push(c);
  return c;
}

/** A scripted user: answers confirm with `answer`, records every question and printed line. */
function scriptedUi(answer: boolean) {
  const questions: string[] = [];
  const printed: string[] = [];
  const ui: Asker = {
    confirm: async (q) => (questions.push(q), answer),
    print: (line) => void printed.push(line),
  };
  return { ui, questions, printed };
}

/**
 * The test browser: follows the authorization redirect to the callback and keeps what it saw.
 * connectHttp does not wait for its opener, so assertions on pages first await `idle()`.
 */
function followingBrowser() {
  const opened: string[] = [];
  const pages: { status: number; url: string; body: string }[] = [];
  const visits: Promise<void>[] = [];
  const openUrl = (url: string) => {
    opened.push(url);
    const visit = (async () => {
      const res = await fetch(url);
      pages.push({ status: res.status, url: res.url, body: await res.text() });
    })();
    visits.push(visit);
    return visit;
  };
  return { openUrl, opened, pages, idle: () => Promise.all(visits) };
}

/** A browser whose callback is tampered with: `edit` rewrites the redirect before it is followed. */
function tamperingBrowser(edit: (callback: URL) => void) {
  const pages: { status: number; body: string }[] = [];
  const visits: Promise<void>[] = [];
  const openUrl = (url: string) => {
    const visit = (async () => {
      const res = await fetch(url, { redirect: "manual" });
      const callback = new URL(res.headers.get("location")!);
      edit(callback);
      const page = await fetch(callback);
      pages.push({ status: page.status, body: await page.text() });
    })();
    visits.push(visit);
    return visit;
  };
  return { openUrl, pages, idle: () => Promise.all(visits) };
}

async function whoami(c: Client): Promise<string> {
  const result = await c.callTool({ name: "whoami", arguments: {} });
  const first = (result.content as { type: string; text?: string }[])[0];
  return first?.text ?? "";
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether something still listens on 127.0.0.1:port. */
async function listening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/`).then(
    () => true,
    () => false,
  );
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

// ---- the full flow ------------------------------------------------------------------------------

describe("full authorization flow", () => {
  for (const era of ["auto", "legacy", "pin"] as const) {
    test(
      `${era}: asks first, prints the URL, signs in through the browser and then lists and calls the tool`,
      async () => {
        const server = await fixture();
        const { ui, questions, printed } = scriptedUi(true);
        const browser = followingBrowser();
        const c = client(era);

        const transport: Transport = await connect(c, server.url, { ui, openUrl: browser.openUrl });

        expect(questions).toHaveLength(1);
        expect(questions[0]).toContain(new URL(server.url).origin);
        // The URL is always printed (the user can copy it), and it is what the browser opened.
        expect(browser.opened).toHaveLength(1);
        expect(printed).toContain(browser.opened[0]!);
        expect(browser.opened[0]!.startsWith(`${server.issuer}/authorize?`)).toBe(true);
        // The browser landed on our callback page, which said it worked.
        await browser.idle();
        expect(browser.pages[0]!.status).toBe(200);
        expect(new URL(browser.pages[0]!.url).pathname).toBe(CALLBACK_PATH);
        expect(browser.pages[0]!.body).toContain("Authorization received");

        const tools = await c.listTools();
        expect(tools.tools.map((t) => t.name)).toEqual(["whoami", "admin", "forbidden"]);
        expect(await whoami(c)).toBe(`authorized as ${server.record.registrations[0]!.client_id}`);
        expect(server.record.tokensIssued).toBe(1);
        expect(server.record.authorizedMcp).toBeGreaterThan(0);

        // Tokens never reach the user's screen or a URL.
        const token = server.record.accessTokens[0]!;
        for (const line of [...printed, ...questions, ...browser.opened, browser.pages[0]!.url]) expect(line).not.toContain(token);
        await transport.close();
      },
      T,
    );
  }

  test(
    "uses PKCE S256 and redeems the code with the verifier that matches the challenge",
    async () => {
      const server = await fixture();
      const { ui } = scriptedUi(true);
      await connect(client(), server.url, { ui, openUrl: followingBrowser().openUrl });

      const [authz] = server.record.authorizations;
      const [tokenRequest] = server.record.tokenRequests;
      expect(authz!.code_challenge_method).toBe("S256");
      expect(authz!.response_type).toBe("code");
      expect(authz!.state!.length).toBeGreaterThanOrEqual(32);
      expect(authz!.resource).toBe(server.url); // RFC 8707 resource indicator names the MCP server
      expect(tokenRequest!.verifierMatches).toBe(true);
      expect(tokenRequest!.code_verifier!.length).toBeGreaterThanOrEqual(43);
      expect(s256(tokenRequest!.code_verifier!)).toBe(authz!.code_challenge!);
      expect(tokenRequest!.resource).toBe(server.url);
      // Dynamic client registration as a public native client with our loopback redirect.
      expect(server.record.registrations).toHaveLength(1);
      expect(server.record.registrations[0]!.client_name).toBe("mcpkit");
      expect(server.record.registrations[0]!.redirect_uris).toEqual([authz!.redirect_uri!]);
      expect(authz!.redirect_uri!).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${CALLBACK_PATH}$`));
    },
    T,
  );
});

// ---- refusals -----------------------------------------------------------------------------------

describe("refusals", () => {
  test(
    "declining the prompt rejects with a clear error, opens nothing and registers nothing",
    async () => {
      const server = await fixture();
      const { ui, questions, printed } = scriptedUi(false);
      const browser = followingBrowser();

      const err = await connect(client(), server.url, { ui, openUrl: browser.openUrl }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toBe(`signing in to ${server.issuer} was declined (run mcp-inspect auth --url ${server.url} to sign in)`);
      expect(err?.message).not.toContain("\n");
      expect(questions).toHaveLength(1);
      expect(browser.opened).toHaveLength(0);
      expect(printed).toHaveLength(0);
      expect(server.record.registrations).toHaveLength(0);
      expect(server.record.authorizations).toHaveLength(0);
    },
    T,
  );

  for (const [label, edit] of [
    ["a wrong state", (cb: URL) => cb.searchParams.set("state", "forged-by-an-attacker")],
    ["no state", (cb: URL) => cb.searchParams.delete("state")],
  ] as const) {
    test(
      `a callback with ${label} is refused with 400 and redeems nothing; the real callback after it still signs in`,
      async () => {
        const server = await fixture();
        const { ui } = scriptedUi(true);
        const pages: { status: number; body: string }[] = [];
        let tokenRequestsAtForgery = -1;
        const openUrl = async (url: string) => {
          const res = await fetch(url, { redirect: "manual" });
          const real = new URL(res.headers.get("location")!);
          const forged = new URL(real);
          edit(forged);
          const refused = await fetch(forged);
          pages.push({ status: refused.status, body: await refused.text() });
          tokenRequestsAtForgery = server.record.tokenRequests.length;
          const accepted = await fetch(real);
          pages.push({ status: accepted.status, body: await accepted.text() });
        };
        const c = client();
        await connect(c, server.url, { ui, openUrl });
        expect(pages[0]!.status).toBe(400);
        expect(pages[0]!.body).toContain(label === "no state" ? "no state parameter" : "does not match");
        expect(tokenRequestsAtForgery).toBe(0);
        expect(pages[1]!.status).toBe(200);
        expect(server.record.tokensIssued).toBe(1);
        expect(await whoami(c)).toStartWith("authorized as");
      },
      T,
    );
  }

  test(
    "only forged callbacks: the sign-in waits for its own until the callback timeout, then says so",
    async () => {
      const server = await fixture();
      const { ui } = scriptedUi(true);
      const browser = tamperingBrowser((cb) => cb.searchParams.set("state", "forged-by-an-attacker"));
      const err = await connect(client(), server.url, { ui, openUrl: browser.openUrl, callbackTimeoutMs: 500 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toContain("timed out waiting for the browser");
      await browser.idle();
      expect(browser.pages[0]!.status).toBe(400);
      expect(server.record.tokenRequests).toHaveLength(0);
    },
    T,
  );

  test(
    "an authorization server that denies access ends the flow with a one-line error and no token request",
    async () => {
      const server = await fixture();
      const { ui } = scriptedUi(true);
      const browser = tamperingBrowser((cb) => {
        cb.searchParams.delete("code");
        cb.searchParams.set("error", "access_denied");
        cb.searchParams.set("error_description", "the user said no\u001b[31m\nreally");
      });

      const err = await connect(client(), server.url, { ui, openUrl: browser.openUrl }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toStartWith("the authorization server did not grant access: access_denied");
      expect(err?.message).toContain("access_denied");
      expect(err?.message).not.toMatch(/[\u0000-\u001f\u007f]/);
      await browser.idle();
      expect(browser.pages[0]!.status).toBe(400);
      expect(browser.pages[0]!.body).toContain("did not grant access");
      expect(server.record.tokenRequests).toHaveLength(0);
    },
    T,
  );

  test(
    "a non-https, non-loopback authorization endpoint is refused before anything is printed or opened",
    async () => {
      const server = await fixture({ authorizationEndpoint: "http://auth.example.com/authorize" });
      const { ui, printed } = scriptedUi(true);
      const browser = followingBrowser();

      const err = await connect(client(), server.url, { ui, openUrl: browser.openUrl }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toBe(
        "refusing to open the authorization endpoint http://auth.example.com (only https or loopback http URLs are opened)",
      );
      expect(browser.opened).toHaveLength(0);
      expect(printed).toHaveLength(0);
      expect(server.record.tokenRequests).toHaveLength(0);
    },
    T,
  );

  test(
    "no callback within the timeout rejects with a clear error and frees the callback port",
    async () => {
      const server = await fixture();
      const port = await freePort();
      const { ui } = scriptedUi(true);
      const options: Options = { ui, callbackPort: port, callbackTimeoutMs: 300, openUrl: async () => {} };

      const err = await connect(client(), server.url, options).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toBe(
        `timed out waiting for the browser to come back to http://127.0.0.1:${port}${CALLBACK_PATH} (run mcp-inspect auth --url ` +
          `${server.url} to try again)`,
      );
      expect(await listening(port)).toBe(false);
    },
    T,
  );

  test(
    "aborting the signal while waiting for the browser cancels the flow and frees the callback port",
    async () => {
      const server = await fixture();
      const port = await freePort();
      const { ui } = scriptedUi(true);
      const ac = new AbortController();
      // The browser is opened while the sign-in already waits for it: aborting then is aborting the wait.
      const openUrl = async () => ac.abort();

      const err = await connect(client(), server.url, { ui, callbackPort: port, openUrl, signal: ac.signal }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toBe(`signing in to ${server.issuer} was cancelled`);
      expect(await listening(port)).toBe(false);
      expect(server.record.tokenRequests).toHaveLength(0);
    },
    T,
  );
});

// ---- static headers -----------------------------------------------------------------------------

describe("static Authorization header", () => {
  test(
    "a configured Authorization header is used as is and OAuth never starts",
    async () => {
      const server = await fixture({ staticToken: "static-secret" });
      const { ui, questions } = scriptedUi(true);
      const browser = followingBrowser();
      const c = client();

      await connect(c, server.url, { ui, openUrl: browser.openUrl, headers: { Authorization: "Bearer static-secret" } });
      expect(await whoami(c)).toBe("authorized as static");
      expect(questions).toHaveLength(0);
      expect(browser.opened).toHaveLength(0);
      expect(server.record.registrations).toHaveLength(0);
    },
    T,
  );

  test(
    "a rejected Authorization header fails clearly without offering OAuth",
    async () => {
      const server = await fixture({ staticToken: "static-secret" });
      const { ui, questions } = scriptedUi(true);

      const err = await connect(client(), server.url, { ui, headers: { authorization: "Bearer wrong" } }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(/rejected the configured Authorization header with HTTP 401/);
      expect(err?.message).not.toContain("wrong");
      expect(questions).toHaveLength(0);
      expect(server.record.registrations).toHaveLength(0);
    },
    T,
  );
});

// ---- the callback listener ----------------------------------------------------------------------

describe("callback listener", () => {
  test(
    "--callback-port is honoured: the redirect URI uses it, and the port is free again afterwards",
    async () => {
      const server = await fixture();
      const port = await freePort();
      const { ui } = scriptedUi(true);
      const c = client();

      await connect(c, server.url, { ui, callbackPort: port, openUrl: followingBrowser().openUrl });
      expect(server.record.authorizations[0]!.redirect_uri).toBe(`http://127.0.0.1:${port}${CALLBACK_PATH}`);
      expect(server.record.registrations[0]!.redirect_uris).toEqual([`http://127.0.0.1:${port}${CALLBACK_PATH}`]);
      expect(await whoami(c)).toStartWith("authorized as ");
      expect(await listening(port)).toBe(false);
    },
    T,
  );

  test(
    "two servers connecting at once sign in one after the other on the same fixed --callback-port",
    async () => {
      const [a, b] = await Promise.all([fixture(), fixture()]);
      const port = await freePort();
      const timeline: string[] = [];
      const ui: Asker = { confirm: async () => (timeline.push("confirm"), true), print: () => {} };
      const browser = followingBrowser();
      const openUrl = (url: string) => (timeline.push("open"), browser.openUrl(url));
      const [ca, cb] = [client(), client()];

      await Promise.all([connect(ca, a.url, { ui, callbackPort: port, openUrl }), connect(cb, b.url, { ui, callbackPort: port, openUrl })]);
      expect(timeline).toEqual(["confirm", "open", "confirm", "open"]);
      expect(await whoami(ca)).toBe(`authorized as ${a.record.registrations[0]!.client_id}`);
      expect(await whoami(cb)).toBe(`authorized as ${b.record.registrations[0]!.client_id}`);
    },
    T,
  );

  test(
    "a busy --callback-port fails with a clear error before anything is registered",
    async () => {
      const server = await fixture();
      const blocker = createServer();
      await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
      const port = (blocker.address() as { port: number }).port;
      try {
        const { ui } = scriptedUi(true);
        const err = await connect(client(), server.url, { ui, callbackPort: port, openUrl: followingBrowser().openUrl }).then(
          () => undefined,
          (e: Error) => e,
        );
        expect(err?.message).toBe(
          `cannot listen for the OAuth callback on 127.0.0.1:${port}: the port is in use (choose another --callback-port)`,
        );
        expect(server.record.registrations).toHaveLength(0);
      } finally {
        await new Promise((r) => blocker.close(r));
      }
    },
    T,
  );

  test(
    "foreign Host, foreign Origin, other paths and other methods are refused without consuming the callback",
    async () => {
      const server = await fixture();
      const { ui } = scriptedUi(true);
      const statuses: Record<string, number> = {};
      const openUrl = async (url: string) => {
        const res = await fetch(url, { redirect: "manual" });
        const callback = new URL(res.headers.get("location")!);
        const probe = async (name: string, target: URL, init?: RequestInit) => {
          statuses[name] = (await fetch(target, init)).status;
        };
        await probe("host", callback, { headers: { host: "evil.example" } });
        await probe("origin", callback, { headers: { origin: "https://evil.example" } });
        await probe("path", new URL(`/other${callback.search}`, callback));
        await probe("method", callback, { method: "POST" });
        await probe("callback", callback);
      };
      const c = client();

      await connect(c, server.url, { ui, openUrl });
      expect(statuses).toEqual({ host: 400, origin: 403, path: 404, method: 405, callback: 200 });
      expect(await whoami(c)).toStartWith("authorized as ");
    },
    T,
  );
});

// ---- URL policy -----------------------------------------------------------------------------------

describe("isBrowserSafeUrl", () => {
  const cases: [string, boolean][] = [
    ["https://auth.example.com/authorize", true],
    ["http://127.0.0.1:8080/authorize", true],
    ["http://127.1.2.3/authorize", true],
    ["http://localhost:3000/authorize", true],
    ["http://[::1]:3000/authorize", true],
    ["http://auth.example.com/authorize", false],
    ["http://127.0.0.1.evil.example/authorize", false],
    ["http://localhost.evil.example/authorize", false],
    ["https://user:pass@auth.example.com/authorize", false],
    ["file:///etc/passwd", false],
    ["javascript:alert(1)", false],
    ["ftp://auth.example.com/", false],
  ];
  for (const [url, safe] of cases)
    test(`${url} -> ${safe ? "opened" : "refused"}`, () => expect(isBrowserSafeUrl(new URL(url))).toBe(safe));
});

// ---- OAuthSession: which refusal needs what ----------------------------------------------------------

describe("OAuthSession", () => {
  const policy = (signIn: "ask" | "yes" | "no", over: Partial<OAuthOptions> = {}): OAuthOptions => ({
    signIn,
    ui: scriptedUi(true).ui,
    signInCommand: "mcp-inspect auth",
    openUrl: followingBrowser().openUrl,
    ...over,
  });
  const refusal = (status: number, challenge?: string) =>
    new Response(null, { status, headers: challenge ? { "www-authenticate": challenge } : {} });
  /** A session on `server`, signed in through the test's browser. */
  async function signedIn(server: OAuthFixture, over: Partial<OAuthOptions> = {}) {
    const session = new OAuthSession(server.url, policy("yes", over));
    await session.signInNow();
    return session;
  }
  const stored = (url: string) => AuthStore.open().read(url);

  test("a server that wants no sign-in makes none: no header, and no store is created", async () => {
    const session = new OAuthSession("https://mcp.example.com/mcp", policy("no"));
    expect(await session.authorization()).toBeUndefined();
    expect(session.current()).toBeUndefined();
    expect(AuthStore.exists()).toBe(false);
  });

  test("the stored token is the header; one about to expire is refreshed first (current() never refreshes)", async () => {
    const server = await fixture();
    const session = await signedIn(server);
    const first = server.record.accessTokens[0]!;
    expect(await session.authorization()).toBe(`Bearer ${first}`);
    AuthStore.open().update(server.url, (entry) => void (entry.tokens!.expires_at = Date.now() + 1_000));
    expect(session.current()).toBe(`Bearer ${first}`);
    expect(server.record.refreshes).toBe(0);
    const refreshed = await session.authorization();
    expect(server.record.refreshes).toBe(1);
    expect(refreshed).toBe(`Bearer ${server.record.accessTokens[1]!}`);
  });

  test("a 401 after another process stored new tokens: those are tried, nothing else is done", async () => {
    const store = privateStore();
    store.update("https://mcp.example.com/mcp", (entry) => void (entry.tokens = { access_token: "new", token_type: "Bearer" }));
    const session = new OAuthSession("https://mcp.example.com/mcp", policy("no", { store }));
    expect(await session.recover(refusal(401, "Bearer"), "Bearer old")).toBe(true);
  });

  test("a 401 for our own tokens: the refresh token is redeemed, no browser", async () => {
    const server = await fixture();
    const session = await signedIn(server);
    const opened: string[] = [];
    const strict = new OAuthSession(server.url, policy("no", { openUrl: async (url) => void opened.push(url) }));
    expect(await strict.recover(refusal(401, "Bearer"), await session.authorization())).toBe(true);
    expect(server.record.refreshes).toBe(1);
    expect(opened).toEqual([]);
  });

  test("a refresh the authorization server refuses for another reason: that is said, with no --header hint", async () => {
    const server = await fixture({
      registration: false,
      preRegistered: { clientId: "app", clientSecret: "s3cret", authMethod: "client_secret_basic" },
    });
    const session = await signedIn(server, { client: { clientId: "app", clientSecret: "s3cret" } });
    // The secret was rotated at the server: the refresh is refused as invalid_client.
    const stale = new OAuthSession(server.url, policy("no", { client: { clientId: "app", clientSecret: "old" } }));
    const error = await stale.recover(refusal(401), await session.authorization()).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect((error as Error).message).toStartWith(`refreshing the tokens for ${new URL(server.url).origin} failed: `);
    expect((error as Error).message).toEndWith("(run mcp-inspect auth to sign in again)");
    expect((error as Error).message).not.toContain("--header");
  });

  const noSignIn: [string, string | undefined, string][] = [
    [
      "a Bearer challenge",
      'Bearer resource_metadata="https://mcp.example.com/m"',
      "mcp.example.com requires a sign-in (run mcp-inspect auth)",
    ],
    [
      "no Bearer challenge (maybe an API key)",
      undefined,
      'mcp.example.com requires a sign-in (run mcp-inspect auth, or pass --header "Authorization: Bearer <token>")',
    ],
  ];
  for (const [what, challenge, message] of noSignIn)
    test(`a 401 where no sign-in may happen, with ${what}: exit 3 naming what to do`, async () => {
      const session = new OAuthSession("https://mcp.example.com/mcp", policy("no"));
      await expect(session.recover(refusal(401, challenge))).rejects.toThrow(new AuthRequiredError(`https://${message}`));
    });

  test("a 403 that is not insufficient_scope is a refusal, not a step-up", async () => {
    const session = new OAuthSession("https://mcp.example.com/mcp", policy("yes"));
    expect(await session.recover(refusal(403, 'Bearer error="access_denied"'))).toBe(false);
  });

  test("insufficient_scope where no sign-in may happen: the scopes wanted are kept for the command it names", async () => {
    const session = new OAuthSession("https://mcp.example.com/mcp", policy("no", { scopes: ["extra"] }));
    await expect(session.recover(refusal(403, 'Bearer error="insufficient_scope", scope="mcp:admin mcp:tools"'))).rejects.toThrow(
      "https://mcp.example.com needs wider access (scopes: mcp:admin mcp:tools extra): run mcp-inspect auth",
    );
    expect(stored("https://mcp.example.com/mcp").wantedScope).toBe("mcp:admin mcp:tools extra");
  });

  test(`insufficient_scope: a step-up sign-in each time, ${MAX_STEP_UPS} at most; settled() starts the count over`, async () => {
    const server = await fixture({ grantableScopes: [FIXTURE_SCOPE] }); // never grants the admin scope
    const session = await signedIn(server);
    const challenge =
      `Bearer error="insufficient_scope", scope="${ADMIN_SCOPE}", ` + `resource_metadata="${server.issuer}/meta/protected-resource"`;
    for (let n = 0; n < MAX_STEP_UPS; n++) expect(await session.recover(refusal(403, challenge))).toBe(true);
    expect(server.record.authorizations.map(({ scope }) => scope?.includes(ADMIN_SCOPE))).toEqual([false, true, true]);
    await expect(session.recover(refusal(403, challenge))).rejects.toThrow(
      `${server.issuer} still refuses with insufficient_scope after ${MAX_STEP_UPS} step-ups (wanted: ${ADMIN_SCOPE})`,
    );
    session.settled();
    expect(await session.recover(refusal(403, challenge))).toBe(true);
  });

  test(`a 401 right after a sign-in: ${MAX_SIGN_INS} sign-in, then an error; settled() starts the count over`, async () => {
    const server = await fixture({ refreshTokens: false });
    const session = new OAuthSession(server.url, policy("yes"));
    const challenge = `Bearer resource_metadata="${server.issuer}/meta/protected-resource"`;
    expect(await session.recover(refusal(401, challenge))).toBe(true);
    await expect(session.recover(refusal(401, challenge), await session.authorization())).rejects.toThrow(
      `${server.issuer} still answers HTTP 401 right after a sign-in (check the server's OAuth setup, or run mcp-inspect auth)`,
    );
    session.settled();
    expect(await session.recover(refusal(401, challenge), await session.authorization())).toBe(true);
    expect(server.record.tokensIssued).toBe(2);
  });

  test("refusals at once share one recovery", async () => {
    const server = await fixture();
    const session = new OAuthSession(server.url, policy("yes"));
    const challenge = `Bearer resource_metadata="${server.issuer}/meta/protected-resource"`;
    const [a, b] = [session.recover(refusal(401, challenge)), session.recover(refusal(401, challenge))];
    expect(b).toBe(a);
    expect(await a).toBe(true);
    expect(server.record.tokensIssued).toBe(1);
  });

  test("signInNow asks the server first, and asks for what it wants plus what was wanted before", async () => {
    const server = await fixture();
    AuthStore.open().update(server.url, (entry) => void (entry.wantedScope = ADMIN_SCOPE));
    const session = new OAuthSession(server.url, policy("no"));
    await session.signInNow();
    expect(server.record.unauthorizedMcp).toBe(1); // the probe
    expect(server.record.authorizations[0]!.scope?.split(" ").sort()).toEqual([ADMIN_SCOPE, FIXTURE_SCOPE].sort());
  });

  test("logout revokes both tokens, then forgets them; a second logout has nothing to do", async () => {
    const server = await fixture();
    const session = await signedIn(server);
    const { tokens } = stored(server.url);
    expect(await session.logout()).toEqual({ revoked: true, forgotten: true });
    expect(server.record.revocations.sort()).toEqual([tokens!.access_token, tokens!.refresh_token!].sort());
    expect(stored(server.url)).toEqual({ resource: server.url });
    expect(await session.logout()).toEqual({ revoked: false, forgotten: false });
  });

  test("logout where the server offers no revocation: forgotten, and why they were not revoked", async () => {
    const server = await fixture({ revocation: false });
    const session = await signedIn(server);
    expect(await session.logout()).toEqual({
      revoked: false,
      forgotten: true,
      why: "the authorization server offers no token revocation (RFC 7009)",
    });
    expect(server.record.revocations).toEqual([]);
  });

  test("logout of a client with a secret, without it: refused, so the tokens are kept for a logout that can revoke them", async () => {
    const server = await fixture({
      registration: false,
      preRegistered: { clientId: "app", clientSecret: "s3cret", authMethod: "client_secret_basic" },
    });
    const session = await signedIn(server, { client: { clientId: "app", clientSecret: "s3cret" } });
    const withoutSecret = new OAuthSession(server.url, policy("no"));
    const refused = await withoutSecret.logout();
    expect(refused).toMatchObject({ revoked: false, forgotten: false });
    expect(refused.why).toContain("pass --client-id ID --client-secret-env VAR");
    expect(stored(server.url).tokens).toBeDefined();
    expect(await session.logout()).toEqual({ revoked: true, forgotten: true });
  });
});
