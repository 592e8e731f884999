// The real-peer tier (`npm run test:seams`): OAuth against oidc-provider@9.13.3 from the npm
// registry (installed into the peer cache by test/support/peers.ts), with the MCP server it
// protects (test/fixtures/oidc-server.ts). A person who takes 15 s gets one tab; a step-up with a
// dynamically registered client registers again; a server that cannot fetch our metadata document
// gets a dynamic registration the next time; 12, then 50 processes of every tool with an expired
// access token refresh once per rotation, open no browser, and all get through.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONNECT_TIMEOUT_MS } from "../../host/servers.ts";
import {
  BUN,
  daemonDir,
  type HttpFixture,
  inspect,
  NO_VENDOR_KEYS,
  ROOT,
  removeTempDirs,
  runTool,
  startHttpServer,
  stopDaemons,
  TEST_GUARD_MS,
  tempDir,
} from "../support/helpers.ts";
import { type ServedDocument, serveDocument } from "../support/https-document.ts";
import { crowd, crowdOf } from "../support/oauth-crowd.ts";
import { installedPeer } from "../support/peers.ts";

const OIDC_PROVIDER = ["oidc-provider", "9.13.3"] as const;
const EXIT_AUTH = 3;
/** Longer than the server/discover probe's 5 s, three times over. */
const SLOW_PERSON_MS = 15_000;

let providerDir: string;
const servers: HttpFixture[] = [];
const documents: ServedDocument[] = [];
beforeAll(async () => {
  providerDir = await installedPeer(...OIDC_PROVIDER);
}, TEST_GUARD_MS);
afterEach(stopDaemons);
afterAll(async () => {
  await Promise.all([...servers.map((s) => s.stop()), ...documents.map((d) => d.stop())]);
  removeTempDirs();
});

interface Stats {
  registrations: number;
  authorizations: number;
  refreshes: number;
  refreshErrors: number;
  revokedGrants: number;
}

async function oidcServer(options: Record<string, unknown> = {}) {
  const server = await startHttpServer([BUN, join(ROOT, "test/fixtures/oidc-server.ts"), providerDir, JSON.stringify(options)], {
    pattern: /listening (http:\/\/\S+\/mcp)/,
  });
  servers.push(server);
  const origin = new URL(server.url).origin;
  return {
    url: server.url,
    stats: async () => (await (await fetch(`${origin}/stats`)).json()) as Stats,
    expireAccessTokens: async () => void (await fetch(`${origin}/expire`, { method: "POST" })),
  };
}

function machine(extra: Record<string, string> = {}) {
  const home = tempDir("mcpkit-oidc-");
  const tabs = join(home, "tabs.log");
  writeFileSync(tabs, "");
  const env = {
    MCPKIT_AUTH_DIR: join(home, "auth"),
    MCPKIT_DAEMON_DIR: daemonDir(),
    BROWSER: `${BUN} ${join(ROOT, "test/fixtures/browser.ts")}`,
    MCPKIT_TEST_BROWSER_LOG: tabs,
    ...extra,
  };
  return {
    env,
    tabs: () => readFileSync(tabs, "utf8").split("\n").filter(Boolean),
    inspect: (args: string[], more: Record<string, string> = {}) => inspect(args, { env: { ...env, ...more } }),
  };
}

const text = (run: { json: any }) => run.json?.data?.content?.[0]?.text as string | undefined;

