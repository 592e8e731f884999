// lib/auth/machine: the client credentials grant against the in-process authorization server of
// test/fixtures/oauth-server.ts: a secret or a signed assertion gets a token with no browser, a fresh
// stored token is used as it is, and a key file that is no key is refused naming the flag.
import { afterAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthRequiredError } from "../../../lib/auth/errors.ts";
import { fetchMachineToken } from "../../../lib/auth/machine.ts";
import { type OAuthFixture, startOAuthServer } from "../../fixtures/oauth-server.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";
import { authContext, privateStore } from "../../support/oauth-user.ts";

const fixtures: OAuthFixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.stop()));
  removeTempDirs();
});

async function server(machineClient: { clientId: string; clientSecret?: string; publicKeyPem?: string }): Promise<OAuthFixture> {
  const fixture = await startOAuthServer({ machineClient, registration: false });
  fixtures.push(fixture);
  return fixture;
}

test("a secret (client_secret_basic) gets a token without a browser, stored with the issuer; a fresh one is reused", async () => {
  const fixture = await server({ clientId: "m2m", clientSecret: "s3cret" });
  const store = privateStore();
  const ctx = authContext(fixture.url, store);
  expect(await fetchMachineToken(ctx, { clientId: "m2m", clientSecret: "s3cret" }, {})).toBe(true);
  const made = fixture.record.tokenRequests.map((r) => [r.grant_type, r.clientAuth]);
  expect(made).toEqual([["client_credentials", "client_secret_basic"]]);
  expect(fixture.record.authorizations).toEqual([]);
  const stored = store.read(fixture.url);
  expect(stored.tokens?.access_token).toBeString();
  expect(stored.issuer).toBeString();
  // Stored and fresh: no second token request.
  expect(await fetchMachineToken(ctx, { clientId: "m2m", clientSecret: "s3cret" }, {})).toBe(true);
  expect(fixture.record.tokenRequests).toHaveLength(1);
  // The server refused that one: a new one is fetched.
  expect(await fetchMachineToken(ctx, { clientId: "m2m", clientSecret: "s3cret" }, { rejected: stored.tokens })).toBe(true);
  expect(fixture.record.tokenRequests).toHaveLength(2);
});

test("a private key (private_key_jwt) signs the assertion the server checks with its public key", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const fixture = await server({ clientId: "signed", publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() });
  const keyFile = join(tempDir("mcpkit-key-"), "key.pem");
  writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }).toString());
  const ctx = authContext(fixture.url, privateStore());
  expect(await fetchMachineToken(ctx, { clientId: "signed", privateKeyFile: keyFile }, {})).toBe(true);
  expect(fixture.record.tokenRequests.map((r) => [r.grant_type, r.clientAuth])).toEqual([["client_credentials", "private_key_jwt"]]);
});

test("a key file that is missing, not a key, or a key none of our JWS algorithms takes is refused naming --client-key-file", async () => {
  const fixture = await server({ clientId: "signed", publicKeyPem: "unused" });
  const dir = tempDir("mcpkit-key-");
  const notKey = join(dir, "not-a-key.pem");
  writeFileSync(notKey, "hello\n");
  const k1 = join(dir, "x25519.pem");
  const { privateKey } = generateKeyPairSync("x25519");
  writeFileSync(k1, privateKey.export({ type: "pkcs8", format: "pem" }).toString());
  const ctx = authContext(fixture.url, privateStore());
  for (const [file, said] of [
    [join(dir, "absent.pem"), /cannot be read \(ENOENT\)/],
    [notKey, /not a private key in PEM form/],
    [k1, /a x25519 key signs with no JWS algorithm/],
  ] as const) {
    const attempt = fetchMachineToken(ctx, { clientId: "signed", privateKeyFile: file }, {});
    await expect(attempt).rejects.toBeInstanceOf(AuthRequiredError);
    await expect(fetchMachineToken(ctx, { clientId: "signed", privateKeyFile: file }, {})).rejects.toThrow(said);
    await expect(fetchMachineToken(ctx, { clientId: "signed", privateKeyFile: file }, {})).rejects.toThrow(`--client-key-file ${file}`);
  }
  expect(fixture.record.tokenRequests).toEqual([]);
});
