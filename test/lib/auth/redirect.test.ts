// lib/auth/redirect: both ends of the browser's round trip: what we send the user to (https or
// loopback, our state, PKCE S256 advertised and asked for), what may come back pasted, and the
// wait for it (on a hand-moved clock).
import { afterEach, describe, expect, test } from "bun:test";
import { AuthRequiredError } from "../../../lib/auth/errors.ts";
import { pastedCallback, unsafeAuthorizationUrl, waitFor } from "../../../lib/auth/redirect.ts";
import { manualClock, realClock } from "../../support/manual-clock.ts";

afterEach(realClock);

const STATE = "our-state";
const authorize = (base: string, params: Record<string, string | undefined> = {}) => {
  const url = new URL(base);
  const all = { response_type: "code", code_challenge: "c", code_challenge_method: "S256", state: STATE, ...params };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
};

describe("unsafeAuthorizationUrl", () => {
  const unsafeHost = (where: string) =>
    `refusing to open the authorization endpoint ${where} (only https or loopback http URLs are opened)`;
  const noPkce = (where: string) => `the authorization server at ${where} does not advertise PKCE S256 (refusing to sign in without it)`;
  // [what, the URL, the methods the server advertises, the refusal (undefined: safe)]
  const cases: [string, URL, string[] | undefined, string | undefined][] = [
    ["https with S256 and our state", authorize("https://auth.example.com/authorize"), ["S256"], undefined],
    ["loopback http", authorize("http://127.0.0.1:8080/authorize"), ["plain", "S256"], undefined],
    ["localhost http", authorize("http://localhost:3000/authorize"), ["S256"], undefined],
    ["plain http elsewhere", authorize("http://auth.example.com/authorize"), ["S256"], unsafeHost("http://auth.example.com")],
    [
      "a host that only starts like loopback",
      authorize("http://127.0.0.1.evil.example/a"),
      ["S256"],
      unsafeHost("http://127.0.0.1.evil.example"),
    ],
    ["credentials in the URL", authorize("https://u:p@auth.example.com/authorize"), ["S256"], unsafeHost("https://auth.example.com")],
    ["a javascript: URL", new URL("javascript:alert(1)"), ["S256"], unsafeHost("javascript://")],
    ["no methods advertised", authorize("https://auth.example.com/a"), undefined, noPkce("https://auth.example.com")],
    ["none advertised", authorize("https://auth.example.com/a"), [], noPkce("https://auth.example.com")],
    ["only plain advertised", authorize("https://auth.example.com/a"), ["plain"], noPkce("https://auth.example.com")],
    [
      "S256 advertised, plain asked for",
      authorize("https://auth.example.com/a", { code_challenge_method: "plain" }),
      ["S256", "plain"],
      noPkce("https://auth.example.com"),
    ],
    [
      "no method asked for",
      authorize("https://auth.example.com/a", { code_challenge_method: undefined }),
      ["S256"],
      noPkce("https://auth.example.com"),
    ],
    [
      "a wrong state",
      authorize("https://auth.example.com/a", { state: "theirs" }),
      ["S256"],
      "internal error: the authorization request does not carry our state",
    ],
    [
      "no state",
      authorize("https://auth.example.com/a", { state: undefined }),
      ["S256"],
      "internal error: the authorization request does not carry our state",
    ],
  ];
  for (const [what, url, methods, refusal] of cases)
    test(`${what}: ${refusal ?? "safe"}`, () => expect(unsafeAuthorizationUrl(url, STATE, methods)).toBe(refusal as never));
});

describe("pastedCallback", () => {
  test("the address the browser was sent to, with our state: its parameters (surrounding space ignored)", () => {
    const params = pastedCallback(`  http://127.0.0.1/callback?code=abc&state=${STATE}&iss=https%3A%2F%2Fa \n`, STATE);
    expect(Object.fromEntries(params)).toEqual({ code: "abc", state: STATE, iss: "https://a" });
  });

  const refused: [string, string, string][] = [
    ["not a URL", "abc", "that is not the URL the browser was sent to (paste the whole address, http://127.0.0.1:…/callback?code=…)"],
    ["empty", "", "that is not the URL the browser was sent to (paste the whole address, http://127.0.0.1:…/callback?code=…)"],
    [
      "another sign-in's",
      "http://127.0.0.1/callback?code=abc&state=other",
      "the pasted URL is not from this sign-in (its state does not match)",
    ],
    ["one without a state", "http://127.0.0.1/callback?code=abc", "the pasted URL is not from this sign-in (its state does not match)"],
  ];
  for (const [what, text, error] of refused)
    test(`${what} is refused`, () => {
      expect(() => pastedCallback(text, STATE)).toThrow(error);
      expect(() => pastedCallback(text, STATE)).toThrow(AuthRequiredError);
    });
});

describe("waitFor", () => {
  const words = { timeout: "timed out", aborted: "cancelled" };

  test("the promise's value when it comes first; its timer and listener are gone after", async () => {
    const clock = manualClock();
    const signal = new AbortController();
    const value = Promise.withResolvers<string>();
    const waited = waitFor(value.promise, { ms: 300_000, ...words, signal: signal.signal });
    expect(clock.pending).toEqual([300_000]);
    value.resolve("code");
    expect(await waited).toBe("code");
    expect(clock.pending).toEqual([]);
    signal.abort(); // nobody listens any more: nothing rejects
  });

  test("the promise's rejection when it comes first", async () => {
    manualClock();
    await expect(waitFor(Promise.reject(new Error("listener failed")), { ms: 1, ...words })).rejects.toThrow("listener failed");
  });

  test("a timeout when the time is up first", async () => {
    const clock = manualClock();
    const waited = waitFor(new Promise(() => {}), { ms: 5_000, ...words });
    expect(clock.pending).toEqual([5_000]);
    clock.elapse();
    const error = await waited.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect((error as Error).message).toBe("timed out");
  });

  test("an abort when the signal comes first, or came before", async () => {
    const clock = manualClock();
    const later = new AbortController();
    const waited = waitFor(new Promise(() => {}), { ms: 5_000, ...words, signal: later.signal });
    later.abort();
    await expect(waited).rejects.toThrow(new AuthRequiredError("cancelled"));
    expect(clock.pending).toEqual([]);
    await expect(waitFor(new Promise(() => {}), { ms: 5_000, ...words, signal: AbortSignal.abort() })).rejects.toThrow("cancelled");
  });
});
