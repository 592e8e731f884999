// lib/auth/revoke: RFC 7009 revocation at logout, against an injected fetch: both tokens, only to
// an https (or loopback) endpoint, authenticated as the server's metadata says.
import { describe, expect, test } from "bun:test";
import { type RevokingClient, revokeTokens } from "../../../lib/auth/revoke.ts";
import type { AuthEntry } from "../../../lib/auth/store.ts";

interface Sent {
  url: string;
  authorization: string | null;
  body: Record<string, string>;
}

/** A fetch that answers each revocation with the next status (200 when none is left), keeping what it was sent. */
function revocationServer(statuses: (number | Error)[] = []) {
  const sent: Sent[] = [];
  const fetchImpl = (async (url: string | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    sent.push({ url: String(url), authorization: headers.get("authorization"), body: Object.fromEntries(init.body as URLSearchParams) });
    expect(headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(init.method).toBe("POST");
    const status = statuses.shift() ?? 200;
    if (status instanceof Error) throw status;
    return new Response(null, { status });
  }) as typeof fetch;
  return { sent, fetchImpl };
}

const entry = (
  metadata: Record<string, unknown>,
  tokens: AuthEntry["tokens"] = { access_token: "AT", token_type: "Bearer", refresh_token: "RT" },
) => ({
  resource: "https://mcp.example.com/mcp",
  tokens,
  discovery: { authorizationServerMetadata: metadata },
});
const ENDPOINT = "https://as.example.com/revoke";
const publicClient: RevokingClient = { client_id: "pub" };
const secretClient: RevokingClient = { client_id: "my id", client_secret: "s:cr&t" };

describe("nothing (safe) to revoke with: false, and nothing is sent", () => {
  const cases: [string, AuthEntry, RevokingClient | undefined][] = [
    ["no revocation endpoint", entry({}), publicClient],
    ["an endpoint that is no URL", entry({ revocation_endpoint: "not a url" }), publicClient],
    ["a plain-http endpoint elsewhere", entry({ revocation_endpoint: "http://as.example.com/revoke" }), publicClient],
    ["an endpoint with credentials in it", entry({ revocation_endpoint: "https://u:p@as.example.com/revoke" }), publicClient],
    ["no tokens", { ...entry({ revocation_endpoint: ENDPOINT }), tokens: undefined }, publicClient],
    ["no client", entry({ revocation_endpoint: ENDPOINT }), undefined],
    [
      "no discovery at all",
      { resource: "https://mcp.example.com/mcp", tokens: { access_token: "AT", token_type: "Bearer" } },
      publicClient,
    ],
  ];
  for (const [what, stored, client] of cases)
    test(what, async () => {
      const server = revocationServer();
      expect(await revokeTokens(stored, client, server.fetchImpl)).toBe(false);
      expect(server.sent).toEqual([]);
    });
});

describe("revoking", () => {
  test("the refresh token first, then the access token, each with its hint; a loopback http endpoint is fine", async () => {
    const server = revocationServer();
    const loopback = "http://127.0.0.1:9000/revoke";
    expect(await revokeTokens(entry({ revocation_endpoint: loopback }), publicClient, server.fetchImpl)).toBe(true);
    expect(server.sent).toEqual([
      { url: loopback, authorization: null, body: { token: "RT", token_type_hint: "refresh_token", client_id: "pub" } },
      { url: loopback, authorization: null, body: { token: "AT", token_type_hint: "access_token", client_id: "pub" } },
    ]);
  });

  test("only the access token when there is no refresh token", async () => {
    const server = revocationServer();
    await revokeTokens(
      entry({ revocation_endpoint: ENDPOINT }, { access_token: "AT", token_type: "Bearer" }),
      publicClient,
      server.fetchImpl,
    );
    expect(server.sent.map(({ body }) => body.token_type_hint)).toEqual(["access_token"]);
  });

  const basic = `Basic ${btoa(`${encodeURIComponent("my id")}:${encodeURIComponent("s:cr&t")}`)}`;
  // [what, the metadata's auth methods, Basic (else the secret in the body)]
  const methods: [string, Record<string, unknown>, boolean][] = [
    ["no methods named: client_secret_basic, as RFC 7009 has it", {}, true],
    ["client_secret_basic named", { revocation_endpoint_auth_methods_supported: ["client_secret_basic"] }, true],
    ["only client_secret_post named", { revocation_endpoint_auth_methods_supported: ["client_secret_post"] }, false],
    [
      "the token endpoint's methods when the revocation endpoint names none",
      { token_endpoint_auth_methods_supported: ["client_secret_post"] },
      false,
    ],
    [
      "the revocation endpoint's own methods first",
      {
        revocation_endpoint_auth_methods_supported: ["client_secret_basic"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
      },
      true,
    ],
  ];
  for (const [what, metadata, isBasic] of methods)
    test(`a client with a secret, ${what}`, async () => {
      const server = revocationServer();
      await revokeTokens(entry({ revocation_endpoint: ENDPOINT, ...metadata }), secretClient, server.fetchImpl);
      for (const { authorization, body } of server.sent) {
        if (isBasic) {
          // Form-encoded before base64 (RFC 6749 section 2.3.1): a ':' in the secret cannot split it.
          expect(authorization).toBe(basic);
          expect(body.client_id).toBeUndefined();
          expect(body.client_secret).toBeUndefined();
        } else {
          expect(authorization).toBeNull();
          expect([body.client_id, body.client_secret]).toEqual(["my id", "s:cr&t"]);
        }
      }
      expect(server.sent).toHaveLength(2);
    });

  const outcomes: [string, (number | Error)[], boolean][] = [
    ["both accepted", [200, 200], true],
    ["one accepted", [400, 200], true],
    ["both refused", [400, 503], false],
    ["the server unreachable", [new Error("ECONNREFUSED"), new Error("ECONNREFUSED")], false],
  ];
  for (const [what, statuses, revoked] of outcomes)
    test(`${what}: ${revoked}, and both are tried`, async () => {
      const server = revocationServer(statuses);
      expect(await revokeTokens(entry({ revocation_endpoint: ENDPOINT }), publicClient, server.fetchImpl)).toBe(revoked);
      expect(server.sent).toHaveLength(2);
    });
});
