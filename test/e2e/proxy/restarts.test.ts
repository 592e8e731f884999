// mcp-proxy's restarts, at the wire: restart_server, automatic restarts after a crash and the
// circuit breaker, and what becomes of requests, ids and subscriptions in flight across a restart.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, BUN, FAULTY, REFERENCE_CMD, removeTempDirs, TEST_GUARD_MS, tempDir } from "../../support/helpers.ts";
import { closeProxies, initialized, pidOf, proxy } from "../../support/proxy-peer.ts";

afterEach(async () => {
  await closeProxies();
  removeTempDirs();
});

describe("restarts", () => {
  test(
    "restart_server reports duration and tool diff, re-initializes the new process and announces list changes",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      await initialized(peer);
      const before = await pidOf(peer, 1);
      const report = await peer.request(2, "tools/call", { name: "restart_server", arguments: {} });
      expect(report.result.isError).toBe(false);
      expect(report.result.structuredContent).toMatchObject({ ok: true, tools: { added: [], removed: [], changed: [] } });
      expect(report.result.structuredContent.durationMs).toBeGreaterThan(0);
      expect(peer.messages.some((m) => m.method === "notifications/tools/list_changed")).toBe(true);
      const after = await pidOf(peer, 3);
      expect(after).not.toBe(before);
      expect(alive(before)).toBe(false);
    },
    TEST_GUARD_MS,
  );

  test(
    "50 restart_server calls at once coalesce into one restart and all are answered",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      await initialized(peer);
      const before = await pidOf(peer, "before");
      for (let i = 0; i < 50; i++)
        peer.send({ jsonrpc: "2.0", id: `r${i}`, method: "tools/call", params: { name: "restart_server", arguments: {} } });
      await peer.waitFor(() => Array.from({ length: 50 }, (_, i) => peer.responseTo(`r${i}`)).every(Boolean));
      const durations = new Set(Array.from({ length: 50 }, (_, i) => peer.responseTo(`r${i}`).result.structuredContent.durationMs));
      expect(durations.size).toBe(1);
      expect(peer.stderr.match(/restarting the server/g)?.length).toBe(1);
      expect(await pidOf(peer, "after")).not.toBe(before);
    },
    TEST_GUARD_MS,
  );

  test(
    "1,000 requests in flight across a restart are each answered exactly once",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      await initialized(peer);
      const ids: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const id = `q${i}`;
        ids.push(id);
        // Lists are repeated on the new process; slow tool calls are answered with an error.
        if (i % 10 === 0)
          peer.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 200 } } });
        else peer.send({ jsonrpc: "2.0", id, method: i % 2 ? "tools/list" : "prompts/list", params: {} });
        if (i === 500)
          peer.send({ jsonrpc: "2.0", id: "restart", method: "tools/call", params: { name: "restart_server", arguments: {} } });
      }
      await peer.waitFor(() => peer.responseTo("restart") && ids.every((id) => peer.responseTo(id)), 40_000, "1000 answers");
      // A barrier: a ping sent now is answered after anything still on its way (a second answer among them).
      await peer.request("barrier", "ping");
      for (const id of ids) {
        const answers = peer.messages.filter((m) => m.id === id);
        expect(answers.length).toBe(1);
        const method = Number(id.slice(1)) % 10 === 0 ? "tools/call" : "list";
        if (method === "list") expect(answers[0].result).toBeDefined();
        else expect(answers[0].result ?? answers[0].error).toBeDefined();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "a subscriptions/listen re-sent across a restart is acknowledged to the client once",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "wire-test", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const acks = (id: string) =>
        peer.messages.filter(
          (m) =>
            m.method === "notifications/subscriptions/acknowledged" && m.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === id,
        );
      peer.send({
        jsonrpc: "2.0",
        id: "sub",
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta },
      });
      await peer.waitFor(() => acks("sub").length === 1, 20_000, "the first acknowledgement");
      const restart = await peer.request("restart", "tools/call", { name: "restart_server", arguments: {}, _meta });
      expect(restart.result.isError).toBe(false);
      // The re-sent listen is live on the new process: its list_changed reaches the stream.
      await peer.waitFor(() =>
        peer.messages.some(
          (m) => m.method === "notifications/tools/list_changed" && m.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === "sub",
        ),
      );
      const echo = await peer.request("after", "tools/call", { name: "echo", arguments: { message: "still here" }, _meta });
      expect(echo.result.content[0].text).toBe("still here");
      expect(acks("sub").length).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a crashed server is restarted automatically; requests keep being answered",
    async () => {
      const peer = proxy(["--restart-delay", "50", "--", ...REFERENCE_CMD]);
      await initialized(peer);
      const before = await pidOf(peer, 1);
      await peer.request(2, "tools/call", { name: "crash", arguments: {} });
      await peer.waitFor(() => peer.stderr.includes("exited with code 7"), 20_000, "the crash");
      const after = await pidOf(peer, 3);
      expect(after).not.toBe(before);
    },
    TEST_GUARD_MS,
  );

  test(
    "a crash loop opens the circuit breaker: requests get a clear error, and restart_server closes it",
    async () => {
      const peer = proxy(["--restart-delay", "10", "--max-restarts", "2", "--", BUN, FAULTY, "exit-now"]);
      await peer.waitFor(() => peer.stderr.includes("not restarting it"), 20_000, "the circuit breaker");
      const refused = await peer.request(1, "tools/list");
      expect(refused.error.message).toContain("crashed 3 times");
      expect(refused.error.message).toContain("restart_server");
      // A manual restart is allowed through; this server dies again at once, so the circuit reopens.
      const manual = await peer.request(2, "tools/call", { name: "restart_server", arguments: {} });
      expect(manual.result.content[0].text).toContain("Restarted");
      await peer.waitFor(() => (peer.stderr.match(/not restarting it/g)?.length ?? 0) >= 2, 20_000, "the breaker to trip again");
      expect((await peer.request(3, "tools/list")).error.message).toContain("crashed");
    },
    TEST_GUARD_MS,
  );

  test(
    "a manual restart resets the breaker: the next single crash is restarted again",
    async () => {
      const peer = proxy(["--restart-delay", "10", "--max-restarts", "1", "--", ...REFERENCE_CMD]);
      await initialized(peer);
      const crash = async (id: string) => {
        await peer.request(id, "tools/call", { name: "crash", arguments: {} });
        const crashes = (peer.stderr.match(/exited with code 7/g) ?? []).length;
        await peer.waitFor(() => (peer.stderr.match(/exited with code 7/g) ?? []).length > crashes, 20_000, "the crash");
      };
      await crash("c1");
      await pidOf(peer, "after-1");
      await crash("c2");
      await peer.waitFor(() => peer.stderr.includes("not restarting it"), 20_000, "the breaker");
      expect((await peer.request("r", "tools/call", { name: "restart_server", arguments: {} })).result.isError).toBe(false);
      await crash("c3");
      expect(await pidOf(peer, "after-3")).toBeGreaterThan(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "the server's own requests get ids unique across restarts; the old ones are cancelled and their answers dropped",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "e1", method: "tools/call", params: { name: "elicit", arguments: {} } });
      await peer.waitFor(() => peer.messages.some((m) => m.method === "elicitation/create"));
      const first = peer.messages.find((m) => m.method === "elicitation/create");
      expect((await peer.request("r", "tools/call", { name: "restart_server", arguments: {} })).result.isError).toBe(false);
      expect(peer.responseTo("e1").error.message).toContain("not repeated");
      expect(peer.messages.some((m) => m.method === "notifications/cancelled" && m.params.requestId === first.id)).toBe(true);
      peer.send({ jsonrpc: "2.0", id: "e2", method: "tools/call", params: { name: "elicit", arguments: {} } });
      await peer.waitFor(() => peer.messages.filter((m) => m.method === "elicitation/create").length === 2);
      const second = peer.messages.filter((m) => m.method === "elicitation/create")[1];
      expect(second.id).not.toBe(first.id);
      // A late answer to the old question must not be taken as the answer to the new one.
      peer.send({ jsonrpc: "2.0", id: first.id, result: { action: "accept", content: { name: "Stale" } } });
      peer.send({ jsonrpc: "2.0", id: second.id, result: { action: "accept", content: { name: "Fresh" } } });
      await peer.waitFor(() => peer.responseTo("e2") !== undefined);
      expect(JSON.parse(peer.responseTo("e2").result.content[0].text).content.name).toBe("Fresh");
    },
    TEST_GUARD_MS,
  );

  test(
    "--no-auto-restart: after a crash, requests are answered with an error instead of hanging",
    async () => {
      const peer = proxy(["--no-auto-restart", "--", ...REFERENCE_CMD]);
      await initialized(peer);
      await peer.request(1, "tools/call", { name: "crash", arguments: {} });
      await peer.waitFor(() => peer.stderr.includes("exited with code 7"));
      const refused = await peer.request(2, "tools/list");
      expect(refused.error.message).toContain("automatic restart is off");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that never answers initialize after a restart: restart-timeout, and every waiting request is answered",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-proxy-"));
      const marker = join(dir, "marker");
      const peer = proxy(["--restart-timeout", "500", "--", BUN, FAULTY, "silent-after-first", marker]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "restart", method: "tools/call", params: { name: "restart_server", arguments: {} } });
      peer.send({ jsonrpc: "2.0", id: "queued", method: "tools/list", params: {} });
      await peer.waitFor(() => peer.responseTo("restart") && peer.responseTo("queued"));
      expect(peer.responseTo("restart").result.isError).toBe(true);
      expect(peer.responseTo("restart").result.content[0].text).toContain("no answer within 500 ms");
      expect(peer.responseTo("queued").error.message).toContain("did not come back");
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "a tasks/get in flight across a restart is sent again to the new process (it changes nothing) and answered once",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-proxy-"));
      const peer = proxy(["--", BUN, FAULTY, "tasks-after-first", join(dir, "marker")]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "t1", method: "tasks/get", params: { taskId: "task-1" } });
      // The first process reads lines in order: once the ping is answered, it holds t1 unanswered.
      await peer.request("barrier", "ping");
      expect(peer.responseTo("t1")).toBeUndefined();
      await peer.request("restart", "tools/call", { name: "restart_server", arguments: {} });
      await peer.waitFor(() => peer.responseTo("t1"));
      expect(peer.responseTo("t1").result).toMatchObject({ taskId: "task-1", status: "working" });
      await peer.request("after", "ping");
      expect(peer.messages.filter((m) => m.id === "t1")).toHaveLength(1);
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "a server dying mid-response: the request is answered, retried on the restarted server or refused once it keeps dying, never lost",
    async () => {
      // A crash the restart cures: the safe-to-repeat tools/list is sent again and answered by the new process.
      const marker = join(tempDir("mcpkit-die-once-"), "first");
      const cured = proxy(["--restart-delay", "10", "--max-restarts", "2", "--", BUN, FAULTY, "die-mid-once", marker]);
      await initialized(cured);
      const retried = await cured.request(1, "tools/list");
      expect(retried.error).toBeUndefined();
      expect(retried.result.tools.map((tool: { name: string }) => tool.name)).toContain("echo");
      expect(cured.stderr).toContain("die-mid: exiting on tools/list");

      // A crash every time: once restarts run out, the request gets its error instead of waiting forever.
      const dying = proxy(["--restart-delay", "10", "--max-restarts", "2", "--", BUN, FAULTY, "die-mid"]);
      await initialized(dying);
      const refused = await dying.request(1, "tools/list");
      expect(refused.error.message).toContain("crashed");
    },
    TEST_GUARD_MS,
  );
});
