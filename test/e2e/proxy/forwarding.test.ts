// mcp-proxy at the wire: a raw JSON-lines client drives the real entry script against real servers.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  alive,
  BUN,
  FAULTY,
  INITIALIZE,
  LinePeer,
  REFERENCE,
  ROOT,
  removeTempDirs,
  TEST_GUARD_MS,
  tempDir,
  until,
} from "../../support/helpers.ts";

const PROXY = join(ROOT, "mcp-proxy.ts");
const peers: LinePeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
  removeTempDirs();
});

function proxy(args: string[], env: Record<string, string> = {}): LinePeer {
  const peer = new LinePeer([BUN, PROXY, ...args], { env });
  peers.push(peer);
  return peer;
}

async function initialized(peer: LinePeer, version = "2025-11-25"): Promise<any> {
  const answer = await peer.request(0, "initialize", INITIALIZE(version));
  peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return answer;
}

const pidOf = async (peer: LinePeer, id: string | number) =>
  Number((await peer.request(id, "tools/call", { name: "whoami", arguments: {} })).result.content[0].text);

describe("transparent forwarding", () => {
  test(
    "initialize gains tools.listChanged and keeps the rest; tools/list gains restart_server last",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      const init = await initialized(peer);
      expect(init.result.capabilities.tools.listChanged).toBe(true);
      expect(init.result.capabilities.resources).toEqual({ listChanged: true, subscribe: true });
      expect(init.result.serverInfo.name).toBe("mcpkit-reference");
      const tools = (await peer.request("list", "tools/list")).result.tools;
      expect(tools.at(-1).name).toBe("restart_server");
      expect(tools.map((t: { name: string }) => t.name)).toContain("echo");
    },
    TEST_GUARD_MS,
  );

  test(
    "options, then the server command without `--` (as Gemini CLI's mcp add writes it): a flag's value is not taken for it",
    async () => {
      const peer = proxy(["--log-level", "warn", "--max-restarts", "2", BUN, REFERENCE]);
      expect((await initialized(peer)).result.serverInfo.name).toBe("mcpkit-reference");
    },
    TEST_GUARD_MS,
  );

  test(
    "other messages pass byte for byte, ids keep their type, unknown methods and fields pass",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      peer.send(
        '{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"echo","arguments":{"message":"caf\\u00e9 1.0"},"x-extra":true}}',
      );
      peer.send({ jsonrpc: "2.0", id: 7, method: "no/such/method", params: {} });
      await peer.waitFor(() => peer.responseTo("7") && peer.responseTo(7));
      expect(peer.responseTo("7").result.content[0].text).toBe("café 1.0");
      expect(peer.responseTo(7).error.code).toBe(-32601);
      // The server's own bytes reach us unchanged (the SDK puts "result" before "jsonrpc").
      expect(peer.rawLines.find((line) => line.includes("café 1.0"))!.startsWith('{"result"')).toBe(true);
    },
    TEST_GUARD_MS,
  );

  test(
    "junk on the server's stdout never reaches the client, and the session works",
    async () => {
      const peer = proxy(["--", BUN, FAULTY, "junk"]);
      await initialized(peer);
      const call = await peer.request(1, "tools/call", { name: "echo", arguments: { message: "clean" } });
      expect(call.result.content[0].text).toBe("clean");
      expect(peer.rawLines.every((line) => JSON.parse(line).jsonrpc === "2.0")).toBe(true);
    },
    TEST_GUARD_MS,
  );

  test(
    "JSON that is not JSON-RPC gets an invalid-request error with its id; an id like ours is still the client's",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      peer.send({ id: 5, hello: "world" });
      await peer.waitFor(() => peer.responseTo(5) !== undefined);
      expect(peer.responseTo(5).error.code).toBe(-32600);
      const mimic = await peer.request("mcp-proxy-1", "tools/call", { name: "echo", arguments: { message: "mine" } });
      expect(mimic.result.content[0].text).toBe("mine");
    },
    TEST_GUARD_MS,
  );

  test(
    "malformed JSON from the client gets a parse error and the session goes on",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      peer.send("{this is not json");
      await peer.waitFor(() => peer.messages.some((m) => m.error?.code === -32700));
      await initialized(peer);
      expect((await peer.request(2, "ping")).result).toEqual({});
    },
    TEST_GUARD_MS,
  );

  test(
    "`mcp-proxy -- server --help` gives --help to the server, not to the proxy",
    async () => {
      const peer = proxy(["--", BUN, FAULTY, "junk", "--help"]);
      const init = await initialized(peer);
      expect(init.result.instructions).toBe('argv: ["junk","--help"]');
    },
    TEST_GUARD_MS,
  );

  test(
    "a streamed message over the 32 MB cap passes whole each way; a held one over it is answered with an error, never left hanging",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      const message = "m".repeat(40 * 1024 * 1024);
      const echoed = await peer.request("huge-in", "tools/call", { name: "echo", arguments: { message } });
      expect(echoed.result.content[0].text.length).toBe(message.length);
      const out = await peer.request("huge-out", "tools/call", { name: "big", arguments: { bytes: 40_000_000 } });
      expect(out.result.content[0].text.length).toBe(40_000_000);
      // A request the proxy reads whole is held, so the cap applies to it.
      peer.send({ jsonrpc: "2.0", id: "held-in", method: "logging/setLevel", params: { level: "info", pad: message } });
      await peer.waitFor(() => peer.responseTo("held-in") !== undefined);
      expect(peer.responseTo("held-in").error.message).toContain("over the");
      // An answer under a reused id is held (its id is rewritten), so the cap applies to it too.
      peer.send({ jsonrpc: "2.0", id: "dup", method: "tools/call", params: { name: "slow", arguments: { steps: 20, delayMs: 100 } } });
      peer.send({ jsonrpc: "2.0", id: "dup", method: "tools/call", params: { name: "big", arguments: { bytes: 40_000_000 } } });
      await peer.waitFor(() => peer.messages.some((m) => m.id === "dup" && m.error));
      expect(peer.messages.find((m) => m.id === "dup" && m.error).error.message).toContain("over the");
      expect((await peer.request("after", "ping")).result).toEqual({});
      expect(peer.unparsed).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "long answers stream while a tools/list is pending, which is still patched; one under a reused id comes back under the client's",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "r", method: "tools/call", params: { name: "slow", arguments: { steps: 10, delayMs: 100 } } });
      peer.send({ jsonrpc: "2.0", id: "r", method: "tools/call", params: { name: "big", arguments: { bytes: 1_000_000 } } });
      peer.send({ jsonrpc: "2.0", id: "list", method: "tools/list" });
      const [big] = await Promise.all([
        peer.request("big", "tools/call", { name: "big", arguments: { bytes: 2_000_000 } }),
        peer.waitFor(() => peer.messages.filter((m) => m.id === "r").length === 2 && peer.responseTo("list")),
      ]);
      expect(big.result.content[0].text.length).toBe(2_000_000);
      expect(peer.responseTo("list").result.tools.at(-1).name).toBe("restart_server");
      const lengths = peer.messages.filter((m) => m.id === "r").map((m) => m.result.content[0].text.length);
      expect(lengths).toContain(1_000_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that dies in the middle of a streamed answer: the line is ended for the client, and the request gets the crash error",
    async () => {
      const peer = proxy(["--no-auto-restart", "--", BUN, FAULTY, "half-answer"]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "half", method: "tools/call", params: { name: "echo", arguments: { message: "x" } } });
      await peer.waitFor(() => peer.responseTo("half") !== undefined);
      expect(peer.unparsed).toHaveLength(1);
      expect(peer.unparsed[0]!.length).toBeGreaterThan(1024 * 1024);
      expect(peer.responseTo("half").error.code).toBe(-32011);
      expect(peer.rawLines.indexOf(peer.unparsed[0]!)).toBeLessThan(peer.rawLines.findIndex((line) => line.includes('"half"')));
    },
    TEST_GUARD_MS,
  );

  test(
    "a 20 MB message passes each way",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      const message = "m".repeat(20 * 1024 * 1024);
      const answer = await peer.request(3, "tools/call", { name: "echo", arguments: { message } });
      expect(answer.result.content[0].text.length).toBe(message.length);
    },
    TEST_GUARD_MS,
  );
});

