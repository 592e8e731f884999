// mcp-inspect end to end: the real entry script against real server processes, each command over
// stdio and Streamable HTTP, and its usage errors. Every run has its own server (or shares the one
// HTTP server), so the tests go side by side, a few runs at once; misbehaving-servers.test.ts has
// the tests whose timing matters, one at a time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  FAULTY,
  type HttpFixture,
  inspect,
  lanes,
  REFERENCE_CMD,
  REFERENCE_LINE,
  startReferenceHttp,
  TEST_GUARD_MS,
} from "../../support/helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lane = lanes();
const run = (...args: Parameters<typeof inspect>) => lane(() => inspect(...args));

describe.concurrent("stdio, 2026-07-28 by default", () => {
  // The longest run (6 s of progress) first, so that the rest overlap it.
  test(
    "progress notifications restart the --timeout timer",
    async () => {
      // 12 steps of 500 ms take 6 s, longer than the 5 s timeout, but progress arrives every 500 ms:
      // only a step ten times slower than asked (a machine stalled for 5 s) could fail this. (1.5 s
      // against 250 ms steps failed on a 2-core box at load 14.)
      const { code, json } = await run(["call-tool", "slow", "steps=12", "delayMs=500", "--timeout", "5000", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data.content[0].text).toBe("done 12 steps");
    },
    TEST_GUARD_MS,
  );

  test(
    "list-tools prints one success envelope with every tool and the negotiated revision",
    async () => {
      const { code, json, stderr } = await run(["list-tools", "--", ...REFERENCE_CMD]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(json.success).toBe(true);
      expect(json.data.tools.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(["echo", "add", "fail", "slow", "big", "log", "typed"]),
      );
      expect(json.metadata).toMatchObject({ command: "list-tools", protocolVersion: "2026-07-28" });
      expect(typeof json.metadata.durationMs).toBe("number");
      expect(json.metadata.target).toContain(REFERENCE_CMD.at(-1)!);
    },
    TEST_GUARD_MS,
  );

  test(
    "--protocol-version pins the 2025 handshake",
    async () => {
      const { code, json } = await run(["server-info", "--protocol-version", "2025-11-25", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25", serverInfo: { name: "mcpkit-reference" } });
      expect(json.data.instructions).toBe("Reference server for mcpkit tests.");
    },
    TEST_GUARD_MS,
  );

  test(
    "server-info shows identity, capabilities and instructions",
    async () => {
      const { json } = await run(["server-info", "--", ...REFERENCE_CMD]);
      expect(json.data).toMatchObject({
        era: "modern",
        protocolVersion: "2026-07-28",
        serverInfo: { name: "mcpkit-reference", version: "1.0.0" },
        instructions: "Reference server for mcpkit tests.",
      });
      expect(Object.keys(json.data.capabilities)).toEqual(expect.arrayContaining(["tools", "resources", "prompts", "logging"]));
    },
    TEST_GUARD_MS,
  );

  test(
    "key=value pairs are typed by the tool's schema",
    async () => {
      const { code, json } = await run([
        "call-tool",
        "typed",
        "code=012",
        "count=3",
        "ratio=1.5",
        "flag=true",
        'tags=["a","b"]',
        "nested.x=4",
        "--",
        ...REFERENCE_CMD,
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(json.data.content[0].text)).toEqual({
        code: "012",
        count: 3,
        ratio: 1.5,
        flag: true,
        tags: ["a", "b"],
        nested: { x: 4 },
      });
    },
    TEST_GUARD_MS,
  );

  test(
    "--params takes inline JSON, @file and stdin, and pairs add to it",
    async () => {
      const file = join(dir, "params.json");
      writeFileSync(file, JSON.stringify({ a: 10, b: 5 }));
      const inline = await run(["call-tool", "add", "--params", '{"a":2,"b":3}', "--", ...REFERENCE_CMD]);
      const fromFile = await run(["call-tool", "add", "--params", `@${file}`, "b=1", "--", ...REFERENCE_CMD]);
      const fromStdin = await run(["call-tool", "add", "--params", "-", "--", ...REFERENCE_CMD], { stdin: '{"a":7,"b":7}' });
      expect(inline.json.data.structuredContent).toEqual({ sum: 5 });
      expect(fromFile.json.data.structuredContent).toEqual({ sum: 11 });
      expect(fromStdin.json.data.structuredContent).toEqual({ sum: 14 });
    },
    TEST_GUARD_MS,
  );

  test(
    "a bad argument is named before the call, and --no-validate sends it anyway",
    async () => {
      const bad = await run(["call-tool", "typed", "code=x", "count=many", "--", ...REFERENCE_CMD]);
      expect(bad.code).toBe(1);
      expect(bad.json.error.code).toBe("USAGE_ERROR");
      expect(bad.json.error.message).toContain("arguments.count: expected integer");
      const missing = await run(["call-tool", "typed", "count=1", "--", ...REFERENCE_CMD]);
      expect(missing.json.error.message).toContain("arguments.code: required");
      const unchecked = await run(["call-tool", "typed", "code=x", "count=many", "--no-validate", "--", ...REFERENCE_CMD]);
      // The server itself rejects it: a protocol error or an isError result, never our usage error.
      expect([5, 6]).toContain(unchecked.code);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tool result with isError exits 6 and still carries the result",
    async () => {
      const { code, json } = await run(["call-tool", "fail", "--", ...REFERENCE_CMD]);
      expect(code).toBe(6);
      expect(json.success).toBe(false);
      expect(json.error.code).toBe("TOOL_ERROR");
      expect(json.data.isError).toBe(true);
      expect(json.data.content[0].text).toBe("fail: requested failure");
    },
    TEST_GUARD_MS,
  );

  test(
    "an unknown tool and malformed --params are usage errors with a clear message",
    async () => {
      const unknown = await run(["call-tool", "nope", "--", ...REFERENCE_CMD]);
      expect(unknown.code).toBe(1);
      expect(unknown.json.error.message).toMatch(/unknown tool "nope" \(the server has: echo, add/);
      const malformed = await run(["call-tool", "add", "--params", "{a:1", "--", ...REFERENCE_CMD]);
      expect(malformed.code).toBe(1);
      expect(malformed.json.error.message).toContain("--params is not valid JSON");
      const notObject = await run(["call-tool", "add", "--params", "[1]", "--", ...REFERENCE_CMD]);
      expect(notObject.json.error.message).toContain("must be a JSON object");
      const badPair = await run(["call-tool", "add", "novalue", "--", ...REFERENCE_CMD]);
      expect(badPair.json.error.message).toContain('bad argument "novalue"');
    },
    TEST_GUARD_MS,
  );

  test(
    "resources, templates, binary contents",
    async () => {
      const resources = await run(["list-resources", "--", ...REFERENCE_CMD]);
      expect(resources.json.data.resources.map((r: { uri: string }) => r.uri)).toEqual(
        expect.arrayContaining(["ref://hello", "ref://data.json", "ref://pixel.png"]),
      );
      const templates = await run(["list-resource-templates", "--", ...REFERENCE_CMD]);
      expect(templates.json.data.resourceTemplates[0].uriTemplate).toBe("ref://items/{id}");
      const hello = await run(["read-resource", "ref://hello", "--", ...REFERENCE_CMD]);
      expect(hello.json.data.contents[0]).toMatchObject({ uri: "ref://hello", text: "Hello, world" });
      const pixel = await run(["read-resource", "ref://pixel.png", "--", ...REFERENCE_CMD]);
      expect(typeof pixel.json.data.contents[0].blob).toBe("string");
      const item = await run(["read-resource", "ref://items/item-3", "--", ...REFERENCE_CMD]);
      expect(item.code).toBe(0);
      expect(JSON.stringify(item.json.data.contents)).toContain("item-3");
    },
    TEST_GUARD_MS,
  );

  test(
    "prompts keep their arguments and message roles",
    async () => {
      const prompts = await run(["list-prompts", "--", ...REFERENCE_CMD]);
      const greet = prompts.json.data.prompts.find((p: { name: string }) => p.name === "greet");
      expect(greet.arguments.map((a: { name: string }) => a.name)).toEqual(["name", "style"]);
      const review = await run(["get-prompt", "review", "code=x = 012", "--", ...REFERENCE_CMD]);
      expect(review.json.data.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
      expect(review.json.data.messages[0].content.text).toContain("x = 012");
    },
    TEST_GUARD_MS,
  );

  test(
    "complete fills prompt and resource-template arguments",
    async () => {
      const prompt = await run(["complete", "--prompt", "greet", "--argument", "name=a", "--", ...REFERENCE_CMD]);
      expect(prompt.json.data.completion.values).toEqual(["alice"]);
      const template = await run(["complete", "--resource", "ref://items/{id}", "--argument", "id=item-", "--", ...REFERENCE_CMD]);
      expect(template.json.data.completion.values).toEqual(["item-1", "item-2", "item-3", "item-4", "item-5"]);
      const neither = await run(["complete", "--argument", "name=a", "--", ...REFERENCE_CMD]);
      expect(neither.code).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "ping reports a round trip",
    async () => {
      const { code, json } = await run(["ping", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data.roundTripMs).toBeGreaterThanOrEqual(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 20 MB tool result arrives whole",
    async () => {
      const { code, stdout, json } = await run(["call-tool", "big", "bytes=20000000", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(stdout.length).toBeGreaterThan(20_000_000);
      expect(json.data.content[0].text.length).toBe(20_000_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "server text in error lines on stderr is stripped of escape sequences too",
    async () => {
      const { code, stderr } = await run(["call-tool", "\u001b[2Jwipe", "--text", "--", ...REFERENCE_CMD]);
      expect(code).toBe(1);
      expect(stderr).toContain('unknown tool "wipe"');
      expect(stderr).not.toContain("\u001b");
    },
    TEST_GUARD_MS,
  );

  test(
    "--text prints readable output, with server text stripped of escape sequences",
    async () => {
      const { code, stdout } = await run(["list-tools", "--text", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(stdout).toContain("echo(message: string)");
      expect(stdout).toContain("Echo the message back");
      const call = await run(["call-tool", "echo", "message=\u001b[31mred\u001b[0m", "--text", "--", ...REFERENCE_CMD]);
      expect(call.stdout).toBe("red\n");
    },
    TEST_GUARD_MS,
  );
});

describe.concurrent("usage", () => {
  test(
    "--help shows examples, --version the version, and the server's own --help passes through",
    async () => {
      const help = await run(["call-tool", "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Examples:");
      expect(help.stdout).toContain("mcp-inspect call-tool echo message=hello -- node server.js");
      const version = await run(["--version"]);
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      // `--help` after `--` belongs to the server: the reference server ignores it and serves.
      const passthrough = await run(["list-tools", "--", ...REFERENCE_CMD, "--help"]);
      expect(passthrough.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test.each([
    [["list-tools", "--bogus", "--", "x"], "unknown option --bogus"],
    [["list-tools", "--timeout", "soon", "--", "x"], "--timeout takes milliseconds, a whole number of at least 1"],
    [["list-tools", "--protocol-version", "1999-01-01", "--", "x"], "--protocol-version takes one of 2026-07-28"],
    [["list-tools", "--url", "ftp://x"], "unsupported URL scheme"],
    [["list-tools", "--header"], "--header needs a value"],
    [["list-tools", "--config", "/nonexistent/mcp.json"], "cannot read config"],
    [["list-tools", "--timeout", "3000000000", "--", "x"], "--timeout takes at most 2147483647 ms"],
    [["lsit-tools", "--", "x"], 'unknown command "lsit-tools"'],
    [["call-tool", "--", "x"], "missing tool name"],
    [["read-resource", "--", "x"], "missing resource URI"],
    [["call-tool", "t", "__proto__.isError=true", "--", "x"], '"__proto__" is not allowed'],
  ])(
    "%j is refused: %s",
    async (args, fragment) => {
      const { code, json } = await run(args);
      expect(code).toBe(1);
      expect(json.error.message).toContain(fragment);
    },
    TEST_GUARD_MS,
  );

  test(
    "options work before the command as after it; an option's value is never taken for the command",
    async () => {
      const before = await run(["--text", "--timeout", "20000", "ping", "--", ...REFERENCE_CMD]);
      expect(before.code).toBe(0);
      expect(before.stdout).toStartWith("pong (");
      const timedOut = await run(["--timeout", "1", "list-prompts", "--", BUN, FAULTY, "silent"]);
      expect(timedOut.code).toBe(4);
      expect(timedOut.json.error.code).toBe("TIMEOUT");
      expect(timedOut.stdout).not.toContain("Usage:");
      const unknownFirst = await run(["--bogus", "ping", "--", ...REFERENCE_CMD]);
      expect(unknownFirst.code).toBe(1);
      expect(unknownFirst.json.error.message).toContain("unknown option --bogus");
    },
    TEST_GUARD_MS,
  );

  test(
    "--server takes a command line, quoted as a shell would, or a URL; a URL without a scheme is named",
    async () => {
      const { code, json } = await run(["list-tools", "--server", REFERENCE_LINE]);
      expect(code).toBe(0);
      expect(json.data.tools.length).toBeGreaterThan(5);
      const schemeless = await run(["ping", "--server", "localhost:3000/mcp"]);
      expect(schemeless.code).toBe(1);
      expect(schemeless.json.error.message).toContain("give a full http:// or https:// URL");
    },
    TEST_GUARD_MS,
  );

  test(
    "--help into a pipe: plain text, examples under their heading, every command listed, config too",
    async () => {
      const help = await run(["--help"], { env: { NO_COLOR: "" } });
      expect(help.code).toBe(0);
      expect(help.stdout).not.toContain("\u001b[");
      expect(help.stdout).toContain("\nExamples:\n  mcp-inspect list-tools -- node server.js\n");
      for (const command of ["list-tools", "call-tool", "read-resource", "get-prompt", "complete", "server-info", "ping", "mcp", "config"])
        expect(help.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
      expect(help.stdout.split("\n").every((line) => line.length <= 120)).toBe(true);
    },
    TEST_GUARD_MS,
  );

  test(
    "a named config entry works, with ${VAR} expansion",
    async () => {
      const config = join(dir, ".mcp.json");
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { ref: { command: "${RUNNER}", args: REFERENCE_CMD.slice(1), env: { FIXTURE_STARTUP_DELAY_MS: "${DELAY:-0}" } } },
        }),
      );
      const { code, json } = await run(["list-tools", "--config", config, "--server", "ref"], { env: { RUNNER: REFERENCE_CMD[0]! } });
      expect(code).toBe(0);
      expect(json.metadata.target).toBe("ref");
      expect(json.data.tools.length).toBeGreaterThan(5);
    },
    TEST_GUARD_MS,
  );
});

describe.concurrent("Streamable HTTP", () => {
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startReferenceHttp();
  });
  afterAll(() => server.stop());

  test(
    "every command works on 2026-07-28",
    async () => {
      const url = ["--url", server.url];
      const tools = await run(["list-tools", ...url]);
      expect(tools.json.metadata.protocolVersion).toBe("2026-07-28");
      expect((await run(["call-tool", "add", "a=1", "b=2", ...url])).json.data.structuredContent).toEqual({ sum: 3 });
      expect((await run(["read-resource", "ref://hello", ...url])).json.data.contents[0].text).toBe("Hello, world");
      expect((await run(["list-resources", ...url])).code).toBe(0);
      expect((await run(["list-resource-templates", ...url])).code).toBe(0);
      expect((await run(["get-prompt", "greet", "name=bob", ...url])).code).toBe(0);
      expect((await run(["list-prompts", ...url])).code).toBe(0);
      expect((await run(["complete", "--prompt", "greet", "--argument", "name=b", ...url])).json.data.completion.values).toEqual(["bob"]);
      expect((await run(["ping", ...url])).code).toBe(0);
      expect((await run(["call-tool", "fail", ...url])).code).toBe(6);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tool parameter marked x-mcp-header travels as an Mcp-Param header (the server checks it)",
    async () => {
      const checked = await run(["call-tool", "region_query", "region=us-west1", "query=q", "--url", server.url]);
      expect(checked.json.data?.content[0].text).toBe("us-west1:q");
      const unchecked = await run(["call-tool", "region_query", "region=Zürich", "query=q", "--no-validate", "--url", server.url]);
      expect(unchecked.json.data?.content[0].text).toBe("Zürich:q");
    },
    TEST_GUARD_MS,
  );

  test(
    "the 2025 handshake works too, with a session",
    async () => {
      const { code, json } = await run(["call-tool", "echo", "message=legacy", "--protocol-version", "2025-11-25", "--url", server.url]);
      expect(code).toBe(0);
      expect(json.metadata.protocolVersion).toBe("2025-11-25");
      expect(json.data.content[0].text).toBe("legacy");
    },
    TEST_GUARD_MS,
  );

  test(
    "progress arrives over SSE, every step in order before the result, and a 20 MB result arrives whole",
    async () => {
      // At debug, each notification is a stderr line as it arrives (that progress restarts --timeout is
      // test/units/inspect/watchdog.test.ts's, on a fake clock).
      const slow = await run(["call-tool", "slow", "steps=4", "delayMs=20", "--log-level", "debug", "--url", server.url]);
      expect(slow.json.data?.content[0].text).toBe("done 4 steps");
      const steps = [...slow.stderr.matchAll(/notifications\/progress \{[^\n]*"progress":(\d+),"total":4/g)].map((match) =>
        Number(match[1]),
      );
      expect(steps).toEqual([1, 2, 3, 4]);
      const big = await run(["call-tool", "big", "bytes=20000000", "--url", server.url]);
      expect(big.json.data.content[0].text.length).toBe(20_000_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "--log-file at debug gets each notification with a timestamp; below debug nothing is logged and no file is made",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-logfile-"));
      const slowAt = (level: string, file: string) =>
        run(["call-tool", "slow", "steps=2", "delayMs=5", "--log-level", level, "--log-file", file, "--url", server.url]);
      try {
        const file = join(dir, "inspect.log");
        expect((await slowAt("debug", file)).code).toBe(0);
        const lines = readFileSync(file, "utf8").trim().split("\n");
        expect(lines.filter((line) => /^\d{4}-\d\d-\d\dT\S+ info \[mcp-inspect\] notifications\/progress /.test(line))).toHaveLength(2);
        const quiet = join(dir, "quiet.log");
        expect((await slowAt("info", quiet)).code).toBe(0);
        expect(existsSync(quiet)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TEST_GUARD_MS,
  );
});
