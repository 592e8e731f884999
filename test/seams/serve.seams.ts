// `mcp-proxy serve` against the real HTTP world (npm run test:seams): the official Inspector CLI,
// the official conformance suite giving the same verdicts through serve as against the reference
// server's own --http, and Debian's nginx in front of two serve processes routing each 2025 session
// on its Mcp-Session-Id prefix, exactly as README shows it.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { BUN, closedPort, type HttpFixture, REFERENCE_CMD, ROOT, removeTempDirs, startHttpServer, tempDir } from "../support/helpers.ts";
import { node24, peerBin } from "../support/peers.ts";

const INSPECTOR = ["@modelcontextprotocol/inspector", "2.12.0", "mcp-inspector"] as const;
const CONFORMANCE = ["@modelcontextprotocol/conformance", "0.2.0-alpha.11", "conformance"] as const;
const NGINX = "/usr/sbin/nginx";
/** A conformance run or a peer install on a loaded machine: minutes, not hours. */
const SEAM_GUARD_MS = 20 * 60_000;

const serve = (flags: string[] = []) =>
  startHttpServer([BUN, join(ROOT, "mcp-proxy.ts"), "serve", "--log-level", "warn", ...flags, "--", ...REFERENCE_CMD]);
const started: HttpFixture[] = [];
afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
  removeTempDirs();
});

async function run(command: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

test(
  "the official Inspector CLI lists and calls the tools of a stdio server through serve",
  async () => {
    const [node, inspector] = await Promise.all([node24(), peerBin(...INSPECTOR)]);
    const served = await serve();
    started.push(served);
    const cli = [node, inspector, "--cli", served.url, "--transport", "http", "--method"];
    const listed = await run([...cli, "tools/list"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("region_query");
    const called = await run([...cli, "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=40"]);
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout).structuredContent).toEqual({ sum: 42 });
  },
  SEAM_GUARD_MS,
);

describe("the official conformance suite", () => {
  /** Each scenario's verdict line (`✓ name: N passed, M failed`), in the suite's order. */
  const verdicts = (output: string) => output.split("\n").filter((line) => /^[✓✗] /.test(line));
  /**
   * serve answers a 2025 request with JSON when the server sends nothing for it first (the spec lets
   * a server choose); this scenario counts a JSON answer as optional (INFO), not as a pass, so it
   * passes with one check fewer than the reference's SSE answers.
   */
  const JSON_COUNTED_APART = "server-sse-multiple-streams:";
  const besides = (lines: string[]) => lines.filter((line) => !line.includes(JSON_COUNTED_APART));

  test.each([
    ["--spec-version", "2025-11-25"],
    ["--requirements", "2026-07-28"],
  ])(
    "%s %s: the reference server served from stdio gets the same verdicts as on its own --http",
    async (flag, version) => {
      const [node, conformance] = await Promise.all([node24(), peerBin(...CONFORMANCE)]);
      const [served, own] = await Promise.all([serve(), startHttpServer([...REFERENCE_CMD, "--http", "0"])]);
      started.push(served, own);
      const suite = (url: string) => run([node, conformance, "server", "--url", url, flag, version], tempDir());
      const [through, direct] = await Promise.all([suite(served.url), suite(own.url)]);
      expect(verdicts(direct.stdout).length).toBeGreaterThan(10);
      expect(besides(verdicts(through.stdout))).toEqual(besides(verdicts(direct.stdout)));
      expect(verdicts(through.stdout).find((line) => line.includes(JSON_COUNTED_APART))).toMatch(/^✓ .* 0 failed$/);
    },
    SEAM_GUARD_MS,
  );
});

describe.skipIf(!existsSync(NGINX))("behind nginx (README's configuration)", () => {
  test(
    "two serve processes behind nginx routing on the Mcp-Session-Id prefix: 2025 sessions keep their server, 2026 calls go anywhere",
    async () => {
      const [one, two] = await Promise.all([serve(["--session-prefix", "one"]), serve(["--session-prefix", "two"])]);
      started.push(one, two);
      const dir = tempDir();
      const port = closedPort();
      const readme = readFileSync(join(ROOT, "README.md"), "utf8");
      const example = /```nginx\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(example).toBeDefined();
      const site = example!
        .replaceAll("127.0.0.1:3001", new URL(one.url).host)
        .replaceAll("127.0.0.1:3002", new URL(two.url).host)
        .replace("listen 8080;", `listen 127.0.0.1:${port};`);
      writeFileSync(
        join(dir, "nginx.conf"),
        `daemon off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\naccess_log off;\n` +
          `client_body_temp_path ${dir}/body;\nproxy_temp_path ${dir}/proxy;\n${site}}\n`,
      );
      const nginx = await startHttpServer([NGINX, "-p", dir, "-c", join(dir, "nginx.conf"), "-g", "error_log stderr notice;"], {
        pattern: /start worker process/,
      });
      started.push(nginx);
      const url = `http://127.0.0.1:${port}/mcp`;
      const clients = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const client = new Client({ name: "behind-nginx", version: "0" });
          await client.connect(new StreamableHTTPClientTransport(new URL(url)));
          return client;
        }),
      );
      const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]!.text;
      // Both processes opened sessions (the new ones spread), and each session stays with its own.
      const prefixes = clients.map((client) => (client.transport as StreamableHTTPClientTransport).sessionId?.split(".")[0]);
      expect(new Set(prefixes)).toEqual(new Set(["one", "two"]));
      for (const client of clients) {
        const pid = text(await client.callTool({ name: "whoami", arguments: {} }));
        // Every request of a session reaches the serve that opened it, so its server is the same one each time.
        for (let i = 0; i < 5; i++) expect(text(await client.callTool({ name: "whoami", arguments: {} }))).toBe(pid);
      }
      const modern = new Client({ name: "behind-nginx-2026", version: "0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await modern.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(text(await modern.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
      await Promise.all([...clients, modern].map((client) => client.close()));
    },
    SEAM_GUARD_MS,
  );
});
