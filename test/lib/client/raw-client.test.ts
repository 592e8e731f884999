import { describe, expect, test } from "bun:test";
import { McpError, RawClient } from "../../../lib/client/raw-client.ts";
import type { MessageChannel } from "../../../lib/transport/channel.ts";
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from "../../../lib/wire/jsonrpc.ts";
import { until } from "../../support/helpers.ts";

/** A channel whose peer is a function: each request gets the function's answer, or none. */
class ScriptedChannel implements MessageChannel {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: (reason?: string) => void;
  readonly sent: JsonRpcMessage[] = [];
  starts = 0;
  constructor(
    readonly answer: (request: JsonRpcRequest) => JsonObject | { error: { code: number; message: string; data?: unknown } } | undefined,
  ) {}
  async start() {
    this.starts++;
  }
  async send(message: JsonRpcMessage) {
    this.sent.push(message);
    if (!("method" in message) || !("id" in message)) return;
    const reply = this.answer(message as JsonRpcRequest);
    if (reply === undefined) return;
    const response =
      "error" in reply && typeof reply.error === "object"
        ? { jsonrpc: "2.0" as const, id: message.id, error: reply.error as { code: number; message: string } }
        : { jsonrpc: "2.0" as const, id: message.id, result: reply as JsonObject };
    queueMicrotask(() => this.onmessage?.(response));
  }
  push(message: JsonRpcMessage) {
    this.onmessage?.(message);
  }
  async close() {
    this.onclose?.("closed by test");
  }
  methods() {
    return this.sent.filter((m) => "method" in m).map((m) => (m as { method: string }).method);
  }
}

const info = { name: "test", version: "0" };
const legacyServer = (request: JsonRpcRequest) => {
  if (request.method === "server/discover") return { error: { code: -32601, message: "Method not found" } };
  if (request.method === "initialize")
    return { protocolVersion: request.params!.protocolVersion as string, capabilities: { tools: {} }, serverInfo: { name: "old" } };
  return {};
};

describe("request ids", () => {
  test("two clients (two processes' worth) start their ids apart, so a retry made later never reuses an earlier id", async () => {
    const firstIds = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const channel = new ScriptedChannel(legacyServer);
        await new RawClient(channel, { clientInfo: info }).connect();
        return (channel.sent.find((m) => "id" in m) as { id: unknown }).id;
      }),
    );
    expect(new Set(firstIds).size).toBe(8);
    for (const id of firstIds) expect(Number.isSafeInteger(id)).toBe(true);
  });
});

describe("era negotiation", () => {
  const refusedOnce = () => {
    let discovers = 0;
    const channel = new ScriptedChannel((request) => {
      if (request.method !== "server/discover") return { tools: [] };
      if (++discovers === 1)
        return {
          error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"], requested: "2026-07-28" } },
        };
      return { supportedVersions: ["2026-07-28"], capabilities: {} };
    });
    return { channel, discovers: () => discovers };
  };

  test("-32022 naming a version we speak (even the one refused) is retried once, and the retry is the session", async () => {
    const { channel, discovers } = refusedOnce();
    expect(await new RawClient(channel, { clientInfo: info }).connect()).toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    expect(discovers()).toBe(2);
  });

  test("-32022 every time is retried once, not forever", async () => {
    let discovers = 0;
    const channel = new ScriptedChannel((request) => {
      if (request.method === "server/discover") {
        discovers++;
        return { error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } } };
      }
      return legacyServer(request);
    });
    await new RawClient(channel, { clientInfo: info }).connect().catch(() => {});
    expect(discovers).toBe(2);
  });

  test("a modern server answers server/discover; later requests carry the _meta envelope", async () => {
    const channel = new ScriptedChannel((request) =>
      request.method === "server/discover"
        ? {
            supportedVersions: ["2026-07-28"],
            capabilities: { tools: {} },
            instructions: "hi",
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "new" } },
          }
        : { tools: [] },
    );
    const client = new RawClient(channel, { clientInfo: info });
    expect(await client.connect()).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
      serverInfo: { name: "new" },
      instructions: "hi",
    });
    await client.request("tools/list");
    const meta = (channel.sent.at(-1) as JsonRpcRequest).params!._meta as JsonObject;
    expect(meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    expect(meta["io.modelcontextprotocol/clientInfo"]).toEqual(info);
  });

  test("a legacy server's error to the probe leads to initialize on the same channel, started once", async () => {
    const channel = new ScriptedChannel(legacyServer);
    const client = new RawClient(channel, { clientInfo: info });
    expect(await client.connect()).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25", serverInfo: { name: "old" } });
    expect(channel.starts).toBe(1);
    expect(channel.methods()).toEqual(["server/discover", "initialize", "notifications/initialized"]);
  });

  test("an unsupported-version error that offers only 2025 revisions falls back too", async () => {
    const channel = new ScriptedChannel((request) =>
      request.method === "server/discover"
        ? { error: { code: -32022, message: "Unsupported", data: { supported: ["2025-06-18"] } } }
        : legacyServer(request),
    );
    expect((await new RawClient(channel, { clientInfo: info }).connect()).era).toBe("legacy");
  });

  test("a pinned 2025 revision skips the probe and refuses another answer", async () => {
    const channel = new ScriptedChannel(legacyServer);
    await new RawClient(channel, { clientInfo: info, protocolVersion: "2025-06-18" }).connect();
    expect(channel.methods()[0]).toBe("initialize");
    const stubborn = new ScriptedChannel((request) =>
      request.method === "initialize" ? { protocolVersion: "2025-11-25", capabilities: {} } : {},
    );
    await expect(new RawClient(stubborn, { clientInfo: info, protocolVersion: "2025-06-18" }).connect()).rejects.toThrow(
      "pinned 2025-06-18",
    );
  });

  test("a pinned 2026 revision fails against a legacy server instead of falling back", async () => {
    const channel = new ScriptedChannel(legacyServer);
    await expect(new RawClient(channel, { clientInfo: info, protocolVersion: "2026-07-28" }).connect()).rejects.toThrow(
      "does not offer protocol 2026-07-28",
    );
    expect(channel.methods()).not.toContain("initialize");
  });
});

