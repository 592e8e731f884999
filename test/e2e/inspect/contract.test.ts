// `mcp-inspect snapshot` and `diff` end to end, against the rule-breaker fixture and its next
// version (contract-v2: a tool removed, a type narrowed, a parameter made required).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, inspect, REFERENCE_CMD, ROOT, TEST_GUARD_MS } from "../../support/helpers.ts";

const BREAKER = [BUN, join(ROOT, "test/fixtures/rule-breaker.ts")];
const dir = mkdtempSync(join(tmpdir(), "mcpkit-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "contract.json");

test(
  "snapshot writes the same sorted bytes every time, 0600; without --out the contract itself is stdout",
  async () => {
    const written = await inspect(["snapshot", "--out", file, "--", ...BREAKER]);
    expect(written.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const printed = await inspect(["snapshot", "--", ...BREAKER]);
    expect(printed.stdout).toBe(readFileSync(file, "utf8"));
    expect(Object.keys(printed.json)).toEqual(["capabilities", "contract", "prompts", "resourceTemplates", "resources", "server", "tools"]);
    expect(Object.keys(printed.json.tools)).toEqual(["count", "echo"]);
    expect(printed.json.tools.count.annotations).toEqual({ readOnlyHint: true });
    const reference = await inspect(["snapshot", "--", ...REFERENCE_CMD]);
    expect(reference.json.tools.add.outputSchema.properties.sum.type).toBe("number");
  },
  TEST_GUARD_MS,
);

test(
  "diff against the same server: no changes, exit 0",
  async () => {
    const { code, json } = await inspect(["diff", file, "--json", "--", ...BREAKER]);
    expect(code).toBe(0);
    expect(json.data).toEqual({ breaking: 0, compatible: 0, changes: [] });
  },
  TEST_GUARD_MS,
);

test(
  "diff against the next version: each change classified, exit 10, and the Markdown summary for a pull request",
  async () => {
    const { code, json } = await inspect(["diff", file, "--json", "--", ...BREAKER, "contract-v2"]);
    expect(code).toBe(10);
    expect(json.error.code).toBe("CHECKS_FAILED");
    expect(json.data.changes.map((c: any) => [c.impact, c.where, c.what])).toEqual([
      ["breaking", "tool echo", "removed"],
      ["breaking", "tool count, input label", "type narrowed: string|null -> string"],
      ["breaking", "tool count, input steps", "made required"],
      ["compatible", "tool count", "description changed"],
      ["compatible", "tool sum", "added"],
    ]);
    const markdown = await inspect(["diff", file, "--format", "markdown", "--", ...BREAKER, "contract-v2"]);
    expect(markdown.code).toBe(10);
    expect(markdown.stdout).toStartWith("### MCP contract changes\n\n**3 breaking**, 2 compatible changes.\n");
    expect(markdown.stdout).toContain("| ⚠️ breaking | tool echo | removed |");
    expect(markdown.stderr).toBe("error: 3 breaking change(s), first: tool echo: removed\n");
  },
  TEST_GUARD_MS,
);

test(
  "diff of two files: only additions are compatible, exit 0",
  async () => {
    const before = JSON.parse(readFileSync(file, "utf8"));
    const after = { ...before, tools: { ...before.tools, extra: { inputSchema: { type: "object" } } } };
    const next = join(dir, "next.json");
    writeFileSync(next, JSON.stringify(after));
    const { code, stdout } = await inspect(["diff", file, next, "--text"]);
    expect(code).toBe(0);
    expect(stdout).toBe("compatible  tool extra: added\n0 breaking, 1 compatible\n");
  },
  TEST_GUARD_MS,
);

test("diff's bad input is a usage error: no file, a file that is not a contract, an unknown format, no target", async () => {
  const none = await inspect(["diff", "--json"]);
  expect(none.code).toBe(1);
  expect(none.json.error.message).toStartWith("missing the contract file");
  const notContract = join(dir, "not.json");
  writeFileSync(notContract, "[]");
  expect((await inspect(["diff", notContract, file, "--json"])).json.error.message).toContain(
    "is not a contract written by mcp-inspect snapshot",
  );
  expect((await inspect(["diff", file, file, "--format", "yaml"])).code).toBe(1);
  const noTarget = await inspect(["diff", file, "--json"]);
  expect(noTarget.code).toBe(1);
  expect(noTarget.json.error.message).toContain("(or give a second contract file)");
});