describe("oidc-provider@9.13.3", () => {
  test(
    `a person who takes ${SLOW_PERSON_MS / 1000} s to sign in gets one tab, and the call goes through`,
    async () => {
      const server = await oidcServer();
      const m = machine({ MCPKIT_TEST_BROWSER_DELAY_MS: String(SLOW_PERSON_MS) });
      const run = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
      expect(run.code).toBe(0);
      expect(text(run)).toStartWith("authorized as ");
      expect(m.tabs()).toHaveLength(1);
      expect((await server.stats()).authorizations).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-host: a person slower than its handshake bound signs in once, and the server is connected",
    async () => {
      const server = await oidcServer();
      const m = machine({ MCPKIT_TEST_BROWSER_DELAY_MS: String(CONNECT_TIMEOUT_MS + 5_000) });
      const run = await runTool("mcp-host.ts", ["--server", server.url, "--oauth", "-p", "call whoami"], {
        env: { ...NO_VENDOR_KEYS, ...m.env },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("whoami returned: authorized as ");
      expect(m.tabs()).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a step-up with a dynamically registered client registers again for the wider scopes, then goes through",
    async () => {
      const server = await oidcServer();
      const m = machine();
      expect((await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"])).code).toBe(0);
      const admin = await m.inspect(["call-tool", "admin", "--url", server.url, "--oauth"]);
      expect(admin.code).toBe(0);
      expect(text(admin)).toBe("admin with mcp:tools mcp:admin");
      expect((await server.stats()).registrations).toBe(2);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that advertises metadata documents but cannot fetch ours: no callback, and the next sign-in registers dynamically",
    async () => {
      const server = await oidcServer({ metadataDocuments: true });
      const document = serveDocument(JSON.parse(readFileSync(join(ROOT, "oauth/client-metadata.json"), "utf8")));
      documents.push(document);
      const m = machine(document.env);
      const first = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth", "--callback-timeout", "3000"]);
      expect(first.code).toBe(EXIT_AUTH);
      expect(first.stderr).toContain("If the page reports invalid_client");
      expect((await server.stats()).registrations).toBe(0);
      const second = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth"]);
      expect(second.code).toBe(0);
      expect((await server.stats()).registrations).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a pre-registered client_secret_post client: signs in and refreshes with post, no SEP-2352 warning; logout revokes with its secret",
    async () => {
      const secret = "a-long-enough-client-secret-for-oidc-provider";
      const server = await oidcServer({
        preRegistered: { client_id: "cli-app", client_secret: secret, token_endpoint_auth_method: "client_secret_post" },
      });
      const m = machine({ CLI_SECRET: secret });
      const client = ["--client-id", "cli-app", "--client-secret-env", "CLI_SECRET"];
      const signedIn = await m.inspect(["call-tool", "whoami", "--url", server.url, "--oauth", ...client]);
      expect(signedIn.code).toBe(0);
      expect(text(signedIn)).toBe("authorized as cli-app");
      await server.expireAccessTokens();
      const refreshed = await m.inspect(["call-tool", "whoami", "--url", server.url, ...client]);
      expect(refreshed.code).toBe(0);
      expect((await server.stats()).refreshes).toBe(1);
      expect(signedIn.stderr + refreshed.stderr).not.toContain("SEP-2352");
      const refused = await m.inspect(["auth", "--logout", "--url", server.url]);
      expect(refused.code).toBe(EXIT_AUTH);
      expect(refused.json.error.message).toContain("pass --client-id ID --client-secret-env VAR");
      const loggedOut = await m.inspect(["auth", "--logout", "--url", server.url, ...client]);
      expect(loggedOut.code).toBe(0);
      expect(loggedOut.json.data).toMatchObject({ revoked: true, forgotten: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "12, then 50 processes of every tool at once with an expired access token: one refresh per rotation, no browser, all succeed",
    async () => {
      const server = await oidcServer();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      let refreshes = 0;
      for (const size of [12, 50]) {
        await server.expireAccessTokens();
        const results = await crowd(server.url, "whoami", m.env, crowdOf(size));
        expect(results.filter((r) => !r.ok)).toEqual([]);
        const stats = await server.stats();
        expect(stats.refreshes).toBe(++refreshes);
        expect(stats.refreshErrors).toBe(0);
        expect(stats.revokedGrants).toBe(0);
        expect(stats.authorizations).toBe(1);
        expect(m.tabs()).toHaveLength(1);
      }
    },
    TEST_GUARD_MS,
  );
});
