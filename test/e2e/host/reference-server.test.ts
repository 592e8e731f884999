/**
 * The fixtures work: the reference server answers the SDK v2 Client on stdio and Streamable HTTP,
 * on the 2025 handshake and on 2026-07-28; the faulty server misbehaves as advertised.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Client, type ClientOptions, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { alive, BUN, FAULTY, REFERENCE_CMD, REFERENCE_ENTRY, TEST_GUARD_MS, until } from "../../support/helpers.ts";

const TOOLS = [
  "add",
  "big",
  "crash",
  "echo",
  "elicit",
  "elicit_later",
  "elicit_url",
  "fail",
  "grow",
  "log",
  "region_query",
  "roots",
  "sample",
  "slow",
  "slow_task",
  "touch",
  "typed",
  "whoami",
];
const MODERN = "2026-07-28";

// ---- bookkeeping: everything spawned or connected here is torn down ----------------------------
const clients: Client[] = [];
const procs: Bun.Subprocess[] = [];
const pids: number[] = [];

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  for (const p of procs) p.kill("SIGKILL");
  await Promise.allSettled(procs.map((p) => p.exited));
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
});

type Era = "legacy" | "auto" | "pin";

function makeClient(era: Era, extra: Partial<ClientOptions> = {}): Client {
  const client = new Client(
    { name: "fixtures-test", version: "0.0.0" },
    {
      capabilities: { sampling: {}, elicitation: {}, roots: {} },
      ...(era === "auto" ? { versionNegotiation: { mode: "auto" } } : {}),
      ...(era === "pin" ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
      ...extra,
    },
  );
  // Client-side answers for the server's sampling / elicitation / roots asks (both eras use these).
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    content: { type: "text", text: "sampled answer" },
    model: "test-model",
  }));
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ann" } }));
  client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///tmp/root", name: "root" }] }));
  clients.push(client);
  return client;
}

async function stdioClient(era: Era, extra: Partial<ClientOptions> = {}, env: Record<string, string> = {}) {
  const client = makeClient(era, extra);
  const transport = new StdioClientTransport({
    ...REFERENCE_ENTRY,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "pipe",
  });
  await client.connect(transport);
  if (transport.pid) pids.push(transport.pid);
  return { client, transport };
}

/** Starts the reference server on HTTP port 0 and resolves with its URL (from the one stderr line). */
async function startHttp(env: Record<string, string> = {}): Promise<{ url: string; proc: Bun.Subprocess; stderrLine: string }> {
  const proc = Bun.spawn([...REFERENCE_CMD, "--http", "0"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, ...env },
  });
  procs.push(proc);
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  let buf = "";
  while (!buf.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`reference server exited before listening: ${buf}`);
    buf += dec.decode(value, { stream: true });
  }
  reader.releaseLock();
  const stderrLine = buf.slice(0, buf.indexOf("\n"));
  const m = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(stderrLine);
  if (!m) throw new Error(`unexpected first stderr line: ${stderrLine}`);
  return { url: m[1]!, proc, stderrLine };
}

async function httpClient(url: string, era: Era, extra: Partial<ClientOptions> = {}) {
  const client = makeClient(era, extra);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function firstText(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }> | undefined;
  const block = content?.[0];
  if (block?.type !== "text" || typeof block.text !== "string") throw new Error(`no text content: ${JSON.stringify(result)}`);
  return block.text;
}

