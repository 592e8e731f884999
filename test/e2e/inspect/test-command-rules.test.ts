// `mcp-inspect test` against the rule-breaker fixture, one broken rule at a time: exactly the check
// for that rule fails, for that reason, with exit 10 when its severity is error. Each run is its own
// server and inspector, so the runs go side by side (a few at once) and their waits overlap.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, inspect, lanes, ROOT, TEST_GUARD_MS } from "../../support/helpers.ts";

const BREAKER = [BUN, join(ROOT, "test/fixtures/rule-breaker.ts")];
/** For the rules whose check ends only when a request times out: the run need not wait the default minute. */
const SHORT_TIMEOUT = ["--timeout", "3000"];
const lane = lanes();
const run = (args: string[]) => lane(() => inspect(["test", "--json", ...args]));

type Check = { id: string; severity: string; status: string; seen: string };
const failing = (json: any): Check[] => json.data.checks.filter((c: Check) => c.status === "fail");

// rule broken -> the one check that fails, its severity, and what it must have seen.
const BROKEN: [string, string, "error" | "warning", string][] = [
  ["no-exit", "shutdown", "warning", "still running 5000 ms after its stdin closed (ended by SIGTERM)"],
  ["drop-concurrent", "concurrency", "error", "15 of 20 ping unanswered"],
  ["junk-stdout", "stdout-clean", "error", "rule-breaker: starting up"],
  ["bad-names", "tool-names", "warning", '"count tool!" breaks the rules; "echo" twice'],
  ["bad-schema", "schemas-valid", "error", "can't resolve reference #/$defs/nowhere"],
  ["loop-cursor", "pagination", "error", 'tools: page 2 repeats the cursor "page-2"'],
  ["unknown-method-result", "unknown-method", "error", "got a result instead of error -32601"],
  ["unknown-tool-result", "unknown-tool", "warning", "a result (isError) instead of a JSON-RPC error"],
  ["invalid-args-error", "invalid-arguments", "warning", "error -32602, not a result with isError (protocol 2025-11-25)"],
  ["bad-structured", "structured-content", "error", "count: data/counted must be integer"],
  ["ignore-cancel", "cancellation", "warning", "count went on after the cancel"],
  ["dead-resource", "resources-read", "error", "fixture://hello: resource not found"],
  ["prompt-error", "prompts-get", "error", "hello: prompts are broken"],
  ["no-completion", "completion", "error", "prompt hello, who: no completion here"],
];

describe.concurrent("each check fails on a server that breaks its rule, and only that check", () => {
  // The longest runs (three timeouts; a shutdown grace) first, so the rest overlap them.
  test(
    "no-ping: liveness and concurrency fail, and cancellation, whose ping after the cancel is never answered",
    async () => {
      const { code, json } = await run([...SHORT_TIMEOUT, "--", ...BREAKER, "no-ping"]);
      expect(code).toBe(10);
      expect(failing(json).map((c) => c.id)).toEqual(["cancellation", "liveness", "concurrency"]);
    },
    TEST_GUARD_MS,
  );

  for (const [rule, id, severity, seen] of BROKEN) {
    test(
      `${rule}: ${id} fails (${severity})`,
      async () => {
        const { code, json } = await run([...(rule === "drop-concurrent" ? SHORT_TIMEOUT : []), "--", ...BREAKER, rule]);
        const failed = failing(json);
        expect(failed.map((c) => c.id)).toEqual([id]);
        expect(failed[0]!.severity).toBe(severity);
        expect(failed[0]!.seen).toContain(seen);
        expect(code).toBe(severity === "error" ? 10 : 0);
        if (severity === "error") expect(json.error).toMatchObject({ code: "CHECKS_FAILED", message: expect.stringContaining(id) });
      },
      TEST_GUARD_MS,
    );
  }

  test(
    "call-error: the tool call fails with the server's error (and invalid arguments get that error too)",
    async () => {
      const { code, json } = await run(["--", ...BREAKER, "call-error"]);
      expect(code).toBe(10);
      expect(failing(json).map((c) => [c.id, c.seen])).toEqual([
        ["tool-calls", "count: count is broken"],
        ["invalid-arguments", expect.stringContaining("error -32603, not a result with isError")],
      ]);
    },
    TEST_GUARD_MS,
  );
});
