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

describe("nothing (safe) to revoke with: not revoked, why, whether trying again may help, and nothing is sent", () => {
  const NO_REVOCATION = "the authorization server offers no token revocation (RFC 7009)";
  const cases: [string, AuthEntry, RevokingClient | undefined, string, boolean][] = [
    ["no revocation endpoint", entry({}), publicClient, NO_REVOCATION, false],
    [
      "an endpoint that is no URL",
      entry({ revocation_endpoint: "not a url" }),
      publicClient,
      'its revocation endpoint "not a url" is not an https (or loopback) URL',
      false,
    ],
    [
      "a plain-http endpoint elsewhere",
      entry({ revocation_endpoint: "http://as.example.com/revoke" }),
      publicClient,
      'its revocation endpoint "http://as.example.com/revoke" is not an https (or loopback) URL',
      false,
    ],
    [
      "an endpoint with credentials in it",
      entry({ revocation_endpoint: "https://u:p@as.example.com/revoke" }),
      publicClient,
      'its revocation endpoint "https://u:p@as.example.com/revoke" is not an https (or loopback) URL',
      false,
    ],
    ["no tokens", { ...entry({ revocation_endpoint: ENDPOINT }), tokens: undefined }, publicClient, "no tokens are stored", false],
    [
      "no client",
      entry({ revocation_endpoint: ENDPOINT }),
      undefined,
      "no client is known to revoke them as (pass --client-id ID, and --client-secret-env VAR for a client with a secret)",
      true,
    ],
    [
      "no discovery at all",
      { resource: "https://mcp.example.com/mcp", tokens: { access_token: "AT", token_type: "Bearer" } },
      publicClient,
      NO_REVOCATION,
      false,
    ],
  ];
  for (const [what, stored, client, why, again] of cases)
    test(what, async () => {
      const server = revocationServer();
      expect(await revokeTokens(stored, client, server.fetchImpl)).toEqual({ revoked: false, why, again });
      expect(server.sent).toEqual([]);
    });
});

describe("revoking", () => {
  test("the refresh token first, then the access token, each with its hint; a loopback http endpoint is fine", async () => {
    const server = revocationServer();
    const loopback = "http://127.0.0.1:9000/revoke";
    expect(await revokeTokens(entry({ revocation_endpoint: loopback }), publicClient, server.fetchImpl)).toEqual({ revoked: true });
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

  const REFUSED = "the authorization server refused the revocation (HTTP 400)";
  const outcomes: [string, (number | Error)[], Record<string, unknown>][] = [
    ["both accepted", [200, 200], { revoked: true }],
    ["the refresh token refused, the access token accepted: not revoked (the refresh token stays)", [400, 200], { why: REFUSED }],
    ["the refresh token accepted, the access token refused: revoked (RFC 7009 ends its access tokens too)", [200, 400], { revoked: true }],
    ["both refused", [400, 503], { why: REFUSED }],
    [
      "the server unreachable",
      [new Error("ECONNREFUSED"), new Error("ECONNREFUSED")],
      { why: "its revocation endpoint could not be reached (ECONNREFUSED)", unreachable: true },
    ],
  ];
  for (const [what, statuses, outcome] of outcomes)
    test(`${what}; both are tried`, async () => {
      const server = revocationServer(statuses);
      const expected = "revoked" in outcome ? outcome : { revoked: false, again: true, ...outcome };
      expect(await revokeTokens(entry({ revocation_endpoint: ENDPOINT }), publicClient, server.fetchImpl)).toEqual(expected as never);
      expect(server.sent).toHaveLength(2);
    });

  test("a client without its secret refused with 401: the error says to pass the client's secret", async () => {
    const server = revocationServer([401, 401]);
    const refused = await revokeTokens(entry({ revocation_endpoint: ENDPOINT }), publicClient, server.fetchImpl);
    expect(refused).toEqual({
      revoked: false,
      again: true,
      why:
        "the authorization server refused the revocation (HTTP 401): a client with a secret revokes with it (pass --client-id ID " +
        "--client-secret-env VAR)",
    });
  });
});
