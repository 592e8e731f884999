// lib/auth/sign-in: the browser's round trip, against the in-process authorization server of
// test/fixtures/oauth-server.ts: the policy (ask, yes, no, explicit), the tokens another process
// got meanwhile, the pasted address of --no-browser, cancelling, and a stored callback port taken.
import { afterAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { AuthRequiredError } from "../../../lib/auth/errors.ts";
import type { OAuthOptions } from "../../../lib/auth/oauth.ts";
import { signIn } from "../../../lib/auth/sign-in.ts";
import type { AuthStore } from "../../../lib/auth/store.ts";
import type { Asker } from "../../../lib/terminal/asker.ts";
import { type OAuthFixture, type OAuthFixtureOptions, startOAuthServer } from "../../fixtures/oauth-server.ts";
import { removeTempDirs } from "../../support/helpers.ts";
import { authContext, followingBrowser, privateStore, scriptedUser } from "../../support/oauth-user.ts";

const fixtures: OAuthFixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.stop()));
  removeTempDirs();
});

async function server(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const fixture = await startOAuthServer(options);
  fixtures.push(fixture);
  return fixture;
}

/** A sign-in's context on a fresh fixture and store; `waits` records onuserwait. */
async function setUp(options: Partial<OAuthOptions> = {}, store: AuthStore = privateStore()) {
  const fixture = await server();
  const user = scriptedUser(true);
  const browser = followingBrowser();
  const waits: boolean[] = [];
  const ctx = authContext(fixture.url, store, {
    ui: user.ui,
    openUrl: browser.openUrl,
    onuserwait: (waiting) => void waits.push(waiting),
    ...options,
  });
  return { fixture, store, user, browser, waits, ctx, origin: new URL(fixture.url).origin };
}

