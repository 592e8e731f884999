// lib/auth/tokens: the header tokens make, when they expire "soon" (its boundaries, on a set
// clock), the scopes wanted, and the refresh: under the resource's lock, one redemption however
// many callers, against the in-process authorization server of test/fixtures/oauth-server.ts.
import { afterAll, afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { OAuthSession } from "../../../lib/auth/oauth.ts";
import type { StoredTokens } from "../../../lib/auth/store.ts";
import { expiresSoon, headerFor, originOf, REFRESH_BEFORE_EXPIRY_MS, refresh, union } from "../../../lib/auth/tokens.ts";
import { type OAuthFixture, startOAuthServer } from "../../fixtures/oauth-server.ts";
import { removeTempDirs } from "../../support/helpers.ts";
import { authContext, followingBrowser, privateStore, scriptedUser } from "../../support/oauth-user.ts";

const fixtures: OAuthFixture[] = [];
afterEach(() => setSystemTime());
afterAll(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.stop()));
  removeTempDirs();
});

const tokens = (over: Partial<StoredTokens> = {}): StoredTokens => ({ access_token: "a", token_type: "Bearer", ...over });

describe("headerFor", () => {
  const cases: [string, string][] = [
    ["Bearer", "Bearer a"],
    ["bearer", "Bearer a"],
    ["DPoP", "DPoP a"],
    ["mac", "Bearer a"],
  ];
  for (const [type, header] of cases)
    test(`token_type ${type} -> ${header}`, () => expect(headerFor(tokens({ token_type: type }))).toBe(header));
});

describe("expiresSoon", () => {
  const NOW = 1_800_000_000_000;
  // [what, expires_at relative to now, expires_in (s), soon]
  const cases: [string, number | undefined, number | undefined, boolean][] = [
    ["no expiry", undefined, undefined, false],
    ["exactly the margin away", REFRESH_BEFORE_EXPIRY_MS, 3_600, false],
    ["a millisecond inside the margin", REFRESH_BEFORE_EXPIRY_MS - 1, 3_600, true],
    ["expired", -1, 3_600, true],
    ["the margin away, lifetime unknown", REFRESH_BEFORE_EXPIRY_MS, undefined, false],
    ["inside the margin, lifetime unknown", 1_000, undefined, true],
    ["a 30 s token with exactly half its life left (fresh)", 15_000, 30, false],
    ["a 30 s token a millisecond past half its life", 14_999, 30, true],
    ["a token of no lifetime, not yet expired", 1, 0, false],
    ["a token of no lifetime, expired", -1, 0, true],
  ];
  for (const [what, left, lifetime, soon] of cases)
    test(`${what}: ${soon ? "soon" : "not soon"}`, () => {
      setSystemTime(new Date(NOW));
      const stored = tokens({
        ...(left !== undefined ? { expires_at: NOW + left } : {}),
        ...(lifetime !== undefined ? { expires_in: lifetime } : {}),
      });
      expect(expiresSoon(stored)).toBe(soon);
    });

  test("an expires_at that is not a number is no expiry", () => {
    expect(expiresSoon(tokens({ expires_at: "soon" as unknown as number }))).toBe(false);
  });
});

describe("union and originOf", () => {
  const cases: [(string | undefined)[], string | undefined][] = [
    [[], undefined],
    [[undefined, ""], undefined],
    [["  "], undefined],
    [["a b", "b c"], "a b c"],
    [["a\tb\n", undefined, "a"], "a b"],
  ];
  for (const [lists, scopes] of cases)
    test(`union(${JSON.stringify(lists)}) -> ${scopes}`, () => expect(union(...lists)).toBe(scopes as never));

  test("originOf keeps scheme, host and port only", () =>
    expect(originOf("https://u@mcp.example.com:8443/a/b?c#d")).toBe("https://mcp.example.com:8443"));
});

describe("refresh", () => {
  test("tokens another process stored meanwhile are taken as they are: nothing is redeemed", async () => {
    const store = privateStore();
    store.update("https://x.example/mcp", (entry) => void (entry.tokens = tokens({ access_token: "theirs", refresh_token: "r" })));
    let providers = 0;
    const ctx = { ...authContext("https://x.example/mcp", store), provider: () => (providers++, undefined as never) };
    expect(await refresh(ctx, tokens({ access_token: "ours", refresh_token: "r" }))).toBe(true);
    expect(providers).toBe(0);
  });

  test("no refresh token: no refresh (a sign-in is needed)", async () => {
    const store = privateStore();
    store.update("https://x.example/mcp", (entry) => void (entry.tokens = tokens()));
    expect(await refresh(authContext("https://x.example/mcp", store), tokens())).toBe(false);
  });

  async function signedIn() {
    const fixture = await startOAuthServer();
    fixtures.push(fixture);
    const store = privateStore();
    const browser = followingBrowser();
    const { ui } = scriptedUser();
    await new OAuthSession(fixture.url, { signIn: "yes", ui, signInCommand: "sign-in", store, openUrl: browser.openUrl }).signInNow();
    return { fixture, store, used: store.read(fixture.url).tokens! };
  }

  test("ten callers with the same expired token: one redeems the refresh token, all get the new tokens", async () => {
    const { fixture, store, used } = await signedIn();
    const ctx = authContext(fixture.url, store);
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(ctx, used)));
    expect(results).toEqual(Array(10).fill(true));
    expect(fixture.record.refreshes).toBe(1);
    const now = store.read(fixture.url).tokens!;
    expect(now.access_token).not.toBe(used.access_token);
    expect(now.refresh_token).not.toBe(used.refresh_token); // rotated
  });

  test("a refresh token the server no longer takes: false (a sign-in is needed), never a browser", async () => {
    const { fixture, store, used } = await signedIn();
    store.update(fixture.url, (entry) => void (entry.tokens = { ...used, refresh_token: "revoked-elsewhere" }));
    const opened: string[] = [];
    const ctx = authContext(fixture.url, store, { openUrl: async (url) => void opened.push(url) });
    expect(await refresh(ctx, store.read(fixture.url).tokens!)).toBe(false);
    expect(fixture.record.refreshes).toBe(0);
    expect(opened).toEqual([]);
  });
});
