// `mcp-proxy serve` puts the stdio reference server on Streamable HTTP: real HTTP clients (the SDK's,
// mcp-inspect --url, mcp-host --server URL) in both eras, many at once, each with what is its own.
// serve-sessions.test.ts has who may call, what bodies are taken, the 2025 sessions' lifetimes,
// --watch and the compiled binary.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { EVERYTHING, inspect, NO_VENDOR_KEYS, removeTempDirs, runTool, TEST_GUARD_MS, until } from "../../support/helpers.ts";
import { answerOf, closeClients, MODERN, post, sdkClient, serve, stopServing, text, whoami } from "../../support/serve.ts";

afterEach(async () => {
  await closeClients();
  await stopServing();
});
afterAll(removeTempDirs);

describe.each(["legacy", "modern"] as const)("the SDK's Streamable HTTP client, %s era", (era) => {
  test(
    "tools, sampling, elicitation, roots, progress and restart_server work through serve",
    async () => {
      const { url } = await serve(["--log-level", "warn"]);
      const { client, notes } = await sdkClient(url, era);
      expect(client.getServerVersion()?.name).toBe("mcpkit-reference");
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("echo");
      expect(names.at(-1)).toBe("restart_server");
      expect(text(await client.callTool({ name: "echo", arguments: { message: "over http" } }))).toBe("over http");
      if (era === "legacy") {
        // 2025 asks the client by requests of its own: they reach this client on its session.
        expect(text(await client.callTool({ name: "sample", arguments: { prompt: "hi?" } }))).toBe("sampled for Ann");
        expect(JSON.parse(text(await client.callTool({ name: "elicit", arguments: {} })))).toEqual({
          action: "accept",
          content: { name: "Ann" },
        });
        expect(JSON.parse(text(await client.callTool({ name: "roots", arguments: {} })))).toEqual([
          { uri: "file:///tmp/Ann", name: "Ann" },
        ]);
      }
      const progress: number[] = [];
      const slow = await client.callTool(
        { name: "slow", arguments: { steps: 3, delayMs: 10 } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(text(slow)).toBe("done 3 steps");
      expect(progress.length).toBeGreaterThanOrEqual(2);

      const before = await whoami(client);
      const restart = await client.callTool({ name: "restart_server", arguments: {} });
      expect(restart.isError).toBe(false);
      expect(text(restart)).toContain("Restarted the server");
      expect(await whoami(client)).not.toBe(before);
      if (era === "legacy") await until(() => notes.includes("tools/list_changed"), "tools/list_changed after the restart");
      expect(text(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } }))).toBe("42");
    },
    TEST_GUARD_MS,
  );
});

test(
  "a 2026-07-28 call whose tool has an x-mcp-header parameter is checked and answered, tools listed first or not",
  async () => {
    const { url } = await serve(["--log-level", "warn"]);
    const { client } = await sdkClient(url, "modern");
    const region = await client.callTool({ name: "region_query", arguments: { region: "eu-west", query: "q" } });
    expect(region.isError).toBeFalsy();
    expect(text(region)).toContain("eu-west");
    // A header that disagrees with the body is refused before the server sees it.
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "region_query", arguments: { region: "eu", query: "q" }, _meta: meta },
    };
    const mismatched = await post(url, call, {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "region_query",
      "mcp-param-region": "us",
    });
    expect(mismatched.status).toBe(400);
    const refused = await answerOf(mismatched);
    expect(refused.id).toBe(7);
    expect(refused.error.code).toBe(-32020);
  },
  TEST_GUARD_MS,
);

test(
  "six 2025 clients at once: each its own server process, its own state and its own answers to the server's questions",
  async () => {
    const { url } = await serve(["--log-level", "warn"]);
    const people = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];
    const connected = await Promise.all(people.map((who) => sdkClient(url, "legacy", who)));
    const pids = await Promise.all(connected.map(({ client }) => whoami(client)));
    expect(new Set(pids).size).toBe(people.length);
    // Asked at the same moment, each client's server asks its own client, and each answer goes home.
    const elicited = await Promise.all(connected.map(({ client }) => client.callTool({ name: "elicit", arguments: {} })));
    expect(elicited.map((result) => JSON.parse(text(result)).content.name)).toEqual(people);
    // State is per session: a tool grown by Ann's server is not in Bo's list.
    await connected[0]!.client.callTool({ name: "grow", arguments: {} });
    const annTools = (await connected[0]!.client.listTools()).tools.map((tool) => tool.name);
    const boTools = (await connected[1]!.client.listTools()).tools.map((tool) => tool.name);
    expect(annTools.some((name) => name.startsWith("grown_"))).toBe(true);
    expect(boTools.some((name) => name.startsWith("grown_"))).toBe(false);
    // One client's restart leaves the others' processes alone.
    await connected[2]!.client.callTool({ name: "restart_server", arguments: {} });
    const after = await Promise.all(connected.map(({ client }) => whoami(client)));
    expect(after.filter((pid, i) => pid !== pids[i])).toEqual([after[2]!]);
  },
  TEST_GUARD_MS,
);

test(
  "2026-07-28 clients share one server process, each answered under its own request id",
  async () => {
    const { url } = await serve(["--log-level", "warn"]);
    const [one, two] = await Promise.all([sdkClient(url, "modern", "One"), sdkClient(url, "modern", "Two")]);
    expect(await whoami(one.client)).toBe(await whoami(two.client));
    const sums = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).client.callTool({ name: "add", arguments: { a: i, b: 1000 } })),
    );
    expect(sums.map(text)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1000)));
  },
  TEST_GUARD_MS,
);

test(
  "a 2026-07-28 client in front of a 2025-only server is refused with -32022 naming what the server speaks",
  async () => {
    const { url } = await serve(["--log-level", "warn"], [EVERYTHING]);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta } },
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
    );
    expect(response.status).toBe(400);
    const refused = await answerOf(response);
    expect(refused.id).toBe(3);
    expect(refused.error.code).toBe(-32022);
    expect(refused.error.data.supported).toContain("2025-11-25");
    // The same server still serves 2025 clients.
    const { client } = await sdkClient(url, "legacy");
    expect(text(await client.callTool({ name: "echo", arguments: { message: "hi" } }))).toBe("Echo: hi");
  },
  TEST_GUARD_MS,
);

describe("our own clients against serve", () => {
  test(
    "mcp-inspect --url lists and calls; mcp-host --server URL calls a tool",
    async () => {
      const { url } = await serve(["--log-level", "warn"]);
      const listed = await inspect(["list-tools", "--url", url]);
      expect(listed.code).toBe(0);
      expect(listed.json.data.tools.map((tool: { name: string }) => tool.name)).toContain("region_query");
      const called = await inspect(["call-tool", "region_query", "region=eu-west", "query=q", "--url", url]);
      expect(called.code).toBe(0);
      expect(called.json.data.content[0].text).toContain("eu-west");
      const legacy = await inspect(["call-tool", "add", "a=1", "b=2", "--url", url, "--protocol-version", "2025-11-25"]);
      expect(legacy.code).toBe(0);
      expect(legacy.json.data.structuredContent).toEqual({ sum: 3 });
      const host = await runTool("mcp-host.ts", ["--server", url, "-p", "call add a=2 b=3"], { env: NO_VENDOR_KEYS });
      expect(host.code).toBe(0);
      expect(host.stdout).toContain("returned: 5");
    },
    TEST_GUARD_MS,
  );
});