/** The core surface every era/transport combination must serve identically. */
async function checkCoreSurface(client: Client): Promise<void> {
  expect(client.getServerVersion()).toMatchObject({ name: "mcpkit-reference", version: "1.0.0" });
  expect(client.getInstructions()).toBe("Reference server for mcpkit tests.");
  expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {}, completions: {} });

  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual(TOOLS);
  expect(tools.tools.find((t) => t.name === "add")?.outputSchema).toBeDefined();

  expect(firstText(await client.callTool({ name: "echo", arguments: { message: "hi there" } }))).toBe("hi there");
  const add = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  expect(firstText(add)).toBe("42");
  expect(add.structuredContent).toEqual({ sum: 42 });
  const fail = await client.callTool({ name: "fail", arguments: {} });
  expect(fail.isError).toBe(true);
  expect(firstText(fail)).toBe("fail: requested failure");
  const typed = await client.callTool({ name: "typed", arguments: { code: "c", count: 3, tags: ["a"], nested: { x: 1 } } });
  expect(JSON.parse(firstText(typed))).toEqual({ code: "c", count: 3, tags: ["a"], nested: { x: 1 } });

  const resources = await client.listResources();
  expect(resources.resources.map((r) => r.uri).sort()).toEqual(["ref://data.json", "ref://hello", "ref://pixel.png"]);
  const templates = await client.listResourceTemplates();
  expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(["ref://items/{id}"]);
  const hello = await client.readResource({ uri: "ref://hello" });
  expect(hello.contents[0]).toMatchObject({ uri: "ref://hello", mimeType: "text/plain", text: "Hello, world" });
  const pixel = await client.readResource({ uri: "ref://pixel.png" });
  expect(pixel.contents[0]).toMatchObject({ mimeType: "image/png" });
  expect(typeof (pixel.contents[0] as { blob?: unknown }).blob).toBe("string");
  const item = await client.readResource({ uri: "ref://items/item-3" });
  expect(item.contents[0]).toMatchObject({ text: "Item item-3" });

  const prompts = await client.listPrompts();
  expect(prompts.prompts.map((p) => p.name).sort()).toEqual(["greet", "review"]);
  const greet = prompts.prompts.find((p) => p.name === "greet");
  expect(greet?.arguments?.find((a) => a.name === "name")?.required).toBe(true);
  const review = await client.getPrompt({ name: "review", arguments: { code: "x = 1" } });
  expect(review.messages.map((m) => m.role)).toEqual(["user", "assistant"]);

  const names = await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "b" } });
  expect(names.completion.values).toEqual(["bob"]);
  const ids = await client.complete({ ref: { type: "ref/resource", uri: "ref://items/{id}" }, argument: { name: "id", value: "item-" } });
  expect(ids.completion.values).toEqual(["item-1", "item-2", "item-3", "item-4", "item-5"]);
}

/** sampling / elicitation / roots: server->client requests on 2025, input_required rounds on 2026. */
async function checkClientFeatures(client: Client): Promise<void> {
  expect(firstText(await client.callTool({ name: "sample", arguments: { prompt: "hello?" } }))).toBe("sampled answer");
  expect(JSON.parse(firstText(await client.callTool({ name: "elicit", arguments: {} })))).toEqual({
    action: "accept",
    content: { name: "Ann" },
  });
  expect(JSON.parse(firstText(await client.callTool({ name: "roots", arguments: {} })))).toEqual([
    { uri: "file:///tmp/root", name: "root" },
  ]);
}

/** Resource subscriptions: resources/subscribe on 2025, subscriptions/listen on 2026; `touch` fires. */
async function checkSubscription(client: Client): Promise<void> {
  const updates: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (n) => void updates.push(n.params.uri));
  const modern = client.getProtocolEra() === "modern";
  const sub = modern ? await client.listen({ resourceSubscriptions: ["ref://hello"] }) : undefined;
  if (!modern) await client.subscribeResource({ uri: "ref://hello" });
  expect(firstText(await client.callTool({ name: "touch", arguments: { uri: "ref://data.json" } }))).toBe("touched ref://data.json");
  expect(firstText(await client.callTool({ name: "touch", arguments: { uri: "ref://hello" } }))).toBe("touched ref://hello");
  await until(() => updates.length > 0, "a resource update");
  expect(updates).toEqual(["ref://hello"]); // only the subscribed URI
  await sub?.close();
}