describe("the server's environment", () => {
  const envOf = async (peer: LinePeer, name: string) =>
    (await peer.request(`env-${name}`, "tools/call", { name: "env", arguments: { name } })).result.content[0].text;

  test(
    "a server given as -- cmd gets the proxy's whole environment: what the client configured for it",
    async () => {
      const peer = proxy(["--", BUN, FAULTY], { API_KEY: "from-the-client-config" });
      await initialized(peer);
      expect(await envOf(peer, "API_KEY")).toBe("from-the-client-config");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server from --config gets the minimal set plus its entry's env, as in the other tools",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-proxy-env-"));
      try {
        const config = join(dir, "mcp.json");
        writeFileSync(config, JSON.stringify({ mcpServers: { s: { command: BUN, args: [FAULTY], env: { FROM_ENTRY: "entry-value" } } } }));
        const peer = proxy(["--config", config, "--server", "s"], { API_KEY: "stays-behind" });
        await initialized(peer);
        expect(await envOf(peer, "FROM_ENTRY")).toBe("entry-value");
        expect(await envOf(peer, "API_KEY")).toBe("(unset)");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TEST_GUARD_MS,
  );
});

describe("restarts", () => {
  test(
    "restart_server reports duration and tool diff, re-initializes the new process and announces list changes",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
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
      const peer = proxy(["--", BUN, REFERENCE]);
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
      const peer = proxy(["--", BUN, REFERENCE]);
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
      const peer = proxy(["--", BUN, REFERENCE]);
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
      const peer = proxy(["--restart-delay", "50", "--", BUN, REFERENCE]);
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
      const peer = proxy(["--restart-delay", "10", "--max-restarts", "1", "--", BUN, REFERENCE]);
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
      const peer = proxy(["--", BUN, REFERENCE]);
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
      const peer = proxy(["--no-auto-restart", "--", BUN, REFERENCE]);
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

describe("lifecycle", () => {
  test(
    "stdin EOF ends the proxy and its server, the server's own children included",
    async () => {
      const marker = `sleep ${31_000 + Math.floor(Math.random() * 999)}`;
      const peer = proxy(["--", "/bin/sh", "-c", `${marker} & exec ${BUN} ${REFERENCE}`]);
      await initialized(peer);
      const serverPid = await pidOf(peer, 1);
      peers.splice(peers.indexOf(peer), 1);
      expect(await peer.close()).toBe(0);
      await until(() => !alive(serverPid), "the server process to go");
      const leftover = Bun.spawnSync(["pgrep", "-f", "--", marker]).stdout.toString().trim();
      expect(leftover).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "the client closing stdin mid-restart leaves nothing behind",
    async () => {
      const token = `--mid-restart-${process.pid}-${Date.now()}`;
      const peer = proxy(["--", BUN, REFERENCE, token]);
      await initialized(peer);
      const serverPid = await pidOf(peer, 1);
      peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "restart_server", arguments: {} } });
      peers.splice(peers.indexOf(peer), 1);
      await peer.close();
      await until(() => !alive(serverPid), "the server process to go");
      expect(Bun.spawnSync(["pgrep", "-f", "--", token]).stdout.toString().trim()).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "stdin closing mid-restart: the restart and the request queued behind it are answered, then the proxy exits",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "r", method: "tools/call", params: { name: "restart_server", arguments: {} } });
      peer.send({ jsonrpc: "2.0", id: "after", method: "tools/list", params: {} });
      peers.splice(peers.indexOf(peer), 1);
      expect(await peer.close()).toBe(0);
      expect(peer.responseTo("r").result.isError).toBe(false);
      expect(peer.responseTo("after").result.tools.length).toBeGreaterThan(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a grandchild that ignores SIGTERM is killed with the group, and does not hold the proxy up",
    async () => {
      const marker = `sleep ${32_000 + Math.floor(Math.random() * 999)}`;
      const peer = proxy(["--", "/bin/sh", "-c", `trap '' TERM; ${marker} & exec ${BUN} ${REFERENCE}`]);
      await initialized(peer);
      peers.splice(peers.indexOf(peer), 1);
      const started = Date.now();
      await peer.close();
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(Bun.spawnSync(["pgrep", "-f", "--", marker]).stdout.toString().trim()).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "SIGTERM exits 143 and stops the server",
    async () => {
      const peer = proxy(["--", BUN, REFERENCE]);
      await initialized(peer);
      const serverPid = await pidOf(peer, 1);
      peer.child.kill("SIGTERM");
      expect(await peer.child.exited).toBe(143);
      await until(() => !alive(serverPid), "the server process to go");
    },
    TEST_GUARD_MS,
  );

  test(
    "bad flags are one line on stderr and exit 1, with nothing on stdout",
    async () => {
      for (const [args, fragment] of [
        [["--max-restarts", "many", "--", "x"], "--max-restarts takes a whole number of at least 0"],
        [["--log-level", "loud", "--", "x"], '--log-level takes one of silent, error, warn, info, debug, trace, not "loud"'],
        [["--bogus", "--", "x"], "unknown option --bogus"],
        [[], "no server given"],
      ] as const) {
        const child = Bun.spawn([BUN, PROXY, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
        const [stdout, stderr, code] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.exited,
        ]);
        expect(code).toBe(1);
        expect(stdout).toBe("");
        expect(stderr).toContain(fragment);
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "reloaderoo's environment variables are honoured, and flags win",
    async () => {
      const peer = proxy([], {
        MCPDEV_PROXY_CHILD_CMD: BUN,
        MCPDEV_PROXY_CHILD_ARGS: JSON.stringify([FAULTY, "junk", "from env"]),
        MCPDEV_PROXY_LOG_LEVEL: "debug",
      });
      const init = await initialized(peer);
      expect(init.result.instructions).toBe('argv: ["junk","from env"]');
      const quiet = proxy(["--log-level", "error", "--", BUN, FAULTY, "junk"], { MCPDEV_PROXY_LOG_LEVEL: "debug" });
      await initialized(quiet);
      expect(quiet.stderr).not.toContain("proxying");
      expect(peer.stderr).toContain("proxying");
    },
    TEST_GUARD_MS,
  );

  test(
    "MCPDEV_PROXY_DEBUG_MODE=true means debug logging; reloaderoo's users type `mcpkit proxy` and `mcpkit inspect`",
    async () => {
      const debug = proxy(["--", BUN, REFERENCE], { MCPDEV_PROXY_DEBUG_MODE: "true" });
      await initialized(debug);
      // The same id twice in flight is logged at debug level only.
      debug.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 50 } } });
      debug.send({ jsonrpc: "2.0", id: 9, method: "ping" });
      await debug.waitFor(() => debug.messages.filter((m) => m.id === 9).length === 2);
      expect(debug.stderr).toContain("debug: the client reused id 9");
      const viaMcpkit = new LinePeer([BUN, join(ROOT, "mcpkit.ts"), "proxy", "--", BUN, REFERENCE]);
      peers.push(viaMcpkit);
      expect((await initialized(viaMcpkit)).result.serverInfo.name).toBe("mcpkit-reference");
      const inspected = Bun.spawnSync([BUN, join(ROOT, "mcpkit.ts"), "inspect", "list-tools", "--", BUN, REFERENCE]);
      expect(JSON.parse(inspected.stdout.toString()).data.tools.length).toBeGreaterThan(5);
    },
    TEST_GUARD_MS,
  );
});

describe("watch", () => {
  test(
    "a changed file restarts the server; a failed --build keeps the old one and says why",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-watch-"));
      const source = join(dir, "server.ts");
      writeFileSync(source, "v1");
      const flag = join(dir, "build-fails");
      const build = `test ! -e ${flag}`;
      const peer = proxy(["--watch", `${dir}/*.ts`, "--debounce", "100", "--build", build, "--log-level", "debug", "--", BUN, REFERENCE]);
      await initialized(peer);
      const first = await pidOf(peer, 1);

      writeFileSync(source, "v2");
      await peer.waitFor(() => peer.stderr.includes("is back"), 20_000, "a restart after the change");
      const second = await pidOf(peer, 2);
      expect(second).not.toBe(first);

      writeFileSync(flag, "");
      writeFileSync(source, "v3");
      await peer.waitFor(
        () => peer.messages.some((m) => m.method === "notifications/message" && m.params.level === "error"),
        20_000,
        "the build failure",
      );
      const note = peer.messages.find((m) => m.method === "notifications/message");
      expect(note.params.data).toContain("build failed");
      expect(await pidOf(peer, 3)).toBe(second);

      writeFileSync(join(dir, "notes.txt"), "not matched by the glob");
      // The watcher saw it and set it aside: no restart is on its way.
      await peer.waitFor(() => /ignored a change to \S*notes\.txt \(not matched by .*; 0 change\(s\) pending\)/.test(peer.stderr));
      expect(await pidOf(peer, 4)).toBe(second);
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "a --build that writes inside the watched tree does not restart in a loop: one change, at most one more round",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-watch-"));
      const count = join(dir, "builds");
      writeFileSync(join(dir, "server.ts"), "v1");
      // The build writes an output file inside the tree it is watched in, as many builds do.
      const build = `echo build >> ${count}; echo out > ${dir}/out.ts`;
      mkdirSync(join(dir, ".git"));
      const peer = proxy(["--watch", dir, "--debounce", "50", "--build", build, "--log-level", "debug", "--", BUN, REFERENCE]);
      await initialized(peer);
      writeFileSync(join(dir, "server.ts"), "v2");
      // Settled: the rounds are over, and a change in .git (ignored) made after that is seen with no
      // change waiting. File events arrive in order, so every change the builds made was seen before
      // it: nothing is left that could start another build.
      const rebuilding = () => peer.stderr.lastIndexOf("building:") > peer.stderr.lastIndexOf("watching again after");
      for (let marker = 0; ; marker++) {
        await peer.waitFor(() => peer.stderr.includes("watching again after") && !rebuilding());
        writeFileSync(join(dir, ".git", `marker-${marker}`), "");
        const seen = new RegExp(`ignored a change to \\S*marker-${marker} \\(an ignored folder; (\\d+) change`);
        await peer.waitFor(() => seen.test(peer.stderr));
        if (seen.exec(peer.stderr)![1] === "0" && !rebuilding()) break;
      }
      const builds = readFileSync(count, "utf8").trim().split("\n").length;
      expect(builds).toBeGreaterThanOrEqual(1);
      expect(builds).toBeLessThanOrEqual(2);
      expect((peer.stderr.match(/is back/g) ?? []).length).toBe(builds);
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "a single watched file keeps working across editor-style saves (write elsewhere, rename over)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-watch-"));
      const source = join(dir, "server.js");
      writeFileSync(source, "v1");
      const peer = proxy(["--watch", source, "--debounce", "100", "--", BUN, REFERENCE]);
      await initialized(peer);
      let pid = await pidOf(peer, "p0");
      for (let save = 1; save <= 2; save++) {
        const temp = join(dir, `.server.js.${save}.tmp`);
        writeFileSync(temp, `v${save + 1}`);
        renameSync(temp, source);
        const restarts = (peer.stderr.match(/is back/g) ?? []).length;
        await peer.waitFor(() => (peer.stderr.match(/is back/g) ?? []).length > restarts, 20_000, `a restart after save ${save}`);
        const next = await pidOf(peer, `p${save}`);
        expect(next).not.toBe(pid);
        pid = next;
      }
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );
});
