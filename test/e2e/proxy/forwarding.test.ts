// mcp-proxy at the wire, forwarding: a raw JSON-lines client drives the real entry script against
// real servers; what passes through as it is, what the proxy patches, messages over the size cap,
// and the environment the server gets. restarts.test.ts and lifecycle.test.ts drive it the same way.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, FAULTY, type LinePeer, REFERENCE_CMD, TEST_GUARD_MS } from "../../support/helpers.ts";
import { closeProxies, initialized, proxy } from "../../support/proxy-peer.ts";

afterEach(async () => {
  await closeProxies();
});

describe("transparent forwarding", () => {
  test(
    "initialize gains tools.listChanged and keeps the rest; tools/list gains restart_server last",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
      const peer = proxy(["--log-level", "warn", "--max-restarts", "2", ...REFERENCE_CMD]);
      expect((await initialized(peer)).result.serverInfo.name).toBe("mcpkit-reference");
    },
    TEST_GUARD_MS,
  );

  test(
    "other messages pass byte for byte, ids keep their type, unknown methods and fields pass",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
      const peer = proxy(["--", ...REFERENCE_CMD]);
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
