import { afterAll, describe, expect, test } from "bun:test";
import { fetchWithinOrigin, RedirectRefusedError, readBodyCapped, readBodyHead } from "../../../lib/io/fetch.ts";

const seen: { method: string; path: string; key: string | null; body: string }[] = [];
const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("elsewhere") });
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    seen.push({ method: request.method, path: url.pathname, key: request.headers.get("x-api-key"), body: await request.text() });
    if (url.pathname === "/307") return new Response(null, { status: 307, headers: { location: "/end" } });
    if (url.pathname === "/303") return new Response(null, { status: 303, headers: { location: "/end" } });
    if (url.pathname === "/away") return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${other.port}/x` } });
    if (url.pathname === "/big") return new Response("z".repeat(10_000));
    return new Response(`end ${request.method}`);
  },
});
afterAll(() => {
  server.stop(true);
  other.stop(true);
});
const base = `http://127.0.0.1:${server.port}`;

describe("fetchWithinOrigin", () => {
  test("a 307 within the origin keeps the method, the body and the headers", async () => {
    const response = await fetchWithinOrigin(`${base}/307`, { method: "POST", body: "{}", headers: { "X-Api-Key": "k" } });
    expect(await response.text()).toBe("end POST");
    expect(seen.at(-1)).toEqual({ method: "POST", path: "/end", key: "k", body: "{}" });
  });

  test("a 303 turns into a GET without a body, as the fetch standard says", async () => {
    const response = await fetchWithinOrigin(`${base}/303`, { method: "POST", body: "{}" });
    expect(await response.text()).toBe("end GET");
  });

  test("a redirect to another origin is refused, naming where it pointed", async () => {
    const error = await fetchWithinOrigin(`${base}/away`, { headers: { "X-Api-Key": "k" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectRefusedError);
    expect((error as RedirectRefusedError).location).toBe(`http://127.0.0.1:${other.port}/x`);
  });
});

describe("capped bodies", () => {
  test("readBodyCapped reads up to the cap, and past it fails with the count instead of reading on", async () => {
    expect(await readBodyCapped(await fetch(`${base}/big`), 20_000)).toEqual({ ok: true, value: "z".repeat(10_000) });
    const over = await readBodyCapped(await fetch(`${base}/big`), 100);
    expect(over.ok).toBe(false);
  });

  test("readBodyHead keeps only the first bytes of an error page", async () => {
    expect(await readBodyHead(await fetch(`${base}/big`), 5)).toBe("zzzzz");
  });
});
