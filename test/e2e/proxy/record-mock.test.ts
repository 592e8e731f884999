// `mcp-proxy --record` and `mcp-inspect mock` end to end: a session recorded from real servers (the
// file private, its headers redacted, never written through a link, capped), then served back by
// the mock to real clients: the handshake, answers under the client's ids, the recorded server
// requests in order, and a miss named with the closest recorded request.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_MESSAGE_BYTES } from "../../../lib/wire/limits.ts";
import {
  EVERYTHING,
  INITIALIZE,
  inspect,
  LinePeer,
  runTool,
  startReferenceHttp,
  TEST_GUARD_MS,
  toolCommand,
} from "../../support/helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-record-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PROXY = toolCommand("mcp-proxy.ts");
const MOCK = (file: string) => [...toolCommand("mcp-inspect.ts"), "mock", file];
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

/** A short session through the recording proxy: the handshake, tools/list, one echo call. */
async function recordSession(file: string, target: string[], extra: string[] = []): Promise<LinePeer> {
  const client = new LinePeer([...PROXY, "--record", file, ...extra, ...target]);
  await client.request(1, "initialize", INITIALIZE());
  client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await client.request(2, "tools/list");
  await client.request(3, "tools/call", { name: "echo", arguments: { message: "hi" } });
  return client;
}

const recorded = join(dir, "everything.jsonl");

