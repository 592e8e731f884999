// lib/auth/context: what signing in and refreshing share; the SDK's auth functions load once,
// on first use, and are those the client calls.
import { expect, test } from "bun:test";
import { loadSdk } from "../../../lib/auth/context.ts";

test("loadSdk loads the SDK once, with the auth functions signing in and refreshing call", async () => {
  const first = loadSdk();
  expect(loadSdk()).toBe(first);
  const sdk = await first;
  for (const name of ["auth", "extractWWWAuthenticateParams", "discoverOAuthProtectedResourceMetadata"] as const)
    expect(typeof sdk[name]).toBe("function");
});
