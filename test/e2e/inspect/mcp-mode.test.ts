// `mcp-inspect mcp`: the SDK v2 Client talks to our entry script over stdio, which talks to a target.
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  closedPort,
  REFERENCE_CMD,
  startHttpServer,
  startReferenceHttp,
  TEST_GUARD_MS,
  toolCommand,
  until,
} from "../../support/helpers.ts";

const INSPECT = toolCommand("mcp-inspect.ts");

const INSPECTOR_TOOLS = [
  "call_tool",
  "cancel_task",
  "complete",
  "get_prompt",
  "get_server_info",
  "get_task",
  "get_task_result",
  "list_prompts",
  "list_resource_templates",
  "list_resources",
  "list_tools",
  "ping",
  "read_resource",
];
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close().catch(() => {})));
});

async function inspector(targetArgs: string[], mode: "legacy" | "auto" = "auto"): Promise<Client> {
  const client = new Client({ name: "mcp-mode-test", version: "0" }, mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {});
  await client.connect(
    new StdioClientTransport({
      command: INSPECT[0]!,
      args: [...INSPECT.slice(1), "mcp", ...targetArgs],
      env: getDefaultEnvironment(),
      stderr: "pipe",
    }),
  );
  open.push(client);
  return client;
}

const textOf = (result: { content?: unknown }) => (result.content as { type: string; text: string }[])[0]?.text ?? "";

describe("mcp-inspect mcp", () => {
  test(
    "the first call_tool of a tool with an x-mcp-header parameter on a 2026-07-28 HTTP server succeeds (its Mcp-Param header sent)",
    async () => {
      const server = await startReferenceHttp();
      try {
        const client = await inspector(["--url", server.url]);
        const result = await client.callTool({
          name: "call_tool",
          arguments: { name: "region_query", arguments: { region: "eu", query: "q" } },
        });
        expect(result.isError).toBeFalsy();
        expect(textOf(result)).toContain("eu");
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );

  test.each(["legacy", "auto"] as const)(
    "exposes exactly the 13 inspection tools to a %s client, not the target's",
    async (mode) => {
      const client = await inspector(["--", ...REFERENCE_CMD], mode);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(INSPECTOR_TOOLS);
    },
    TEST_GUARD_MS,
  );

  test(
    "every inspection tool answers from the target",
    async () => {
      const client = await inspector(["--", ...REFERENCE_CMD]);
      const listed = JSON.parse(textOf(await client.callTool({ name: "list_tools", arguments: {} })));
      expect(listed.tools.map((t: { name: string }) => t.name)).toContain("echo");
      const echo = await client.callTool({ name: "call_tool", arguments: { name: "echo", arguments: { message: "through" } } });
      expect(textOf(echo)).toBe("through");
      const failed = await client.callTool({ name: "call_tool", arguments: { name: "fail" } });
      expect(failed.isError).toBe(true);
      expect(JSON.parse(textOf(await client.callTool({ name: "list_resources", arguments: {} }))).resources.length).toBeGreaterThan(0);
      expect(JSON.parse(textOf(await client.callTool({ name: "read_resource", arguments: { uri: "ref://hello" } }))).contents[0].text).toBe(
        "Hello, world",
      );
      expect(JSON.parse(textOf(await client.callTool({ name: "list_prompts", arguments: {} }))).prompts.length).toBe(2);
      const prompt = JSON.parse(
        textOf(await client.callTool({ name: "get_prompt", arguments: { name: "greet", arguments: { name: "carol" } } })),
      );
      expect(JSON.stringify(prompt.messages)).toContain("carol");
      const info = JSON.parse(textOf(await client.callTool({ name: "get_server_info", arguments: {} })));
      expect(info.serverInfo.name).toBe("mcpkit-reference");
      expect(JSON.parse(textOf(await client.callTool({ name: "ping", arguments: {} }))).roundTripMs).toBeGreaterThanOrEqual(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "one connection to the target is kept across calls, and reopened after the target dies",
    async () => {
      const client = await inspector(["--", ...REFERENCE_CMD]);
      const pid = async () => textOf(await client.callTool({ name: "call_tool", arguments: { name: "whoami" } }));
      const first = await pid();
      expect(await pid()).toBe(first);
      expect(textOf(await client.callTool({ name: "call_tool", arguments: { name: "crash" } }))).toBe("crashing");
      // A call that meets the dying connection fails; the one after it gets a new one.
      const after = await until(async () => {
        const text = await pid();
        return /^\d+$/.test(text) && text !== first && text;
      }, "a new server pid after the restart");
      expect(after).toMatch(/^\d+$/);
      expect(after).not.toBe(first);
    },
    TEST_GUARD_MS,
  );

  test(
    "a target that cannot start gives isError results, and the inspector lives on",
    async () => {
      const client = await inspector(["--", "no-such-command-mcpkit"]);
      const result = await client.callTool({ name: "list_tools", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("command not found");
      expect((await client.listTools()).tools.length).toBe(INSPECTOR_TOOLS.length);
    },
    TEST_GUARD_MS,
  );

  test.each([
    [["--url", "ftp://nope"], "error: unsupported URL scheme ftp: (use http:// or https://)"],
    [["--timeout", "abc", "--", "x"], 'error: --timeout takes milliseconds, a whole number of at least 1 (e.g. 5000), not "abc"'],
    [["--bogus", "--", "x"], "error: unknown option --bogus (see --help)"],
    [["--protocol-version", "1999-01-01", "--", "x"], "error: --protocol-version takes one of 2026-07-28"],
  ])(
    "bad flags %j are refused with one line on stderr and exit 1, nothing on stdout",
    async (args, message) => {
      const child = Bun.spawn([...toolCommand("mcp-inspect.ts"), "mcp", ...args], { stdout: "pipe", stderr: "pipe", stdin: "pipe" });
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr.trim()).toStartWith(message);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 2025-era HTTP target that restarts (and forgets its sessions) is reconnected within the same call",
    async () => {
      const port = closedPort();
      const start = () => startHttpServer([...REFERENCE_CMD, "--http", String(port)]);
      let server = await start();
      try {
        const client = await inspector(["--protocol-version", "2025-11-25", "--url", `http://127.0.0.1:${port}/mcp`]);
        const echo = () => client.callTool({ name: "call_tool", arguments: { name: "echo", arguments: { message: "up" } } });
        expect(textOf(await echo())).toBe("up");
        await server.stop();
        server = await start();
        const again = await echo();
        expect(again.isError).toBeFalsy();
        expect(textOf(again)).toBe("up");
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );
});
