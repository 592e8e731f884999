// Many processes, one expired access token: refresh tokens that rotate and are revoked on reuse
// (test/fixtures/oauth-server.ts), twelve processes of every tool at once (test/support/oauth-crowd.ts)
// perform exactly one refresh, open no browser, and all get through. The same crowd of fifty
// against oidc-provider is in the real-peer tier (test/seams/).
import { afterAll, afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startOAuthServer } from "../../fixtures/oauth-server.ts";
import { BUN, daemonDir, inspect, ROOT, removeTempDirs, stopDaemons, TEST_GUARD_MS, tempDir } from "../../support/helpers.ts";
import { crowd, crowdOf } from "../../support/oauth-crowd.ts";

afterEach(stopDaemons);
afterAll(removeTempDirs);

const CROWD = 12;

function machine() {
  const home = tempDir("mcpkit-crowd-");
  const tabs = join(home, "tabs.log");
  writeFileSync(tabs, "");
  return {
    env: {
      MCPKIT_AUTH_DIR: join(home, "auth"),
      MCPKIT_DAEMON_DIR: daemonDir(),
      BROWSER: `${BUN} ${join(ROOT, "test/fixtures/browser.ts")}`,
      MCPKIT_TEST_BROWSER_LOG: tabs,
    },
    tabs: () => readFileSync(tabs, "utf8").split("\n").filter(Boolean),
  };
}

for (const [how, expire] of [
  ["the server stops taking it (a 401 each)", "server"],
  ["the store says it has expired (refreshed before use)", "store"],
] as const)
  test(
    `${CROWD} processes of every tool at once, one access token that ${how}: one refresh, no browser, all get through`,
    async () => {
      const server = await startOAuthServer({ refreshReuseRevokes: true });
      try {
        const m = machine();
        expect((await inspect(["auth", "--url", server.url], { env: m.env })).code).toBe(0);
        expect(m.tabs()).toHaveLength(1);
        if (expire === "server") server.expireAccessTokens();
        else {
          const { readdirSync } = await import("node:fs");
          const file = join(m.env.MCPKIT_AUTH_DIR, readdirSync(m.env.MCPKIT_AUTH_DIR).find((name) => name.endsWith(".json"))!);
          const entry = JSON.parse(readFileSync(file, "utf8"));
          entry.tokens.expires_at = Date.now() - 1_000;
          writeFileSync(file, JSON.stringify(entry), { mode: 0o600 });
        }
        const results = await crowd(server.url, "whoami", m.env, crowdOf(CROWD));
        expect(results.filter((r) => !r.ok)).toEqual([]);
        expect(server.record.refreshes).toBe(1);
        expect(server.record.refreshReuses).toBe(0);
        expect(m.tabs()).toHaveLength(1);
        expect(server.record.registrations).toHaveLength(1);
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );
