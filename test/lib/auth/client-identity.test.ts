// lib/auth/client-identity: which client a sign-in presents itself as. Our metadata document is
// offered only when it is served and names itself, never beside a pre-registered client or where
// a sign-in with it already got no callback; a forced registration wins over all of that.
import { describe, expect, test } from "bun:test";
import { documentServed, documentToOffer } from "../../../lib/auth/client-identity.ts";

const DOC = "https://docs.example.com/oauth/client-metadata.json";

function serving(document: unknown, status = 200) {
  const fetched: string[] = [];
  const fetchFn = (async (url: string) => {
    fetched.push(String(url));
    return new Response(JSON.stringify(document), { status });
  }) as unknown as typeof fetch;
  return { fetchFn, fetched };
}

describe("documentServed", () => {
  test("true for a document that names itself; checked once per URL in a process", async () => {
    const { fetchFn, fetched } = serving({ client_id: `${DOC}?a` });
    expect(await documentServed(`${DOC}?a`, fetchFn)).toBe(true);
    expect(await documentServed(`${DOC}?a`, fetchFn)).toBe(true);
    expect(fetched).toHaveLength(1);
  });

  test("false for another client_id, an error status, or no answer at all", async () => {
    expect(await documentServed(`${DOC}?b`, serving({ client_id: "someone-else" }).fetchFn)).toBe(false);
    expect(await documentServed(`${DOC}?c`, serving({ client_id: `${DOC}?c` }, 404).fetchFn)).toBe(false);
    const unreachable = (async () => Promise.reject(new TypeError("getaddrinfo ENOTFOUND"))) as unknown as typeof fetch;
    expect(await documentServed(`${DOC}?d`, unreachable)).toBe(false);
  });
});

describe("documentToOffer", () => {
  const served = serving({ client_id: `${DOC}?e` }).fetchFn;
  const base = { url: `${DOC}?e`, entry: { resource: "r" }, fetch: served, preRegistered: false };

  test("the document when it is served", async () => {
    expect(await documentToOffer(base)).toBe(`${DOC}?e`);
  });

  test("none beside a pre-registered client, or after a sign-in with it got no callback", async () => {
    expect(await documentToOffer({ ...base, preRegistered: true })).toBeUndefined();
    expect(await documentToOffer({ ...base, entry: { resource: "r", metadataDocumentFailed: `${DOC}?e` } })).toBeUndefined();
  });

  test("forced: dynamic and pre-registered offer none; metadata-document offers it even after a failure, unchecked", async () => {
    expect(await documentToOffer({ ...base, registration: "dynamic" })).toBeUndefined();
    expect(await documentToOffer({ ...base, registration: "pre-registered" })).toBeUndefined();
    const failed = { resource: "r", metadataDocumentFailed: `${DOC}?f` };
    const never = (async () => Promise.reject(new Error("not fetched"))) as unknown as typeof fetch;
    expect(await documentToOffer({ ...base, url: `${DOC}?f`, entry: failed, fetch: never, registration: "metadata-document" })).toBe(
      `${DOC}?f`,
    );
  });
});
