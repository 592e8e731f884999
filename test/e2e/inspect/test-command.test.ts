// `mcp-inspect test` end to end: the reference server and server-everything show what passes (or
// what they really break), over stdio and HTTP; the reports (--junit, --baseline) and the usage
// errors. test-command-rules.test.ts breaks one rule at a time. Every test here starts its own
// servers, so the tests go side by side (a few runs at once) and their waits overlap.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  closedPort,
  EVERYTHING,
  inspect,
  lanes,
  REFERENCE_CMD,
  ROOT,
  startHttpServer,
  startReferenceHttp,
  TEST_GUARD_MS,
} from "../../support/helpers.ts";

const BREAKER = [BUN, join(ROOT, "test/fixtures/rule-breaker.ts")];
const HOSTILE_HTTP = [BUN, join(ROOT, "test/fixtures/hostile-http.ts")];
const dir = mkdtempSync(join(tmpdir(), "mcpkit-test-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lane = lanes();
const run = (args: string[], options?: Parameters<typeof inspect>[1]) => lane(() => inspect(["test", ...args], options));

type Check = { id: string; clause: string; severity: string; status: string; seen: string };
const checksOf = (json: any): Check[] => json.data.checks;
const failing = (json: any) => checksOf(json).filter((c) => c.status === "fail");

describe.concurrent("servers that keep the rules", () => {
  test(
    "the reference server passes every check it can be given, the calls, prompts and cancellation named with --call and --prompt",
    async () => {
      const { code, json, stderr } = await run([
        "--json",
        ...["--call", "slow", "--params", '{"steps":100,"delayMs":20}'],
        ...["--call", "add", "--params", '{"a":2,"b":3}'],
        ...["--prompt", "greet", "--params", '{"name":"alice"}'],
        "--",
        ...REFERENCE_CMD,
      ]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(json.success).toBe(true);
      const checks = checksOf(json);
      for (const check of checks) {
        expect(Object.keys(check).sort()).toEqual(["clause", "id", "seen", "severity", "status", "title"]);
        expect(["pass", "not-applicable"]).toContain(check.status);
      }
      const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
      expect(byId.cancellation!.seen).toContain("slow: nothing about it after the ping");
      expect(byId["structured-content"]!.status).toBe("pass");
      expect(byId["invalid-arguments"]!.seen).toContain("a result with isError");
      expect(byId["prompts-get"]!.seen).toContain("not got: review");
      expect(byId.shutdown!.status).toBe("pass");
      expect(json.metadata.protocolVersion).toBe("2026-07-28");
    },
    TEST_GUARD_MS,
  );

  test(
    "server-everything passes, but for its unknown tool answered as a tool result (a warning: exit 0)",
    async () => {
      // Its long-running operation (readOnlyHint, no input needed) is named to take half a second, not
      // its default 10; get-env before it stays the first call, the one the cancellation check takes.
      const quick = ["--call", "get-env", "--call", "trigger-long-running-operation", "--params", '{"duration":0.5,"steps":2}'];
      const { code, json } = await run(["--json", ...quick, "--", EVERYTHING]);
      expect(code).toBe(0);
      expect(failing(json).map((c) => [c.id, c.severity, c.seen])).toEqual([
        ["unknown-tool", "warning", "a result (isError) instead of a JSON-RPC error"],
      ]);
      const calls = checksOf(json).find((c) => c.id === "tool-calls")!;
      expect(calls.status).toBe("pass");
      // Only the readOnlyHint tools that need no input were called; the rest are listed.
      expect(calls.seen).toContain("not called: echo (needs input: name it with --call echo --params JSON)");
    },
    TEST_GUARD_MS,
  );

  test(
    "the rule-breaker with no rule broken passes everything, on text a line per check",
    async () => {
      const { code, stdout } = await run(["--text", "--", ...BREAKER]);
      expect(code).toBe(0);
      expect(stdout).toContain("pass  cancellation: count: nothing about it after the ping");
      expect(stdout).toContain("pass  pagination: tools: 2 in 2 page(s)");
      expect(stdout.trim().split("\n").at(-1)).toBe("16 passed, 0 failed, 0 skipped, 2 not applicable");
    },
    TEST_GUARD_MS,
  );
});

describe.concurrent("over HTTP", () => {
  test(
    "the reference server keeps its sessions (2025-11-25) and refuses a foreign Origin",
    async () => {
      const server = await startReferenceHttp();
      try {
        const { code, json } = await run(["--json", "--protocol-version", "2025-11-25", "--url", server.url]);
        expect(code).toBe(0);
        const byId = Object.fromEntries(checksOf(json).map((c) => [c.id, c]));
        expect(byId["http-session"]!.seen).toBe("unknown session 404; DELETE ends it (then 404)");
        expect(byId["http-origin"]!.status).toBe("pass");
        expect(byId["stdout-clean"]!.status).toBe("not-applicable");
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that takes any session id and any Origin fails both HTTP checks",
    async () => {
      const server = await startHttpServer([...HOSTILE_HTTP, "0"]);
      try {
        const { code, json } = await run(["--json", "--url", `${server.url}/mcp-sessions`]);
        expect(code).toBe(10);
        expect(failing(json).map((c) => [c.id, c.seen])).toEqual([
          ["http-session", "an unknown Mcp-Session-Id: HTTP 200, not 404"],
          ["http-origin", expect.stringContaining("HTTP 200, not 403")],
        ]);
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );
});

describe.concurrent("reports and baselines", () => {
  // One loop-cursor run, with its JUnit file, serves both report tests: the file, and the JSON report kept as a baseline.
  const junitFile = join(dir, "checks.xml");
  let loopCursor: ReturnType<typeof run> | undefined;
  const loopCursorRun = () => (loopCursor ??= run(["--json", "--junit", junitFile, "--", ...BREAKER, "loop-cursor"]));

  test(
    "--junit writes a 0600 JUnit file with a testcase per check and the failure's clause; a link there is refused",
    async () => {
      const { code } = await loopCursorRun();
      expect(code).toBe(10);
      expect(statSync(junitFile).mode & 0o777).toBe(0o600);
      const xml = readFileSync(junitFile, "utf8");
      expect(xml).toStartWith('<?xml version="1.0" encoding="UTF-8"?>');
      expect(xml.match(/<testcase /g)?.length).toBe(18);
      expect(xml).toContain('<testcase classname="mcp-inspect.test" name="pagination"><failure type="error"');
      expect(xml).toContain("server/utilities/pagination");
      const link = join(dir, "link.xml");
      const elsewhere = join(dir, "elsewhere.txt");
      writeFileSync(elsewhere, "keep");
      symlinkSync(elsewhere, link);
      const refused = await run(["--json", "--junit", link, "--", ...BREAKER]);
      expect(refused.code).toBe(1);
      expect(refused.json.error.message).toContain("is a symbolic link: not writing through it");
      expect(readFileSync(elsewhere, "utf8")).toBe("keep");
    },
    TEST_GUARD_MS,
  );

  test(
    "--baseline: a known failure does not fail the run; an entry that no longer fails does",
    async () => {
      const known = join(dir, "known.json");
      writeFileSync(known, (await loopCursorRun()).stdout);
      const again = await run(["--json", "--baseline", known, "--", ...BREAKER, "loop-cursor"]);
      expect(again.code).toBe(0);
      expect(checksOf(again.json).find((c) => c.id === "pagination")).toMatchObject({ status: "fail", known: true });
      const fixed = await run(["--json", "--baseline", known, "--", ...BREAKER]);
      expect(fixed.code).toBe(10);
      expect(failing(fixed.json).map((c) => [c.id, c.seen])).toEqual([
        ["baseline", "no longer failing (remove from the baseline): pagination"],
      ]);
    },
    TEST_GUARD_MS,
  );

  test(
    "bad input is a usage error: --params before any --call, a baseline that is not JSON",
    async () => {
      const orphan = await run(["--json", "--params", "{}", "--", ...BREAKER]);
      expect(orphan.code).toBe(1);
      expect(orphan.json.error.message).toBe("--params goes after the --call NAME or --prompt NAME it is for");
      const bad = join(dir, "bad.json");
      writeFileSync(bad, "not json");
      const baseline = await run(["--json", "--baseline", bad, "--", ...BREAKER]);
      expect(baseline.code).toBe(1);
      expect(baseline.json.error.message).toStartWith(`--baseline ${bad} is not JSON`);
      const params = await run(["--json", "--call", "count", "--params", "{nope", "--", ...BREAKER]);
      expect(params.code).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "--conformance with no node of 22 or later is a usage error naming --node, before any check runs",
    async () => {
      const nowhere = join(dir, "no-node");
      mkdirSync(nowhere, { recursive: true });
      const onPath = await run(["--json", "--conformance", "--", ...BREAKER], { env: { PATH: nowhere } });
      expect(onPath.code).toBe(1);
      expect(onPath.json.error.message).toBe("--conformance needs node 22 or later (no node on PATH): give one with --node PATH");
      const given = await run(["--json", "--conformance", "--node", join(nowhere, "node"), "--", ...BREAKER]);
      expect(given.code).toBe(1);
      expect(given.json.error.message).toContain(`${join(nowhere, "node")} does not run (ENOENT)): give one with --node PATH`);
    },
    TEST_GUARD_MS,
  );

  test(
    "--conformance with the registry unreachable: one line naming the suite and the registry, exit 2, nothing left half-installed",
    async () => {
      const cache = join(dir, "cache");
      const registry = `http://127.0.0.1:${closedPort()}/`;
      // Bun answers as the node its process.versions claims (26): a node of 22+ without a download.
      const env = { XDG_CACHE_HOME: cache, npm_config_registry: registry, npm_config_fetch_retries: "0" };
      const refused = await run(["--json", "--conformance", "--node", BUN, "--", ...BREAKER], { env });
      expect(refused.code).toBe(2);
      const message: string = refused.json.error.message;
      expect(message).toStartWith("cannot install @modelcontextprotocol/conformance@0.2.0-alpha.11 with npm (exit 1; is ");
      expect(message).toContain(`${registry} reachable?)`);
      expect(message).not.toContain("\n");
      expect(readdirSync(join(cache, "mcpkit"))).toEqual([]);
    },
    TEST_GUARD_MS,
  );
});
