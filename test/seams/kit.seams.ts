// The server developer's kit against the real world (npm run test:seams): `mcp-inspect test
// --conformance` installing and running the official suite, on the reference server from stdio
// (through mcp-proxy serve) and over its own --http, agreeing with the official runner's own
// verdicts; a failing scenario exits 10 unless --baseline names it; and a session the official
// Inspector CLI had with server-everything through `mcp-proxy --record`, replayed to the same CLI by
// `mcp-inspect mock`.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  BUN,
  EVERYTHING,
  type HttpFixture,
  inspect,
  REFERENCE_CMD,
  ROOT,
  removeTempDirs,
  startHttpServer,
  tempDir,
} from "../support/helpers.ts";
import { node24, peerBin } from "../support/peers.ts";

const INSPECTOR = ["@modelcontextprotocol/inspector", "2.12.0", "mcp-inspector"] as const;
const CONFORMANCE = ["@modelcontextprotocol/conformance", "0.2.0-alpha.11", "conformance"] as const;
/** A conformance run, a first install or a peer install on a loaded machine: minutes, not hours. */
const SEAM_GUARD_MS = 20 * 60_000;
const BREAKER = [BUN, join(ROOT, "test/fixtures/rule-breaker.ts")];

const started: HttpFixture[] = [];
afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
  removeTempDirs();
});

type Check = { id: string; status: string; seen: string };
const scenarios = (json: any): Check[] => json.data.checks.filter((check: Check) => check.id.startsWith("conformance:"));
const verdictsOf = (json: any) => Object.fromEntries(scenarios(json).map((check) => [check.id, check.status]));

async function run(command: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

describe("mcp-inspect test --conformance", () => {
  test(
    "the reference server from stdio and over its own --http: the same scenario verdicts, the official runner's own, " +
      "fixture scenarios not applicable",
    async () => {
      const [node, runner] = await Promise.all([node24(), peerBin(...CONFORMANCE)]);
      const own = await startHttpServer([...REFERENCE_CMD, "--http", "0"]);
      started.push(own);
      // First use: installed from the registry into an empty cache, the node found on PATH.
      const cache = tempDir();
      const onPath = { PATH: `${dirname(node)}:${process.env.PATH}`, XDG_CACHE_HOME: cache };
      const [stdio, http, official] = await Promise.all([
        inspect(["test", "--json", "--conformance", "--", ...REFERENCE_CMD], { env: onPath, timeoutMs: SEAM_GUARD_MS }),
        inspect(["test", "--json", "--conformance", "--node", node, "--url", own.url], { timeoutMs: SEAM_GUARD_MS }),
        run([node, runner, "server", "--url", own.url], tempDir()),
      ]);
      expect(stdio.stderr).toBe("");
      expect(stdio.code).toBe(0);
      expect(http.code).toBe(0);
      const installed = readdirSync(join(cache, "mcpkit"));
      expect(installed).toEqual(["@modelcontextprotocol+conformance@0.2.0-alpha.11"]);
      const verdicts = verdictsOf(stdio.json);
      expect(Object.keys(verdicts).length).toBeGreaterThan(10);
      expect(verdictsOf(http.json)).toEqual(verdicts);
      // The runner's ✓ is our pass; its ✗ is a failure, or a scenario that only missed the suite's own fixtures.
      const lines = official.stdout.split("\n").filter((line) => /^[✓✗] /.test(line));
      expect(lines.length).toBe(Object.keys(verdicts).length);
      for (const line of lines) {
        const [mark, name] = [line[0], line.slice(2).split(":")[0]!];
        expect([name, verdicts[`conformance:${name}`]]).toEqual([name, mark === "✓" ? "pass" : "not-applicable"]);
      }
      const simple = scenarios(stdio.json).find((check) => check.id === "conformance:tools-call-simple-text")!;
      expect(simple.seen).toBe("needs the suite's own fixture test_simple_text, which this server does not have");
      expect(verdicts["conformance:ping"]).toBe("pass");
    },
    SEAM_GUARD_MS,
  );

  test(
    "a server that fails a scenario: exit 10 naming it, JUnit beside our own checks, and a --baseline that lists it passes",
    async () => {
      const node = await node24();
      const dir = tempDir();
      const junit = join(dir, "checks.xml");
      const first = await inspect(["test", "--json", "--junit", junit, "--conformance", "--node", node, "--", ...BREAKER], {
        timeoutMs: SEAM_GUARD_MS,
      });
      expect(first.code).toBe(10);
      // The fixture has no logging/setLevel: a real failure, not a missing fixture of the suite's.
      const logging = scenarios(first.json).find((check) => check.id === "conformance:logging-set-level")!;
      expect(logging.status).toBe("fail");
      expect(first.json.error.message).toContain("conformance:logging-set-level");
      expect(await Bun.file(junit).text()).toContain('<testcase classname="mcp-inspect.test" name="conformance:logging-set-level">');
      const known = join(dir, "known.json");
      writeFileSync(known, first.stdout);
      const again = await inspect(["test", "--json", "--baseline", known, "--conformance", "--node", node, "--", ...BREAKER], {
        timeoutMs: SEAM_GUARD_MS,
      });
      expect(again.code).toBe(0);
      expect(scenarios(again.json).find((check) => check.id === "conformance:logging-set-level")).toMatchObject({ known: true });
    },
    SEAM_GUARD_MS,
  );
});

test(
  "a session recorded from server-everything by the official Inspector CLI is served by mcp-inspect mock to the same CLI: " +
    "the same list, the same call",
  async () => {
    const [node, inspector] = await Promise.all([node24(), peerBin(...INSPECTOR)]);
    const dir = tempDir();
    const recording = (name: string) => join(dir, `${name}.jsonl`);
    /** The Inspector CLI against server-everything through the recording proxy (a config entry: the CLI parses no flags of it). */
    const live = async (name: string, method: string[]) => {
      const config = join(dir, `${name}.json`);
      const proxy = [join(ROOT, "mcp-proxy.ts"), "--record", recording(name), "--", EVERYTHING];
      writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: BUN, args: proxy } } }));
      return run([node, inspector, "--cli", "--config", config, "--server", "everything", "--method", ...method]);
    };
    const mocked = (name: string, method: string[]) =>
      run([node, inspector, "--cli", BUN, join(ROOT, "mcp-inspect.ts"), "mock", recording(name), "--method", ...method]);
    const list = ["tools/list"];
    const call = ["tools/call", "--tool-name", "echo", "--tool-arg", "message=hello from the recording"];
    const [listedLive, calledLive] = await Promise.all([live("list", list), live("call", call)]);
    expect(listedLive.code).toBe(0);
    expect(calledLive.code).toBe(0);
    expect(existsSync(recording("list")) && existsSync(recording("call"))).toBe(true);
    const [listed, called] = await Promise.all([mocked("list", list), mocked("call", call)]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(JSON.parse(listedLive.stdout));
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("echo");
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual(JSON.parse(calledLive.stdout));
    expect(JSON.stringify(JSON.parse(called.stdout).content)).toContain("hello from the recording");
  },
  SEAM_GUARD_MS,
);
