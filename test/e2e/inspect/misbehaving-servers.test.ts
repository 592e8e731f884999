// mcp-inspect against stdio servers that misbehave: junk on stdout, wrong answers, exits and
// silence, signals while a call is under way, and messages over the size cap. Each test's timing
// matters (a timeout, a signal, a shutdown), so these run one at a time; commands.test.ts has the rest.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, EVERYTHING, FAULTY, inspect, REFERENCE_CMD, readUntil, TEST_GUARD_MS, toolCommand, until } from "../../support/helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("stdio servers that misbehave", () => {
  test(
    "a server that prints junk on stdout before and between messages still works",
    async () => {
      const list = await inspect(["list-tools", "--", BUN, FAULTY, "junk"]);
      expect(list.code).toBe(0);
      expect(list.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
      const call = await inspect(["call-tool", "echo", "message=hi", "--", BUN, FAULTY, "junk"]);
      expect(call.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 2025 server that answers server/discover with an empty result {} is a legacy server: initialize follows, on the same process",
    async () => {
      const list = await inspect(["list-tools", "--", BUN, FAULTY, "empty-result"]);
      expect(list.code).toBe(0);
      expect(list.json.metadata.protocolVersion).toBe("2025-11-25");
      expect(list.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-inspect through mcp-proxy to a 2025-only server: the server's -32601 to server/discover passes through as the error it is",
    async () => {
      const list = await inspect(["list-tools", "--", ...toolCommand("mcp-proxy.ts"), "--", BUN, FAULTY]);
      expect(list.code).toBe(0);
      expect(list.json.metadata.protocolVersion).toBe("2025-11-25");
      expect(list.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["echo", "restart_server"]);
    },
    TEST_GUARD_MS,
  );

  test(
    "responses to ids never sent are skipped",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "unknown-id"]);
      expect(code).toBe(0);
      expect(json.data.tools.length).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that exits at once is a connection failure that shows its stderr",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "exit-now"]);
      expect(code).toBe(2);
      expect(json.error.code).toBe("CONNECTION_FAILED");
      expect(json.error.message).toContain("exited with code 3");
      expect(json.error.details.serverStderr).toContain("boom");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that dies mid-session is a connection failure",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "die-mid"]);
      expect(code).toBe(2);
      expect(json.error.message).toContain("lost the server");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that never answers times out with exit 4",
    async () => {
      const started = Date.now();
      const { code, json } = await inspect(["list-tools", "--timeout", "1500", "--", BUN, FAULTY, "silent"]);
      expect(code).toBe(4);
      expect(json.error.code).toBe("TIMEOUT");
      expect(Date.now() - started).toBeLessThan(15_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "a command that does not exist, and a missing command after --",
    async () => {
      const missing = await inspect(["list-tools", "--", "no-such-command-mcpkit"]);
      expect(missing.code).toBe(2);
      expect(missing.json.error.message).toContain("command not found: no-such-command-mcpkit");
      const empty = await inspect(["list-tools", "--"]);
      expect(empty.code).toBe(1);
      expect(empty.json.error.message).toContain("no server given");
    },
    TEST_GUARD_MS,
  );

  test(
    "Ctrl-C cancels the call, tells the server, and exits 130",
    async () => {
      const child = Bun.spawn(
        [...toolCommand("mcp-inspect.ts"), "call-tool", "slow", "steps=100", "delayMs=100", "--verbose", "--", ...REFERENCE_CMD],
        {
          stdout: "pipe",
          stderr: "pipe",
          env: { ...process.env, NO_COLOR: "1" },
        },
      );
      // Wait for the first progress notification, so the call is under way.
      const reader = child.stderr.getReader();
      let seen = await readUntil(reader, (text) => text.includes("notifications/progress"));
      child.kill("SIGINT");
      const code = await child.exited;
      const stdout = await new Response(child.stdout).text();
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      expect(code).toBe(130);
      expect(JSON.parse(stdout).error.code).toBe("CANCELLED");
      // The server's own stderr (shown with --verbose) says the cancellation reached it.
      expect(seen).toContain("slow: cancelled after");
    },
    TEST_GUARD_MS,
  );

  test(
    "SIGHUP and a second Ctrl-C still end with an envelope, and no server is left behind",
    async () => {
      const token = `--hup-${process.pid}-${Date.now()}`;
      const child = Bun.spawn([...toolCommand("mcp-inspect.ts"), "list-tools", "--", BUN, FAULTY, "stubborn", token], {
        stdout: "pipe",
        stderr: "pipe",
      });
      // Its server is up (the token is in both command lines): mcp-inspect set its signal handlers before it spawned it.
      await until(
        () => Bun.spawnSync(["pgrep", "-f", "--", token]).stdout.toString().trim().split("\n").length >= 2,
        "both server processes",
      );
      child.kill("SIGHUP");
      // The envelope is out while the stubborn server is still being stopped: a Ctrl-C now changes nothing.
      const reader = child.stdout.getReader();
      const first = await reader.read();
      child.kill("SIGINT");
      let out = new TextDecoder().decode(first.value);
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += new TextDecoder().decode(chunk.value);
      const code = await child.exited;
      expect(code).toBe(129);
      expect(JSON.parse(out).error.code).toBe("CANCELLED");
      expect(Bun.spawnSync(["pgrep", "-f", token]).stdout.toString().trim()).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "the result is printed before the server is shut down",
    async () => {
      // The stubborn server needs SIGKILL after two grace periods; the envelope must not wait for that.
      const { json } = await inspect(["list-tools", "--timeout", "800", "--", BUN, FAULTY, "stubborn"]);
      expect(json.error.code).toBe("TIMEOUT");
      expect(json.metadata.durationMs).toBeLessThan(2_500);
    },
    TEST_GUARD_MS,
  );

  test(
    "a message over the size cap fails at once instead of looking like a timeout",
    async () => {
      const { code, json } = await inspect(["call-tool", "big", "bytes=40000000", "--", ...REFERENCE_CMD]);
      expect(code).toBe(5);
      expect(json.error.message).toContain("over the");
      expect(json.metadata.durationMs).toBeLessThan(30_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "a malformed list from the server is a protocol error",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "malformed"]);
      expect(code).toBe(5);
      expect(json.error.message).toContain("malformed");
    },
    TEST_GUARD_MS,
  );

  test(
    "the default negotiation spawns a stdio server once, for a 2026 and for a 2025 server",
    async () => {
      const counter = join(dir, "spawns");
      for (const server of [REFERENCE_CMD.join(" "), `${BUN} ${EVERYTHING}`]) {
        writeFileSync(counter, "");
        const { code } = await inspect(["list-tools", "--", "/bin/sh", "-c", `echo spawn >> ${counter}; exec ${server}`]);
        expect(code).toBe(0);
        expect(readFileSync(counter, "utf8").trim().split("\n")).toEqual(["spawn"]);
      }
    },
    TEST_GUARD_MS,
  );
});