describe("requests", () => {
  test("progress restarts the timer and reaches the caller; silence times out and cancels", async () => {
    // The clock is ours: a timeout is an event the test fires, never a wait on a busy machine.
    const clock = manualTimers();
    let progressed = 0;
    const silent = new ScriptedChannel((request) => (request.method === "initialize" ? legacyServer(request) : undefined));
    const quiet = new RawClient(silent, { clientInfo: info, protocolVersion: "2025-11-25", timers: clock });
    await quiet.connect();
    const pending = quiet.request("tools/call", { name: "slow" }, { timeoutMs: 150, onprogress: () => progressed++ });
    let settled = false;
    void pending.catch(() => (settled = true));
    const request = silent.sent.at(-1) as JsonRpcRequest;
    const token = (request.params!._meta as JsonObject).progressToken;
    for (let i = 0; i < 3; i++) {
      const before = clock.armedHandles();
      silent.push({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i } });
      // Each progress puts a fresh 150 ms timer in place of the one that was running.
      expect(clock.armed()).toEqual([150]);
      expect(clock.armedHandles()).not.toEqual(before);
    }
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.fire();
    const error = await pending.catch((e) => e);
    expect(progressed).toBe(3);
    expect(error).toBeInstanceOf(McpError);
    expect(error.kind).toBe("timeout");
    expect(silent.sent.at(-1)).toMatchObject({ method: "notifications/cancelled", params: { requestId: request.id } });
  });

  test("an abort signal cancels with the caller's reason", async () => {
    const silent = new ScriptedChannel((request) => (request.method === "initialize" ? legacyServer(request) : undefined));
    const client = new RawClient(silent, { clientInfo: info, protocolVersion: "2025-11-25" });
    await client.connect();
    const aborter = new AbortController();
    const pending = client.request("tools/call", {}, { signal: aborter.signal });
    aborter.abort(new Error("user pressed Ctrl-C"));
    await expect(pending).rejects.toThrow("user pressed Ctrl-C");
    expect(silent.methods().at(-1)).toBe("notifications/cancelled");
  });

  test("server requests: ping is answered, anything else declined; a closed channel fails what waits", async () => {
    const silent = new ScriptedChannel((request) => (request.method === "initialize" ? legacyServer(request) : undefined));
    const client = new RawClient(silent, { clientInfo: info, protocolVersion: "2025-11-25" });
    await client.connect();
    silent.push({ jsonrpc: "2.0", id: "s1", method: "ping" });
    silent.push({ jsonrpc: "2.0", id: "s2", method: "sampling/createMessage", params: {} });
    await until(() => silent.sent.filter((m) => "id" in m && (m.id === "s1" || m.id === "s2")).length === 2, "both requests sent");
    expect(silent.sent.find((m) => "id" in m && m.id === "s1")).toMatchObject({ result: {} });
    expect(silent.sent.find((m) => "id" in m && m.id === "s2")).toMatchObject({ error: { code: -32601 } });
    const pending = client.request("tools/list");
    await silent.close();
    await expect(pending).rejects.toMatchObject({ kind: "closed" });
  });
});

/** Timers a test fires by hand: armed() lists the delays of those not cleared, fire() runs them. */
function manualTimers() {
  let next = 0;
  const live = new Map<number, { fire: () => void; ms: number }>();
  return {
    set(fire: () => void, ms: number) {
      live.set(++next, { fire, ms });
      return next;
    },
    clear(handle: unknown) {
      live.delete(handle as number);
    },
    armed: () => [...live.values()].map((timer) => timer.ms),
    armedHandles: () => [...live.keys()],
    fire() {
      for (const [handle, timer] of [...live]) {
        live.delete(handle);
        timer.fire();
      }
    },
  };
}