describe("mcp-proxy --record", () => {
  test(
    "records server-everything's session as JSON Lines, 0600, both directions with their time",
    async () => {
      const client = await recordSession(recorded, ["--", EVERYTHING]);
      expect(await client.close()).toBe(0);
      expect(statSync(recorded).mode & 0o777).toBe(0o600);
      const [header, ...entries] = lines(recorded);
      expect(header).toMatchObject({ recording: "mcpkit-recording/1", server: { command: EVERYTHING } });
      const requests = entries.filter((e) => e.from === "client" && e.message.id !== undefined).map((e) => e.message.method);
      expect(requests).toEqual(["initialize", "tools/list", "tools/call"]);
      const echo = entries.find((e) => e.from === "server" && e.message.id === 3);
      expect(echo.message.result.content[0].text).toBe("Echo: hi");
      for (const entry of entries) {
        expect(typeof entry.ms).toBe("number");
        expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "over --url the header values are redacted, the Authorization one too",
    async () => {
      const server = await startReferenceHttp();
      try {
        const file = join(dir, "http.jsonl");
        const client = new LinePeer([
          ...PROXY,
          "--record",
          file,
          "--url",
          server.url,
          "-H",
          "Authorization: Bearer s3cret",
          "-H",
          "X-Team: blue",
        ]);
        await client.request(1, "initialize", INITIALIZE());
        await client.close();
        const text = readFileSync(file, "utf8");
        expect(text).not.toContain("s3cret");
        expect(text).not.toContain("blue");
        expect(lines(file)[0].server.headers).toEqual({ Authorization: "[redacted]", "X-Team": "[redacted]" });
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );

  test("a link at the recording's path is refused, never written through (exit 1)", async () => {
    const target = join(dir, "precious.txt");
    writeFileSync(target, "keep");
    const link = join(dir, "link.jsonl");
    symlinkSync(target, link);
    const { code, stderr } = await runTool("mcp-proxy.ts", ["--record", link, "--", EVERYTHING], { stdin: "" });
    expect(code).toBe(1);
    expect(stderr).toContain(`error: cannot record to ${link} (it is a symbolic link: not writing through it)`);
    expect(readFileSync(target, "utf8")).toBe("keep");
  });

  test(
    "--record-max: the recording stops growing at the cap and says so, last",
    async () => {
      const file = join(dir, "capped.jsonl");
      const client = await recordSession(file, ["--", EVERYTHING], ["--record-max", "2000"]);
      await client.close();
      expect(statSync(file).size).toBeLessThan(2000 + 200);
      expect(lines(file).at(-1).truncated).toBe("the recording reached --record-max (2000 bytes)");
      expect(client.stderr).toContain("reached --record-max (2000 bytes)");
    },
    TEST_GUARD_MS,
  );
});

describe("mcp-inspect mock", () => {
  test(
    "serves the recording to mcp-inspect: the handshake, tools/list and the recorded call under the client's own ids",
    async () => {
      const tools = await inspect(["list-tools", "--json", "--", ...MOCK(recorded)]);
      expect(tools.code).toBe(0);
      expect(tools.json.data.tools.map((t: any) => t.name)).toContain("echo");
      const call = await inspect(["call-tool", "echo", "message=hi", "--json", "--", ...MOCK(recorded)]);
      expect(call.code).toBe(0);
      expect(call.json.data.content[0].text).toBe("Echo: hi");
    },
    TEST_GUARD_MS,
  );

  test(
    "a request the recording lacks gets an error naming the closest recorded request",
    async () => {
      const miss = await inspect(["call-tool", "echo", "message=bye", "--json", "--", ...MOCK(recorded)]);
      expect(miss.code).toBe(5);
      expect(miss.json.error.details.rpcError).toEqual({
        code: -32602,
        message:
          "the recording has no tools/call with these params; the closest recorded: " +
          'tools/call {"arguments":{"message":"hi"},"name":"echo"}',
      });
      const unknown = await inspect(["list-prompts", "--json", "--", ...MOCK(recorded)]);
      expect(unknown.json.error.details.rpcError.code).toBe(-32601);
      expect(unknown.json.error.message).toContain("the recording has no prompts/list request");
    },
    TEST_GUARD_MS,
  );

  test(
    "the recorded server-to-client requests go out in order, the client's answers taken, progress under the client's token",
    async () => {
      const file = join(dir, "asks.jsonl");
      const entry = (from: string, message: object) => JSON.stringify({ at: new Date().toISOString(), ms: 0, from, message });
      writeFileSync(
        file,
        [
          JSON.stringify({ recording: "mcpkit-recording/1", started: new Date().toISOString(), server: { command: "x" } }),
          entry("client", { jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() }),
          entry("server", {
            jsonrpc: "2.0",
            id: 0,
            result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "rec", version: "1" } },
          }),
          entry("client", {
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: { name: "ask", arguments: {}, _meta: { progressToken: 7 } },
          }),
          entry("server", { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 7, progress: 1 } }),
          entry("server", { jsonrpc: "2.0", id: 100, method: "roots/list" }),
          entry("client", { jsonrpc: "2.0", id: 100, result: { roots: [] } }),
          entry("server", {
            jsonrpc: "2.0",
            id: 101,
            method: "elicitation/create",
            params: { message: "sure?", requestedSchema: { type: "object" } },
          }),
          entry("client", { jsonrpc: "2.0", id: 101, result: { action: "accept", content: {} } }),
          entry("server", { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "asked" }] } }),
          "",
        ].join("\n"),
      );
      const client = new LinePeer(MOCK(file));
      const hello = await client.request("a", "initialize", { ...INITIALIZE("2025-06-18") });
      expect(hello.result.serverInfo).toEqual({ name: "rec", version: "1" });
      client.send({
        jsonrpc: "2.0",
        id: "b",
        method: "tools/call",
        params: { name: "ask", arguments: {}, _meta: { progressToken: "tok" } },
      });
      await client.waitFor(() => client.messages.some((m) => m.method === "roots/list"));
      expect(client.messages.find((m) => m.method === "notifications/progress").params).toEqual({ progressToken: "tok", progress: 1 });
      // The second question waits for the answer to the first.
      expect(client.messages.some((m) => m.method === "elicitation/create")).toBe(false);
      const roots = client.messages.find((m) => m.method === "roots/list");
      client.send({ jsonrpc: "2.0", id: roots.id, result: { roots: [{ uri: "file:///other" }] } });
      await client.waitFor(() => client.messages.some((m) => m.method === "elicitation/create"));
      const question = client.messages.find((m) => m.method === "elicitation/create");
      expect(client.responseTo("b")).toBeUndefined();
      client.send({ jsonrpc: "2.0", id: question.id, result: { action: "decline" } });
      await client.waitFor(() => client.responseTo("b") !== undefined);
      expect(client.responseTo("b").result.content[0].text).toBe("asked");
      expect(await client.close()).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a request over the 32 MB cap gets its one answer, an error under its id, and the next is served",
    async () => {
      const mock = new LinePeer(MOCK(recorded));
      const bytes = await mock.sendLongRequest("big", MAX_MESSAGE_BYTES);
      const next = await mock.request(2, "tools/list");
      expect(mock.responseTo("big").error).toEqual({
        code: -32600,
        message: `a ${bytes}-byte message is over the ${MAX_MESSAGE_BYTES}-byte limit`,
      });
      expect(next.result.tools.map((tool: { name: string }) => tool.name)).toContain("echo");
      expect(await mock.close()).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test("a file that is not a recording is one error line and exit 1", async () => {
    const file = join(dir, "not.jsonl");
    writeFileSync(file, '{"hello":1}\n');
    const { code, stdout, stderr } = await runTool("mcp-inspect.ts", ["mock", file], { stdin: "" });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(`error: ${file} is not a recording of mcp-proxy --record (its first line names no mcpkit-recording/1)\n`);
    expect((await runTool("mcp-inspect.ts", ["mock", join(dir, "missing.jsonl")], { stdin: "" })).code).toBe(1);
  });
});
