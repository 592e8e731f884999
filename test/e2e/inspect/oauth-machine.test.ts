// Machine to machine: the client credentials grant against test/fixtures/oauth-server.ts, with a
// secret (client_secret_basic) or a private key (private_key_jwt), from flags or a config entry.
// No browser, no person, the token kept in the store for the next run; the secret never in argv.
import { afterAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startOAuthServer } from "../../fixtures/oauth-server.ts";
import { inspect, removeTempDirs, TEST_GUARD_MS, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const text = (run: { json: any }) => run.json?.data?.content?.[0]?.text as string | undefined;

function machine(extra: Record<string, string> = {}) {
  const home = tempDir("mcpkit-m2m-");
  // A browser that would fail the test if it were ever opened.
  const env = { MCPKIT_AUTH_DIR: join(home, "auth"), BROWSER: "false", ...extra };
  return {
    home,
    env,
    files: () => readdirSync(env.MCPKIT_AUTH_DIR).map((name) => readFileSync(join(env.MCPKIT_AUTH_DIR, name), "utf8")),
    inspect: (args: string[]) => inspect(args, { env }),
  };
}

test(
  "--grant client-credentials with --client-secret-env: a token without a browser, kept for the next run",
  async () => {
    const server = await startOAuthServer({ machineClient: { clientId: "m2m", clientSecret: "machine-secret" }, registration: false });
    try {
      const m = machine({ M2M_SECRET: "machine-secret" });
      const flags = ["--url", server.url, "--grant", "client-credentials", "--client-id", "m2m", "--client-secret-env", "M2M_SECRET"];
      const first = await m.inspect(["call-tool", "whoami", ...flags]);
      expect(first.code).toBe(0);
      expect(text(first)).toBe("authorized as m2m");
      expect(server.record.tokenRequests.map((r) => [r.grant_type, r.clientAuth])).toEqual([["client_credentials", "client_secret_basic"]]);
      expect(server.record.authorizations).toEqual([]);
      const second = await m.inspect(["call-tool", "whoami", ...flags]);
      expect(second.code).toBe(0);
      expect(server.record.tokensIssued).toBe(1);
      // The server stops taking the token: a new one, by the same grant.
      server.expireAccessTokens();
      expect((await m.inspect(["call-tool", "whoami", ...flags])).code).toBe(0);
      expect(server.record.tokensIssued).toBe(2);
      for (const file of m.files()) expect(file).not.toContain("machine-secret");
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  'a config entry\'s "oauth": {"grant": "client_credentials", "privateKeyFile"}: private_key_jwt, signed with that key',
  async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const server = await startOAuthServer({
      machineClient: { clientId: "m2m-jwt", publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() },
      registration: false,
    });
    try {
      const m = machine();
      const keyFile = join(m.home, "client-key.pem");
      writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
      const config = join(m.home, "mcp.json");
      const oauth = { grant: "client_credentials", clientId: "m2m-jwt", privateKeyFile: keyFile };
      writeFileSync(config, JSON.stringify({ mcpServers: { m2m: { url: server.url, oauth } } }));
      const run = await m.inspect(["call-tool", "whoami", "--config", config, "--server", "m2m"]);
      expect(run.code).toBe(0);
      expect(text(run)).toBe("authorized as m2m-jwt");
      expect(server.record.tokenRequests.map((r) => r.clientAuth)).toEqual(["private_key_jwt"]);
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  "the grant's usage errors: no credentials, two kinds at once, a key file that is no key",
  async () => {
    const m = machine({ S: "x" });
    const url = "http://127.0.0.1:9/mcp";
    const missing = await m.inspect(["list-tools", "--url", url, "--grant", "client-credentials", "--client-id", "m"]);
    expect(missing.code).toBe(1);
    expect(missing.json.error.message).toBe(
      "--grant client-credentials needs --client-id with --client-secret-env VAR or --client-key-file PATH",
    );
    const both = await m.inspect(["list-tools", "--url", url, "--client-id", "m", "--client-secret-env", "S", "--client-key-file", "k"]);
    expect(both.code).toBe(1);
    expect(both.json.error.message).toBe("--client-key-file and --client-secret-env are two ways to say who the client is: give one");
    const wrong = await m.inspect(["list-tools", "--url", url, "--grant", "password"]);
    expect(wrong.json.error.message).toBe('--grant must be authorization-code or client-credentials (not "password")');

    const server = await startOAuthServer({ machineClient: { clientId: "m", publicKeyPem: "unused" }, registration: false });
    try {
      const notKey = join(m.home, "not-a-key.pem");
      writeFileSync(notKey, "hello");
      const run = await m.inspect([
        "list-tools",
        "--url",
        server.url,
        "--grant",
        "client-credentials",
        "--client-id",
        "m",
        "--client-key-file",
        notKey,
      ]);
      expect(run.code).toBe(3);
      expect(run.json.error.message).toStartWith(`--client-key-file ${notKey}: not a private key in PEM form`);
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);