// ---- stdio ---------------------------------------------------------------------------------------
describe("reference server over stdio", () => {
  test(
    "2025 handshake (SDK default, 2025-11-25): full surface, client features, subscriptions, logging",
    async () => {
      const { client, transport } = await stdioClient("legacy");
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      expect(client.getProtocolEra()).toBe("legacy");
      await checkCoreSurface(client);
      await checkClientFeatures(client);
      await checkSubscription(client);
      const logs: unknown[] = [];
      client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params));
      expect(firstText(await client.callTool({ name: "log", arguments: { level: "warning", message: "careful" } }))).toBe("logged");
      expect(logs).toEqual([{ level: "warning", data: "careful", logger: "reference" }]);
      const pid = transport.pid!;
      await client.close();
      await until(() => !alive(pid), "the server process to go");
    },
    TEST_GUARD_MS,
  );

  test(
    "2025 handshake at an older revision (2025-06-18)",
    async () => {
      const { client } = await stdioClient("legacy", { supportedProtocolVersions: ["2025-06-18"] });
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-06-18");
      expect(firstText(await client.callTool({ name: "echo", arguments: { message: "old" } }))).toBe("old");
      await client.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "2026-07-28 (pinned): full surface, input_required client features, subscriptions/listen",
    async () => {
      const { client } = await stdioClient("pin");
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getProtocolEra()).toBe("modern");
      await checkCoreSurface(client);
      await checkClientFeatures(client);
      await checkSubscription(client);
      await client.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "2026-07-28 (auto negotiation): progress, then cancellation stops the slow tool early",
    async () => {
      const { client } = await stdioClient("auto", {}, { FIXTURE_STARTUP_DELAY_MS: "50" });
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);

      const progress: number[] = [];
      const done = await client.callTool(
        { name: "slow", arguments: { steps: 6, delayMs: 10 } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(firstText(done)).toBe("done 6 steps");
      expectProgress(progress, 6);

      const ac = new AbortController();
      const seen: number[] = [];
      const call = client.callTool(
        { name: "slow", arguments: { steps: 100, delayMs: 50 } },
        {
          signal: ac.signal,
          onprogress: (p) => {
            seen.push(p.progress);
            if (p.progress === 2) ac.abort();
          },
        },
      );
      await expect(call).rejects.toThrow();
      const atAbort = seen.length;
      // A barrier: stdio is in order, so any progress the server sent after the cancel came before this answer.
      expect(firstText(await client.callTool({ name: "echo", arguments: { message: "still alive" } }))).toBe("still alive");
      expect(seen.length).toBe(atAbort); // no progress after the cancel
      await client.close();
    },
    TEST_GUARD_MS,
  );
});

describe("reference server over stdio, past its cap", () => {
  test(
    "a line over the 64 MB cap, in 64 KB pieces: one error line, and the server exits though its stdin stays open",
    async () => {
      const proc = Bun.spawn(REFERENCE_CMD, { stdin: "pipe", stdout: "ignore", stderr: "pipe" });
      procs.push(proc);
      const piece = new Uint8Array(64 * 1024).fill(0x78);
      for (let sent = 0; sent <= 64 * 1024 * 1024; sent += piece.length) {
        proc.stdin.write(piece);
        await proc.stdin.flush();
      }
      proc.stdin.write("\n");
      await proc.stdin.flush();
      expect(await proc.exited).toBe(0);
      expect(await new Response(proc.stderr).text()).toContain("a message of 67174400 bytes is over the 67108864 cap");
    },
    TEST_GUARD_MS,
  );
});

