// The SDK v2 Client talks through mcp-proxy to real servers: every client feature works, and keeps
// working across a restart.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Client, type ClientOptions } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  EVERYTHING,
  type HttpFixture,
  REFERENCE_CMD,
  startReferenceHttp,
  TEST_GUARD_MS,
  toolCommand,
  until,
} from "../../support/helpers.ts";

const PROXY = toolCommand("mcp-proxy.ts");
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close().catch(() => {})));
});

type Era = "legacy" | "modern";
type Arrived = { id?: unknown; method?: string; params?: { progressToken?: unknown; progress?: number } };

/** An SDK client that answers sampling, elicitation and roots, connected through the proxy. */
async function throughProxy(proxyArgs: string[], era: Era): Promise<{ client: Client; notes: string[]; arrived: Arrived[] }> {
  const options: ClientOptions = { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } };
  if (era === "modern") options.versionNegotiation = { mode: { pin: "2026-07-28" } };
  const client = new Client({ name: "proxy-sdk-test", version: "0" }, options);
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    content: { type: "text", text: "sampled answer" },
    model: "test-model",
  }));
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ann" } }));
  client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///tmp/root", name: "root" }] }));
  const notes: string[] = [];
  client.setNotificationHandler("notifications/tools/list_changed", () => void notes.push("tools/list_changed"));
  client.setNotificationHandler("notifications/resources/updated", (n) => void notes.push(`updated ${n.params.uri}`));
  client.setNotificationHandler("notifications/message", (n) => void notes.push(`log ${String(n.params.data)}`));
  const transport = new StdioClientTransport({
    command: PROXY[0]!,
    args: [...PROXY.slice(1), "--log-level", "warn", ...proxyArgs],
    env: getDefaultEnvironment(),
    stderr: "pipe",
  });
  await client.connect(transport);
  // What arrives, in order, as the transport hands it over: the SDK runs notification handlers a
  // microtask later than a response's, so progress that arrives in one read with its answer never
  // reaches onprogress (the SDK's race, not the proxy's: it forwards in order, which this shows).
  const arrived: Arrived[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message, ...rest) => {
    arrived.push(message as Arrived);
    deliver(message, ...rest);
  };
  open.push(client);
  return { client, notes, arrived };
}

const text = (result: { content?: unknown }) => (result.content as { type: string; text: string }[])[0]!.text;

async function clientFeatures(client: Client): Promise<void> {
  expect(text(await client.callTool({ name: "sample", arguments: { prompt: "hi?" } }))).toBe("sampled answer");
  expect(JSON.parse(text(await client.callTool({ name: "elicit", arguments: {} })))).toEqual({
    action: "accept",
    content: { name: "Ann" },
  });
  expect(JSON.parse(text(await client.callTool({ name: "roots", arguments: {} })))).toEqual([{ uri: "file:///tmp/root", name: "root" }]);
}

async function progressAndCancellation(client: Client, arrived: Arrived[]): Promise<void> {
  const from = arrived.length;
  expect(text(await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 20 } }, { onprogress: () => {} }))).toBe(
    "done 3 steps",
  );
  // Every step's progress, in order, before the answer.
  const during = arrived.slice(from);
  const answerAt = during.findIndex((message) => message.id !== undefined && message.method === undefined);
  const progress = during.slice(0, answerAt).filter((message) => message.method === "notifications/progress");
  expect(progress.map((message) => message.params?.progress)).toEqual([1, 2, 3]);
  const aborter = new AbortController();
  const seen: number[] = [];
  const call = client.callTool(
    { name: "slow", arguments: { steps: 100, delayMs: 40 } },
    {
      signal: aborter.signal,
      onprogress: (p) => {
        seen.push(p.progress);
        if (p.progress === 2) aborter.abort();
      },
    },
  );
  await expect(call).rejects.toThrow();
  const atAbort = seen.length;
  // A barrier: the server answers in order and the proxy forwards in order, so progress sent after the
  // cancel would arrive before this answer (ping is not a 2026 method, listing is).
  await client.listTools();
  expect(seen.length).toBe(atAbort);
}

describe.each(["legacy", "modern"] as const)("reference server over stdio, %s era", (era) => {
  test(
    "sampling, elicitation, roots, progress, cancellation and subscriptions work before and after restart_server",
    async () => {
      const { client, notes, arrived } = await throughProxy(["--", ...REFERENCE_CMD], era);
      const tools = await client.listTools();
      expect(tools.tools.at(-1)?.name).toBe("restart_server");
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);

      await clientFeatures(client);
      await progressAndCancellation(client, arrived);
      const listen = era === "modern" ? await client.listen({ resourceSubscriptions: ["ref://hello"] }) : undefined;
      if (era === "legacy") await client.subscribeResource({ uri: "ref://hello" });
      await client.callTool({ name: "touch", arguments: { uri: "ref://hello" } });
      await until(() => notes.includes("updated ref://hello"), "the resource update");

      const before = text(await client.callTool({ name: "whoami", arguments: {} }));
      const restart = await client.callTool({ name: "restart_server", arguments: {} });
      expect(restart.isError).toBe(false);
      expect(text(restart)).toContain("Restarted the server");
      expect(text(await client.callTool({ name: "whoami", arguments: {} }))).not.toBe(before);
      if (era === "legacy") await until(() => notes.includes("tools/list_changed"), "tools/list_changed");

      // The same features on the new process; the subscription was carried over.
      await clientFeatures(client);
      await progressAndCancellation(client, arrived);
      notes.length = 0;
      await client.callTool({ name: "touch", arguments: { uri: "ref://hello" } });
      await until(() => notes.includes("updated ref://hello"), "the resource update");
      await listen?.close();
    },
    TEST_GUARD_MS,
  );
});

test(
  "logging notifications pass through (2025 era)",
  async () => {
    const { client, notes } = await throughProxy(["--", ...REFERENCE_CMD], "legacy");
    await client.callTool({ name: "log", arguments: { level: "warning", message: "careful" } });
    await until(() => notes.includes("log careful"), "the log message");
    expect(notes).toContain("log careful");
  },
  TEST_GUARD_MS,
);

describe("server-everything (v1 SDK) through the proxy", () => {
  test(
    "its tools, its server->client requests, and a restart",
    async () => {
      const { client } = await throughProxy(["--", EVERYTHING], "legacy");
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("echo");
      expect(names.at(-1)).toBe("restart_server");
      expect(text(await client.callTool({ name: "echo", arguments: { message: "hi" } }))).toBe("Echo: hi");
      if (names.includes("trigger-sampling-request")) {
        const sampled = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "p", maxTokens: 10 } });
        expect(JSON.stringify(sampled.content)).toContain("sampled answer");
      }
      const restart = await client.callTool({ name: "restart_server", arguments: {} });
      expect(restart.isError).toBe(false);
      expect(text(await client.callTool({ name: "echo", arguments: { message: "again" } }))).toBe("Echo: again");
      expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
    },
    TEST_GUARD_MS,
  );
});

describe("a Streamable HTTP server behind the proxy (stdio bridge)", () => {
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startReferenceHttp();
  });
  afterAll(() => server.stop());

  test.each(["legacy", "modern"] as const)(
    "%s era: tools, server->client requests and a restart",
    async (era) => {
      const { client } = await throughProxy(["--url", server.url], era);
      expect(text(await client.callTool({ name: "echo", arguments: { message: "bridged" } }))).toBe("bridged");
      await clientFeatures(client);
      const restart = await client.callTool({ name: "restart_server", arguments: {} });
      expect(restart.isError).toBe(false);
      expect(text(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
    },
    TEST_GUARD_MS,
  );
});
