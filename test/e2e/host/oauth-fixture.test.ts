// The OAuth fixture (test/fixtures/oauth-server.ts) as a script, as the suites that spawn it run
// it: it prints its MCP URL and answers 401 with where its resource metadata is. (Moved from the
// lib tier, which spawns no server; in process, the fixture is tested by every OAuth suite.)
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, readUntil } from "../../support/helpers.ts";

const T = 20_000; // generous bound against hangs, not a performance check

test(
  "oauth-server fixture runs as a script: prints its MCP URL and answers 401 with resource metadata",
  async () => {
    const child = Bun.spawn([process.execPath, join(ROOT, "test/fixtures/oauth-server.ts"), "--port", "0"], {
      stdout: "pipe",
      stderr: "ignore",
      stdin: "ignore",
    });
    try {
      const url = (await readUntil(child.stdout.getReader(), (text) => text.includes("\n"))).trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${new URL(url).origin}/meta/protected-resource"`);
      const prm = (await (await fetch(`${new URL(url).origin}/meta/protected-resource`)).json()) as { resource: string };
      expect(prm.resource).toBe(url);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
    }
  },
  T,
);
