// One user's machine for the end-to-end OAuth suites: the loopback authorization server
// (test/fixtures/oauth-server.ts) started per test, a token store of its own, and a headless
// $BROWSER (test/fixtures/browser.ts) that follows the authorization URL's redirects to the
// callback and logs each URL it was given (a tab).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type OAuthFixture, type OAuthFixtureOptions, startOAuthServer } from "../fixtures/oauth-server.ts";
import { BUN, inspect, ROOT, tempDir } from "./helpers.ts";

const BROWSER_SCRIPT = join(ROOT, "test/fixtures/browser.ts");
export const EXIT_AUTH = 3;
const fixtures: OAuthFixture[] = [];

/** An authorization server and resource of its own; stopFixtures() (an afterAll) stops them all. */
export async function fixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const f = await startOAuthServer(options);
  fixtures.push(f);
  return f;
}

export async function stopFixtures(): Promise<void> {
  await Promise.allSettled(fixtures.splice(0).map((f) => f.stop()));
}

/** One user's machine: a token store, a headless browser that logs its tabs. */
export function machine(extra: Record<string, string> = {}) {
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

export const text = (result: { json: any }) => result.json?.data?.content?.[0]?.text as string | undefined;
