// Every entry script also runs under Deno (deno from the npm registry, node_modules left as npm made it).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { REFERENCE_CMD, ROOT } from "./helpers.ts";

const DENO = join(ROOT, "node_modules/.bin/deno");

test("mcp-inspect list-tools runs under deno run -A against the stdio fixture", async () => {
  const child = Bun.spawn([DENO, "run", "-A", "mcp-inspect.ts", "list-tools", "--", ...REFERENCE_CMD], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const envelope = JSON.parse(stdout);
  expect(envelope.success).toBe(true);
  expect(envelope.metadata.protocolVersion).toBe("2026-07-28");
  expect(envelope.data.tools.map((t: { name: string }) => t.name)).toContain("echo");
}, 60_000);
