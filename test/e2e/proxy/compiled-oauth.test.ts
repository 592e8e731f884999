// The compiled mcp-proxy (the release binary, by its tool link) as a client would run it: an SDK client starts `mcp-proxy --url` over
// stdio against the loopback authorization server. The first run signs in through the (headless)
// browser and stores the tokens; the second needs no browser; an access token that has expired is
// refreshed, before use and after a 401, with no browser either.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type OAuthFixture, startOAuthServer } from "../../fixtures/oauth-server.ts";
import { compiledTools } from "../../support/binary.ts";
import { BUN, ROOT, TEST_GUARD_MS } from "../../support/helpers.ts";

let dir = "";
let binary = "";
let server: OAuthFixture;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-oauth-bin-"));
  binary = join(await compiledTools(), "mcp-proxy");
  server = await startOAuthServer();
}, TEST_GUARD_MS);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const tabsFile = () => join(dir, "tabs.log");
const tabs = () => readFileSync(tabsFile(), "utf8").split("\n").filter(Boolean);
const store = () => join(dir, "auth");

/** One client session through the compiled proxy: connect, call whoami, optionally more, close. */
async function session(during?: (client: Client) => Promise<void>): Promise<{ text: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    MCPKIT_AUTH_DIR: store(),
    BROWSER: `${BUN} ${join(ROOT, "test/fixtures/browser.ts")}`,
    MCPKIT_TEST_BROWSER_LOG: tabsFile(),
  };
  const transport = new StdioClientTransport({ command: binary, args: ["--url", server.url], env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: "oauth-compiled-test", version: "0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "whoami", arguments: {} });
    await during?.(client);
    return { text: (result.content as { text: string }[])[0]!.text, stderr };
  } finally {
    await client.close();
  }
}

test(
  "compiled mcp-proxy --url: signs in once, then runs on the stored tokens, refreshing them when they expire",
  async () => {
    writeFileSync(tabsFile(), "");

    const first = await session();
    expect(first.text).toStartWith("authorized as client-");
    expect(tabs()).toHaveLength(1);
    expect(first.stderr).toContain(tabs()[0]!);
    const [file] = readdirSync(store()).filter((name) => name.endsWith(".json"));
    expect(file).toBeDefined();

    const second = await session();
    expect(second.text).toBe(first.text);
    expect(tabs()).toHaveLength(1);
    expect(server.record.tokensIssued).toBe(1);

    // The stored token has expired (as an hour later): refreshed before it is used.
    const entry = JSON.parse(readFileSync(join(store(), file!), "utf8"));
    entry.tokens.expires_at = Date.now() - 1_000;
    writeFileSync(join(store(), file!), JSON.stringify(entry));
    const third = await session();
    expect(third.text).toBe(first.text);
    expect(server.record.refreshes).toBe(1);

    // The server stops taking the access token mid-session: the 401 refreshes it, the call goes through.
    await session(async (client) => {
      server.expireAccessTokens();
      const again = await client.callTool({ name: "whoami", arguments: {} });
      expect((again.content as { text: string }[])[0]!.text).toBe(first.text);
    });
    expect(server.record.refreshes).toBe(2);
    expect(tabs()).toHaveLength(1);
    expect(server.record.authorizations).toHaveLength(1);
  },
  TEST_GUARD_MS,
);