// ---- Streamable HTTP -----------------------------------------------------------------------------
describe("reference server over Streamable HTTP", () => {
  test(
    "2025 handshake (2025-03-26): sessionful, full surface, client features and subscriptions over the session",
    async () => {
      const { url } = await startHttp();
      const client = await httpClient(url, "legacy", { supportedProtocolVersions: ["2025-03-26"] });
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-03-26");
      await checkCoreSurface(client);
      await checkClientFeatures(client);
      await checkSubscription(client); // the update travels on the session's GET stream
      await client.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "2026-07-28 (pinned and auto): full surface, client features, progress over SSE",
    async () => {
      const { url } = await startHttp();
      const pinned = await httpClient(url, "pin");
      expect(pinned.getNegotiatedProtocolVersion()).toBe(MODERN);
      await checkCoreSurface(pinned);
      await checkClientFeatures(pinned);
      await checkSubscription(pinned);
      const progress: number[] = [];
      const r = await pinned.callTool(
        { name: "slow", arguments: { steps: 6, delayMs: 10 } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(firstText(r)).toBe("done 6 steps");
      expectProgress(progress, 6);
      await pinned.close();

      const auto = await httpClient(url, "auto");
      expect(auto.getProtocolEra()).toBe("modern");
      expect(firstText(await auto.callTool({ name: "echo", arguments: { message: "auto" } }))).toBe("auto");
      await auto.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "big tool returns exactly 20,000,000 characters",
    async () => {
      const { url } = await startHttp();
      const client = await httpClient(url, "pin");
      const r = await client.callTool({ name: "big", arguments: { bytes: 20_000_000 } });
      const t = firstText(r);
      expect(t.length).toBe(20_000_000);
      expect(/^x+$/.test(t)).toBe(true);
      await client.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "raw HTTP: listening line, startup delay, /mcp only, Host validation, modern headers enforced",
    async () => {
      const t0 = performance.now();
      const { url, stderrLine } = await startHttp({ FIXTURE_STARTUP_DELAY_MS: "300" });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(300);
      expect(stderrLine).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\/mcp$/);

      const meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } });
      const base = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN };

      const ok = await fetch(url, { method: "POST", headers: { ...base, "mcp-method": "server/discover" }, body });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("content-type")).toContain("application/json");
      const discover = (await ok.json()) as { result: { supportedVersions: string[]; _meta: Record<string, unknown> } };
      expect(discover.result.supportedVersions).toContain(MODERN);
      expect(discover.result._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "mcpkit-reference", version: "1.0.0" });

      const noMethodHeader = await fetch(url, { method: "POST", headers: base, body });
      expect(noMethodHeader.status).toBe(400);
      expect(((await noMethodHeader.json()) as { error: { code: number } }).error.code).toBe(-32020);

      expect((await fetch(url.replace(/\/mcp$/, "/other"), { method: "POST", headers: base, body })).status).toBe(404);
      const evil = await fetch(url, { method: "POST", headers: { ...base, "mcp-method": "server/discover", host: "evil.example" }, body });
      expect(evil.status).toBe(403);
    },
    TEST_GUARD_MS,
  );
});

// ---- faulty server -------------------------------------------------------------------------------
describe("faulty server", () => {
  function faultyTransport(mode: string) {
    return new StdioClientTransport({ command: BUN, args: [FAULTY, mode], env: getDefaultEnvironment(), stderr: "pipe" });
  }

  test(
    "junk and unknown-id: an SDK client (auto negotiation) still falls back to initialize and works",
    async () => {
      for (const mode of ["junk", "unknown-id"]) {
        const client = makeClient("auto");
        client.onerror = () => {}; // junk lines are reported here; they must not break the session
        await client.connect(faultyTransport(mode));
        expect(client.getProtocolEra()).toBe("legacy");
        expect(client.getServerVersion()).toMatchObject({ name: "faulty", version: "0" });
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
        expect(firstText(await client.callTool({ name: "echo", arguments: { message: mode } }))).toBe(mode);
        await client.close();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "exit-now, die-mid, silent behave as advertised",
    async () => {
      const p = Bun.spawn([BUN, FAULTY, "exit-now"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      procs.push(p);
      expect(await p.exited).toBe(3);
      expect(await new Response(p.stderr).text()).toContain("boom");

      const dieMid = makeClient("legacy");
      await dieMid.connect(faultyTransport("die-mid"));
      await expect(dieMid.listTools()).rejects.toThrow();
      await dieMid.close();

      const silent = makeClient("legacy");
      await expect(silent.connect(faultyTransport("silent"), { timeout: 500 })).rejects.toThrow();
      await silent.close();
    },
    TEST_GUARD_MS,
  );
});

/**
 * The server writes every progress notification before the result (checked on the wire), but the
 * SDK client may settle the call before dispatching the last ones it read in the same chunk, so on
 * a busy machine the tail can be lost: the first half must arrive, in order.
 */
function expectProgress(seen: number[], steps: number): void {
  expect(seen.length).toBeGreaterThanOrEqual(Math.ceil(steps / 2));
  expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
}
