// Every entry script also runs under Deno (deno from the npm registry, node_modules left as npm made it).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { NO_VENDOR_KEYS, REFERENCE_CMD, ROOT } from "./helpers.ts";

const DENO = join(ROOT, "node_modules/.bin/deno");

async function underDeno(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const child = Bun.spawn([DENO, "run", "-A", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...NO_VENDOR_KEYS, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

test("mcp-inspect list-tools runs under deno run -A against the stdio fixture", async () => {
  const { stdout, stderr, code } = await underDeno(["mcp-inspect.ts", "list-tools", "--", ...REFERENCE_CMD]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const envelope = JSON.parse(stdout);
  expect(envelope.success).toBe(true);
  expect(envelope.metadata.protocolVersion).toBe("2026-07-28");
  expect(envelope.data.tools.map((t: { name: string }) => t.name)).toContain("echo");
}, 60_000);

test("mcp-host answers one-shot under deno run -A, its built-in reference server spawned under deno too", async () => {
  const { stdout, stderr, code } = await underDeno(["mcp-host.ts", "-p", "call add a=2 b=3"]);
  expect(code).toBe(0);
  expect(stderr).toContain(`connected to "mcpkit-reference" as reference (2026-07-28`);
  expect(stdout).toContain("mcp__reference__add returned: 5");
}, 60_000);