describe("the policy", () => {
  test('"no": an error naming the command that signs in; the server is not even asked', async () => {
    const { ctx, fixture, origin } = await setUp({ signIn: "no" });
    const error = await signIn(ctx, { force: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect((error as Error).message).toBe(`${origin} requires a sign-in (run mcp-inspect auth)`);
    expect(fixture.record.metadataRequests).toEqual([]);
  });

  test('"ask", declined: refused with the command to run; nothing is opened, registered or printed', async () => {
    const base = await setUp();
    const user = scriptedUser(false);
    const ctx = { ...base.ctx, options: { ...base.ctx.options, signIn: "ask" as const, ui: user.ui } };
    await expect(signIn(ctx, { force: false })).rejects.toThrow(
      `signing in to ${base.origin} was declined (run mcp-inspect auth to sign in)`,
    );
    expect(user.questions).toEqual([`${base.origin} requires a sign-in. Sign in with your browser?`]);
    expect(user.printed).toEqual([]);
    expect(base.browser.opened).toEqual([]);
    expect(base.fixture.record.registrations).toEqual([]);
    expect(base.waits).toEqual([true, false]);
  });

  test('"ask", accepted: the URL printed and opened, the callback taken, the tokens stored, the wanted scope cleared', async () => {
    const { ctx, store, user, browser, fixture, waits, origin } = await setUp({ signIn: "ask" });
    store.update(fixture.url, (entry) => void (entry.wantedScope = "mcp:admin"));
    expect(await signIn(ctx, { force: false })).toBe(true);
    expect(user.questions).toHaveLength(1);
    expect(user.printed).toEqual([`Sign in to ${origin}: open this URL in a browser:`, browser.opened[0]!, `Signed in to ${origin}.`]);
    expect(store.read(fixture.url).tokens?.access_token).toBe(fixture.record.accessTokens[0]!);
    expect(store.read(fixture.url).wantedScope).toBeUndefined();
    // The question and the browser are waits for the person; the requests to the server between them are not.
    expect(waits).toEqual([true, false, true, false]);
  });

  test("explicit (the person ran `auth`): signs in whatever the policy, without asking", async () => {
    const { ctx, store, user, fixture } = await setUp({ signIn: "no" });
    expect(await signIn(ctx, { force: true, explicit: true })).toBe(true);
    expect(user.questions).toEqual([]);
    expect(store.read(fixture.url).tokens).toBeDefined();
  });
});

describe("tokens that are already there", () => {
  const freshFrom = (issuer: string) => ({
    access_token: "theirs",
    token_type: "Bearer",
    expires_at: Date.now() + 3_600_000,
    expires_in: 3600,
    issuer,
  });

  test("another process's fresh tokens are used instead of a sign-in", async () => {
    const { ctx, store, fixture, user } = await setUp({ signIn: "yes" });
    store.update(fixture.url, (entry) => void (entry.tokens = freshFrom(fixture.issuer)));
    expect(await signIn(ctx, { force: false, rejected: { access_token: "ours", token_type: "Bearer" } })).toBe(true);
    expect(user.printed).toEqual([]);
    expect(fixture.record.authorizations).toEqual([]);
  });

  const anew: [string, { force: boolean; rejected?: { access_token: string; token_type: string } }][] = [
    ["they are the ones the server refused", { force: false, rejected: { access_token: "theirs", token_type: "Bearer" } }],
    ["a sign-in is forced (a step-up)", { force: true }],
  ];
  for (const [what, request] of anew)
    test(`a sign-in happens anyway when ${what}`, async () => {
      const { ctx, store, fixture } = await setUp({ signIn: "yes" });
      store.update(fixture.url, (entry) => void (entry.tokens = freshFrom(fixture.issuer)));
      expect(await signIn(ctx, request)).toBe(true);
      expect(fixture.record.tokensIssued).toBe(1);
      expect(store.read(fixture.url).tokens?.access_token).not.toBe("theirs");
    });
});

describe("--no-browser: the address pasted back", () => {
  /** A user who opens the printed URL elsewhere and pastes the address it sends them to (after `edit`). */
  function pastingUser(edit: (url: URL) => void = () => {}) {
    const { ui, printed } = scriptedUser(true);
    const asked: string[] = [];
    const pasting: Asker = {
      ...ui,
      ask: async (question) => {
        asked.push(question);
        const authorization = printed.find((line) => line.startsWith("http"))!;
        const answer = await fetch(authorization, { redirect: "manual" });
        const address = new URL(answer.headers.get("location")!);
        edit(address);
        return address.href;
      },
    };
    return { ui: pasting, printed, asked };
  }

  test("no listener, a portless loopback redirect, and the code from the pasted address", async () => {
    const user = pastingUser();
    const { ctx, fixture, store, origin } = await setUp({ signIn: "yes", browser: false, ui: user.ui });
    expect(await signIn(ctx, { force: false })).toBe(true);
    expect(user.asked).toEqual(["Paste the redirect URL here: "]);
    expect(user.printed[0]).toBe(`Sign in to ${origin}: open this URL in a browser, then paste the address it sends you to:`);
    expect(fixture.record.authorizations[0]!.redirect_uri).toBe("http://127.0.0.1/callback");
    expect(store.read(fixture.url).tokens).toBeDefined();
  });

  test("an address from another sign-in is refused, and nothing is redeemed", async () => {
    const user = pastingUser((url) => url.searchParams.set("state", "someone-else's"));
    const { ctx, fixture } = await setUp({ signIn: "yes", browser: false, ui: user.ui });
    await expect(signIn(ctx, { force: false })).rejects.toThrow("the pasted URL is not from this sign-in (its state does not match)");
    expect(fixture.record.tokenRequests).toEqual([]);
  });
});

describe("the wait for the browser", () => {
  test("cancelled while waiting: says so, redeems nothing", async () => {
    const stop = new AbortController();
    const { ctx, fixture, origin, waits } = await setUp({ signIn: "yes", openUrl: async () => stop.abort(), signal: stop.signal });
    await expect(signIn(ctx, { force: false })).rejects.toThrow(new AuthRequiredError(`signing in to ${origin} was cancelled`));
    expect(fixture.record.tokenRequests).toEqual([]);
    expect(waits).toEqual([true, false]);
  });

  test("the callback port a client was registered with is taken: a new port, so a new registration", async () => {
    const { ctx, store, fixture } = await setUp({ signIn: "yes" });
    await signIn(ctx, { force: false });
    const registered = store.read(fixture.url).redirectUri!;
    const port = Number(new URL(registered).port);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", () => resolve()));
    try {
      await signIn(ctx, { force: true });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    expect(fixture.record.registrations).toHaveLength(2);
    expect(store.read(fixture.url).redirectUri).not.toBe(registered);
    expect(fixture.record.registrations[1]!.redirect_uris).toEqual([store.read(fixture.url).redirectUri!]);
  });
});
