// Hostile authorization servers (test/fixtures/hostile-oauth.ts): answers that never end at each
// step of a sign-in (resource metadata, server metadata, registration, the token), and servers
// that never answer. Every tool that signs in (mcp-inspect --oauth, mcp-proxy --url, mcp-host
// --oauth) reads at most 1 MB of each answer and says so, and SIGTERM or --timeout ends it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  BUN,
  type HttpFixture,
  INITIALIZE,
  inspect,
  LinePeer,
  NO_VENDOR_KEYS,
  PeakRss,
  ROOT,
  runTool,
  startHttpServer,
  TEST_GUARD_MS,
  tempDir,
  toolCommand,
  until,
} from "../support/helpers.ts";

const HOSTILE = join(ROOT, "test/fixtures/hostile-oauth.ts");
/** 1 MB per OAuth answer, plus the runtime itself. */
const AUTH_BOUND_MB = 200;
const TOO_LARGE = "is larger than 1 MB (not read further)";
const EXIT_AUTH = 3;
const EXIT_TIMEOUT = 4;
const EXIT_SIGTERM = 128 + 15;

let server: HttpFixture;
beforeAll(async () => {
  server = await startHttpServer([BUN, HOSTILE]);
});
afterAll(() => server.stop());

/** A machine of its own: an empty token store, and a browser that follows the authorization URL back. */
const machine = () => ({
  ...NO_VENDOR_KEYS,
  MCPKIT_AUTH_DIR: join(tempDir("mcpkit-hostile-"), "auth"),
  BROWSER: `${BUN} ${join(ROOT, "test/fixtures/browser.ts")}`,
});
const urlFor = (behaviour: "endless" | "hang", stage: string) => `${server.url}/${behaviour}/${stage}/mcp`;
const seen = async (stage: string) => ((await (await fetch(`${server.url}/seen`)).json()) as Record<string, number>)[stage] ?? 0;

describe("answers that never end: 1 MB read, a clear error, a bounded memory", () => {
  for (const stage of ["prm", "metadata", "register", "token"]) {
    test(
      `mcp-inspect --oauth, endless ${stage}`,
      async () => {
        const run = await inspect(["call-tool", "whoami", "--url", urlFor("endless", stage), "--oauth"], {
          env: machine(),
          watchRss: true,
        });
        expect(run.code).toBe(EXIT_AUTH);
        expect(run.json.error.message).toBe(`signing in to ${server.url} failed: the answer from ${server.url} ${TOO_LARGE}`);
        expect(run.peakRssMb!).toBeLessThan(AUTH_BOUND_MB);
      },
      TEST_GUARD_MS,
    );
  }

  for (const stage of ["metadata", "register", "token"]) {
    test(
      `mcp-host --oauth -p, endless ${stage}`,
      async () => {
        const run = await runTool("mcp-host.ts", ["--server", urlFor("endless", stage), "--oauth", "-p", "hi"], {
          env: machine(),
          watchRss: true,
        });
        expect(run.code).toBe(2);
        expect(run.stdout + run.stderr).toContain(`signing in to ${server.url} failed: the answer from ${server.url} ${TOO_LARGE}`);
        expect(run.peakRssMb!).toBeLessThan(AUTH_BOUND_MB);
      },
      TEST_GUARD_MS,
    );

    test(
      `mcp-proxy --url (signs in by itself), endless ${stage}: the request gets the error, the proxy lives on`,
      async () => {
        const peer = new LinePeer([...toolCommand("mcp-proxy.ts"), "--url", urlFor("endless", stage)], { env: machine() });
        const rss = new PeakRss(peer.child.pid);
        const answer = await peer.request(1, "initialize", INITIALIZE());
        expect(answer.error.message).toBe(`mcp-proxy: signing in to ${server.url} failed: the answer from ${server.url} ${TOO_LARGE}`);
        expect(rss.stop()).toBeLessThan(AUTH_BOUND_MB);
        expect(await peer.close()).toBe(0);
      },
      TEST_GUARD_MS,
    );
  }
});

describe("a server that never answers", () => {
  const spawnAgainst = (url: string) => ({
    inspect: [...toolCommand("mcp-inspect.ts"), "call-tool", "whoami", "--url", url, "--oauth"],
    proxy: [...toolCommand("mcp-proxy.ts"), "--url", url],
    host: [...toolCommand("mcp-host.ts"), "--server", url, "--oauth", "-p", "hi"],
  });

  for (const tool of ["inspect", "proxy", "host"] as const) {
    test(
      `SIGTERM while mcp-${tool} waits for the authorization server's metadata: it exits (143)`,
      async () => {
        const stage = "metadata";
        const before = await seen(stage);
        const child = Bun.spawn(spawnAgainst(urlFor("hang", stage))[tool], {
          cwd: ROOT,
          env: { ...process.env, NO_COLOR: "1", ...machine() },
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        });
        // The proxy signs in when its client's first request is refused.
        if (tool === "proxy") {
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE() })}\n`);
          child.stdin.flush();
        }
        await until(async () => (await seen(stage)) > before, "the metadata request to arrive");
        child.kill("SIGTERM");
        expect(await child.exited).toBe(EXIT_SIGTERM);
      },
      TEST_GUARD_MS,
    );
  }

  test(
    "mcp-inspect --timeout holds for the authorization server's requests: TIMEOUT, and the process is gone",
    async () => {
      for (const stage of ["metadata", "token"]) {
        const run = await inspect(["call-tool", "whoami", "--url", urlFor("hang", stage), "--oauth", "--timeout", "3000"], {
          env: machine(),
        });
        expect(run.code).toBe(EXIT_TIMEOUT);
        expect(run.json.error.message).toBe("no answer within 3000 ms (raise --timeout)");
      }
    },
    TEST_GUARD_MS,
  );
});
