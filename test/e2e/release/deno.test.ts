// Every entry script also runs under Deno (deno from the npm registry, node_modules left as npm made it).
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  BUN,
  INITIALIZE,
  inspect,
  LinePeer,
  NO_VENDOR_KEYS,
  REFERENCE_CMD,
  ROOT,
  startHttpServer,
  TEST_GUARD_MS,
} from "../../support/helpers.ts";

const DENO = join(ROOT, "node_modules/.bin/deno");

async function underDeno(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  const child = Bun.spawn([DENO, "run", "-A", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...NO_VENDOR_KEYS, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

test(
  "mcp-inspect list-tools runs under deno run -A against the stdio fixture",
  async () => {
    const { stdout, stderr, code } = await underDeno(["mcp-inspect.ts", "list-tools", "--", ...REFERENCE_CMD]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const envelope = JSON.parse(stdout);
    expect(envelope.success).toBe(true);
    expect(envelope.metadata.protocolVersion).toBe("2026-07-28");
    expect(envelope.data.tools.map((t: { name: string }) => t.name)).toContain("echo");
  },
  TEST_GUARD_MS,
);

test(
  "under deno, a server that dies at once is reported with what it wrote to stderr (nothing it said is lost before the transport loads)",
  async () => {
    // A cache of its own: compiling the transport on first use is what gave the server time to die unheard.
    const denoDir = mkdtempSync("/tmp/mcpkit-deno-dir-");
    try {
      const server = ["sh", "-c", "echo 'boom: missing API key' >&2; exit 1"];
      const { stdout, code } = await underDeno(["mcp-inspect.ts", "list-tools", "--", ...server], { DENO_DIR: denoDir });
      expect(code).toBe(2);
      expect(JSON.parse(stdout).error.details).toMatchObject({ serverStderr: "boom: missing API key" });
    } finally {
      rmSync(denoDir, { recursive: true, force: true });
    }
  },
  TEST_GUARD_MS,
);

test(
  "mcp-host answers one-shot under deno run -A, its built-in reference server spawned under deno too",
  async () => {
    const { stdout, stderr, code } = await underDeno(["mcp-host.ts", "-p", "call add a=2 b=3"]);
    expect(code).toBe(0);
    expect(stderr).toContain(`connected to "mcpkit-reference" as reference (2026-07-28`);
    expect(stdout).toContain("mcp__reference__add returned: 5");
  },
  TEST_GUARD_MS,
);

test(
  "--stateful under deno: the daemon is started under deno too, and keeps the session between calls",
  async () => {
    const dir = mkdtempSync("/tmp/mcpd-deno-");
    const env = { MCPKIT_DAEMON_DIR: dir };
    try {
      const opened = await underDeno(
        ["mcp-inspect.ts", "call-tool", "begin_session", "user=deno", "--stateful", "--", BUN, join(ROOT, "test/fixtures/gated-server.ts")],
        env,
      );
      expect(opened.stderr).toBe("");
      expect(JSON.parse(opened.stdout).data.content[0].text).toBe("session open for deno");
      const listed = await underDeno(
        ["mcp-inspect.ts", "list-tools", "--stateful", "--", BUN, join(ROOT, "test/fixtures/gated-server.ts")],
        env,
      );
      expect(JSON.parse(listed.stdout).data.tools.map((t: { name: string }) => t.name)).toContain("secret_echo");
    } finally {
      await underDeno(["mcp-daemon.ts", "stop"], env);
      rmSync(dir, { recursive: true, force: true });
    }
  },
  TEST_GUARD_MS,
);

test(
  "mcp-proxy serve under deno run -A (Deno.serve): mcp-inspect --url lists and calls through it in both eras",
  async () => {
    const served = await startHttpServer([DENO, "run", "-A", join(ROOT, "mcp-proxy.ts"), "serve", "--", ...REFERENCE_CMD], {
      env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    });
    try {
      const listed = await inspect(["list-tools", "--url", served.url]);
      expect(listed.code).toBe(0);
      expect(listed.json.metadata.protocolVersion).toBe("2026-07-28");
      expect(listed.json.data.tools.map((t: { name: string }) => t.name)).toContain("echo");
      const called = await inspect(["call-tool", "echo", "message=deno", "--url", served.url, "--protocol-version", "2025-11-25"]);
      expect(called.code).toBe(0);
      expect(called.json.data.content[0].text).toBe("deno");
    } finally {
      await served.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  "mcp-proxy forwards under deno run -A (lib/io/runtime's node: fallback), a 1 MB call cut through both ways",
  async () => {
    const peer = new LinePeer([DENO, "run", "-A", "mcp-proxy.ts", "--", ...REFERENCE_CMD], { env: { DENO_NO_UPDATE_CHECK: "1" } });
    try {
      const init = await peer.request(0, "initialize", INITIALIZE("2025-11-25"));
      expect(init.result.capabilities.tools.listChanged).toBe(true);
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const message = "d".repeat(1024 * 1024);
      const echoed = await peer.request(1, "tools/call", { name: "echo", arguments: { message } });
      expect(echoed.result.content[0].text).toBe(message);
    } finally {
      await peer.close();
    }
  },
  TEST_GUARD_MS,
);
