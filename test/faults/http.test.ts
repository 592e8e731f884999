// Hostile HTTP servers: bodies that never end (200, 500, SSE), and redirects that would carry the
// user's headers to another host. Every tool caps what it reads and keeps secrets with their origin.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { mayCarryHeaders } from "../../lib/io/fetch.ts";
import {
  BUN,
  type HttpFixture,
  INITIALIZE,
  inspect,
  LinePeer,
  NO_VENDOR_KEYS,
  ROOT,
  runTool,
  startHttpServer,
  TEST_GUARD_MS,
  toolCommand,
  WAIT_GUARD_MS,
} from "../support/helpers.ts";

const HOSTILE = join(ROOT, "test/fixtures/hostile-http.ts");
/** A 32 MB cap on one message, plus the runtime itself. */
const BODY_BOUND_MB = 160;
let here: HttpFixture;
let elsewhere: HttpFixture;
beforeAll(async () => {
  here = await startHttpServer([BUN, HOSTILE]);
  elsewhere = await startHttpServer([BUN, HOSTILE]);
});
afterAll(async () => {
  await Promise.all([here.stop(), elsewhere.stop()]);
});

const seenBy = async (server: HttpFixture) =>
  (await (await fetch(`${server.url}/seen`)).json()) as { path: string; headers: Record<string, string> }[];

describe("bodies that never end", () => {
  for (const path of ["/endless-json", "/endless-500", "/endless-sse"]) {
    test(
      `mcp-inspect ping --url ${path}: a one-line error, and a bounded memory`,
      async () => {
        const run = await inspect(["ping", "--url", `${here.url}${path}`], { watchRss: true, timeoutMs: WAIT_GUARD_MS });
        expect(run.code).toBe(2);
        expect(run.json.error.code).toBe("CONNECTION_FAILED");
        expect(run.peakRssMb!).toBeLessThan(BODY_BOUND_MB);
      },
      TEST_GUARD_MS,
    );
  }

  test(
    "mcp-proxy --url: a request answered by a body that never ends gets an error, and the proxy lives on",
    async () => {
      const peer = new LinePeer([...toolCommand("mcp-proxy.ts"), "--url", `${here.url}/endless-json`]);
      const answer = await peer.request(1, "initialize", INITIALIZE());
      expect(answer.error.message).toContain("limit");
      expect(await peer.close()).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "through mcp-daemon: the session's call fails with an error, and the daemon keeps serving",
    async () => {
      const dir = mkdtempSync("/tmp/mcpd-");
      try {
        const env = { MCPKIT_DAEMON_DIR: dir };
        const endless = await inspect(["ping", "--stateful", "--url", `${here.url}/endless-json`], { env, timeoutMs: WAIT_GUARD_MS });
        expect(endless.code).not.toBe(0);
        const status = JSON.parse((await runTool("mcp-daemon.ts", ["status", "--json"], { env })).stdout);
        expect(status.rssBytes / 1024 / 1024).toBeLessThan(BODY_BOUND_MB);
        const fine = await inspect(["ping", "--stateful", "--url", `${here.url}/mcp`], { env });
        expect(fine.code).toBe(0);
      } finally {
        await runTool("mcp-daemon.ts", ["stop"], { env: { MCPKIT_DAEMON_DIR: dir } });
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TEST_GUARD_MS,
  );
});

describe("redirects", () => {
  test(
    "to another origin: refused, the new location named, and nothing at all reaches the other host",
    async () => {
      const target = `${elsewhere.url}/mcp?from=inspect`;
      const run = await inspect(["ping", "--url", `${here.url}/redirect?to=${encodeURIComponent(target)}`, "-H", "X-Api-Key: secret-1"]);
      expect(run.code).toBe(2);
      expect(run.json.error.message).toContain(target);
      expect((await seenBy(elsewhere)).filter((request) => request.path.includes("from=inspect"))).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "to another origin through mcp-daemon (--stateful): exit 2 as a one-shot call gives, the location named, nothing sent there",
    async () => {
      const { daemonDir, stopDaemons } = await import("../support/helpers.ts");
      try {
        const target = `${elsewhere.url}/mcp?from=daemon`;
        const url = `${here.url}/redirect?to=${encodeURIComponent(target)}`;
        const run = await inspect(["ping", "--stateful", "--url", url, "-H", "X-Api-Key: secret-2"], {
          env: { MCPKIT_DAEMON_DIR: daemonDir() },
        });
        expect(run.code).toBe(2);
        expect(run.json.error.message).toContain(target);
        expect((await seenBy(elsewhere)).filter((request) => request.path.includes("from=daemon"))).toEqual([]);
      } finally {
        await stopDaemons();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "within the origin: followed, with the configured headers",
    async () => {
      const run = await inspect([
        "ping",
        "--url",
        `${here.url}/redirect?to=${encodeURIComponent("/mcp?from=same")}`,
        "-H",
        "X-Api-Key: secret-2",
      ]);
      expect(run.code).toBe(0);
      const arrived = (await seenBy(here)).filter((request) => request.path === "/mcp?from=same");
      expect(arrived.length).toBeGreaterThan(0);
      expect(arrived.every((request) => request.headers["x-api-key"] === "secret-2")).toBe(true);
    },
    TEST_GUARD_MS,
  );

  test(
    "a loop is given up after 5 redirects; a non-http location is refused",
    async () => {
      const loop = await inspect(["ping", "--url", `${here.url}/loop`]);
      expect(loop.code).toBe(2);
      expect(loop.json.error.message).toContain("more than 5 times");
      const file = await inspect(["ping", "--url", `${here.url}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`]);
      expect(file.code).toBe(2);
      expect(file.json.error.message).toContain("only http(s)");
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-proxy --url: a cross-origin redirect is an error answer, and the other host sees nothing",
    async () => {
      const target = `${elsewhere.url}/mcp?from=proxy`;
      const peer = new LinePeer([
        ...toolCommand("mcp-proxy.ts"),
        "--url",
        `${here.url}/redirect?to=${encodeURIComponent(target)}`,
        "-H",
        "X-Api-Key: secret-3",
      ]);
      const answer = await peer.request(1, "initialize", INITIALIZE());
      expect(answer.error.message).toContain(target);
      await peer.close();
      expect((await seenBy(elsewhere)).filter((request) => request.path.includes("from=proxy"))).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-host: a server URL that redirects to another origin is not connected, and the other host sees nothing",
    async () => {
      const target = `${elsewhere.url}/mcp?from=host`;
      const run = await runTool("mcp-host.ts", ["--server", `${here.url}/redirect?to=${encodeURIComponent(target)}`, "-p", "hi"], {
        env: NO_VENDOR_KEYS,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(target);
      expect((await seenBy(elsewhere)).filter((request) => request.path.includes("from=host"))).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test("headers may go from http to https on the same host, default ports only; never to another host", () => {
    const from = new URL("http://example.com/mcp");
    expect(mayCarryHeaders(from, new URL("https://example.com/other"))).toBe(true);
    expect(mayCarryHeaders(from, new URL("https://example.com:8443/other"))).toBe(false);
    expect(mayCarryHeaders(from, new URL("https://evil.example.com/"))).toBe(false);
    expect(mayCarryHeaders(new URL("https://example.com/"), new URL("http://example.com/"))).toBe(false);
    expect(mayCarryHeaders(new URL("http://127.0.0.1:3000/a"), new URL("http://127.0.0.1:3000/b"))).toBe(true);
  });
});
