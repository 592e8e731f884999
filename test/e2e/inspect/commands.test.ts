// mcp-inspect end to end: the real entry script against real server processes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  EVERYTHING,
  FAULTY,
  type HttpFixture,
  inspect,
  REFERENCE,
  REFERENCE_CMD,
  ROOT,
  readUntil,
  startReferenceHttp,
  TEST_GUARD_MS,
  until,
} from "../../support/helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("stdio, 2026-07-28 by default", () => {
  test(
    "list-tools prints one success envelope with every tool and the negotiated revision",
    async () => {
      const { code, json, stderr } = await inspect(["list-tools", "--", ...REFERENCE_CMD]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(json.success).toBe(true);
      expect(json.data.tools.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(["echo", "add", "fail", "slow", "big", "log", "typed"]),
      );
      expect(json.metadata).toMatchObject({ command: "list-tools", protocolVersion: "2026-07-28" });
      expect(typeof json.metadata.durationMs).toBe("number");
      expect(json.metadata.target).toContain("reference/main.ts");
    },
    TEST_GUARD_MS,
  );

  test(
    "--protocol-version pins the 2025 handshake",
    async () => {
      const { code, json } = await inspect(["server-info", "--protocol-version", "2025-11-25", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25", serverInfo: { name: "mcpkit-reference" } });
      expect(json.data.instructions).toBe("Reference server for mcpkit tests.");
    },
    TEST_GUARD_MS,
  );

  test(
    "server-info shows identity, capabilities and instructions",
    async () => {
      const { json } = await inspect(["server-info", "--", ...REFERENCE_CMD]);
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
      const { code, json } = await inspect([
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
      const inline = await inspect(["call-tool", "add", "--params", '{"a":2,"b":3}', "--", ...REFERENCE_CMD]);
      const fromFile = await inspect(["call-tool", "add", "--params", `@${file}`, "b=1", "--", ...REFERENCE_CMD]);
      const fromStdin = await inspect(["call-tool", "add", "--params", "-", "--", ...REFERENCE_CMD], { stdin: '{"a":7,"b":7}' });
      expect(inline.json.data.structuredContent).toEqual({ sum: 5 });
      expect(fromFile.json.data.structuredContent).toEqual({ sum: 11 });
      expect(fromStdin.json.data.structuredContent).toEqual({ sum: 14 });
    },
    TEST_GUARD_MS,
  );

  test(
    "a bad argument is named before the call, and --no-validate sends it anyway",
    async () => {
      const bad = await inspect(["call-tool", "typed", "code=x", "count=many", "--", ...REFERENCE_CMD]);
      expect(bad.code).toBe(1);
      expect(bad.json.error.code).toBe("USAGE_ERROR");
      expect(bad.json.error.message).toContain("arguments.count: expected integer");
      const missing = await inspect(["call-tool", "typed", "count=1", "--", ...REFERENCE_CMD]);
      expect(missing.json.error.message).toContain("arguments.code: required");
      const unchecked = await inspect(["call-tool", "typed", "code=x", "count=many", "--no-validate", "--", ...REFERENCE_CMD]);
      // The server itself rejects it: a protocol error or an isError result, never our usage error.
      expect([5, 6]).toContain(unchecked.code);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tool result with isError exits 6 and still carries the result",
    async () => {
      const { code, json } = await inspect(["call-tool", "fail", "--", ...REFERENCE_CMD]);
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
      const unknown = await inspect(["call-tool", "nope", "--", ...REFERENCE_CMD]);
      expect(unknown.code).toBe(1);
      expect(unknown.json.error.message).toMatch(/unknown tool "nope" \(the server has: echo, add/);
      const malformed = await inspect(["call-tool", "add", "--params", "{a:1", "--", ...REFERENCE_CMD]);
      expect(malformed.code).toBe(1);
      expect(malformed.json.error.message).toContain("--params is not valid JSON");
      const notObject = await inspect(["call-tool", "add", "--params", "[1]", "--", ...REFERENCE_CMD]);
      expect(notObject.json.error.message).toContain("must be a JSON object");
      const badPair = await inspect(["call-tool", "add", "novalue", "--", ...REFERENCE_CMD]);
      expect(badPair.json.error.message).toContain('bad argument "novalue"');
    },
    TEST_GUARD_MS,
  );

  test(
    "resources, templates, binary contents",
    async () => {
      const resources = await inspect(["list-resources", "--", ...REFERENCE_CMD]);
      expect(resources.json.data.resources.map((r: { uri: string }) => r.uri)).toEqual(
        expect.arrayContaining(["ref://hello", "ref://data.json", "ref://pixel.png"]),
      );
      const templates = await inspect(["list-resource-templates", "--", ...REFERENCE_CMD]);
      expect(templates.json.data.resourceTemplates[0].uriTemplate).toBe("ref://items/{id}");
      const hello = await inspect(["read-resource", "ref://hello", "--", ...REFERENCE_CMD]);
      expect(hello.json.data.contents[0]).toMatchObject({ uri: "ref://hello", text: "Hello, world" });
      const pixel = await inspect(["read-resource", "ref://pixel.png", "--", ...REFERENCE_CMD]);
      expect(typeof pixel.json.data.contents[0].blob).toBe("string");
      const item = await inspect(["read-resource", "ref://items/item-3", "--", ...REFERENCE_CMD]);
      expect(item.code).toBe(0);
      expect(JSON.stringify(item.json.data.contents)).toContain("item-3");
    },
    TEST_GUARD_MS,
  );

  test(
    "prompts keep their arguments and message roles",
    async () => {
      const prompts = await inspect(["list-prompts", "--", ...REFERENCE_CMD]);
      const greet = prompts.json.data.prompts.find((p: { name: string }) => p.name === "greet");
      expect(greet.arguments.map((a: { name: string }) => a.name)).toEqual(["name", "style"]);
      const review = await inspect(["get-prompt", "review", "code=x = 012", "--", ...REFERENCE_CMD]);
      expect(review.json.data.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
      expect(review.json.data.messages[0].content.text).toContain("x = 012");
    },
    TEST_GUARD_MS,
  );

  test(
    "complete fills prompt and resource-template arguments",
    async () => {
      const prompt = await inspect(["complete", "--prompt", "greet", "--argument", "name=a", "--", ...REFERENCE_CMD]);
      expect(prompt.json.data.completion.values).toEqual(["alice"]);
      const template = await inspect(["complete", "--resource", "ref://items/{id}", "--argument", "id=item-", "--", ...REFERENCE_CMD]);
      expect(template.json.data.completion.values).toEqual(["item-1", "item-2", "item-3", "item-4", "item-5"]);
      const neither = await inspect(["complete", "--argument", "name=a", "--", ...REFERENCE_CMD]);
      expect(neither.code).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "ping reports a round trip",
    async () => {
      const { code, json } = await inspect(["ping", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data.roundTripMs).toBeGreaterThanOrEqual(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "progress notifications restart the --timeout timer",
    async () => {
      // 12 steps of 500 ms take 6 s, longer than the 5 s timeout, but progress arrives every 500 ms:
      // only a step ten times slower than asked (a machine stalled for 5 s) could fail this. (1.5 s
      // against 250 ms steps failed on a 2-core box at load 14.)
      const { code, json } = await inspect(["call-tool", "slow", "steps=12", "delayMs=500", "--timeout", "5000", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data.content[0].text).toBe("done 12 steps");
    },
    TEST_GUARD_MS,
  );

  test(
    "a 20 MB tool result arrives whole",
    async () => {
      const { code, stdout, json } = await inspect(["call-tool", "big", "bytes=20000000", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(stdout.length).toBeGreaterThan(20_000_000);
      expect(json.data.content[0].text.length).toBe(20_000_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "server text in error lines on stderr is stripped of escape sequences too",
    async () => {
      const { code, stderr } = await inspect(["call-tool", "\u001b[2Jwipe", "--text", "--", ...REFERENCE_CMD]);
      expect(code).toBe(1);
      expect(stderr).toContain('unknown tool "wipe"');
      expect(stderr).not.toContain("\u001b");
    },
    TEST_GUARD_MS,
  );

  test(
    "--text prints readable output, with server text stripped of escape sequences",
    async () => {
      const { code, stdout } = await inspect(["list-tools", "--text", "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(stdout).toContain("echo(message: string)");
      expect(stdout).toContain("Echo the message back");
      const call = await inspect(["call-tool", "echo", "message=\u001b[31mred\u001b[0m", "--text", "--", ...REFERENCE_CMD]);
      expect(call.stdout).toBe("red\n");
    },
    TEST_GUARD_MS,
  );
});

describe("stdio servers that misbehave", () => {
  test(
    "a server that prints junk on stdout before and between messages still works",
    async () => {
      const list = await inspect(["list-tools", "--", BUN, FAULTY, "junk"]);
      expect(list.code).toBe(0);
      expect(list.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
      const call = await inspect(["call-tool", "echo", "message=hi", "--", BUN, FAULTY, "junk"]);
      expect(call.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 2025 server that answers server/discover with an empty result {} is a legacy server: initialize follows, on the same process",
    async () => {
      const list = await inspect(["list-tools", "--", BUN, FAULTY, "empty-result"]);
      expect(list.code).toBe(0);
      expect(list.json.metadata.protocolVersion).toBe("2025-11-25");
      expect(list.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-inspect through mcp-proxy to a 2025-only server: the server's -32601 to server/discover passes through as the error it is",
    async () => {
      const list = await inspect(["list-tools", "--", BUN, join(ROOT, "mcp-proxy.ts"), "--", BUN, FAULTY]);
      expect(list.code).toBe(0);
      expect(list.json.metadata.protocolVersion).toBe("2025-11-25");
      expect(list.json.data.tools.map((t: { name: string }) => t.name)).toEqual(["echo", "restart_server"]);
    },
    TEST_GUARD_MS,
  );

  test(
    "responses to ids never sent are skipped",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "unknown-id"]);
      expect(code).toBe(0);
      expect(json.data.tools.length).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that exits at once is a connection failure that shows its stderr",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "exit-now"]);
      expect(code).toBe(2);
      expect(json.error.code).toBe("CONNECTION_FAILED");
      expect(json.error.message).toContain("exited with code 3");
      expect(json.error.details.serverStderr).toContain("boom");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that dies mid-session is a connection failure",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "die-mid"]);
      expect(code).toBe(2);
      expect(json.error.message).toContain("lost the server");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that never answers times out with exit 4",
    async () => {
      const started = Date.now();
      const { code, json } = await inspect(["list-tools", "--timeout", "1500", "--", BUN, FAULTY, "silent"]);
      expect(code).toBe(4);
      expect(json.error.code).toBe("TIMEOUT");
      expect(Date.now() - started).toBeLessThan(15_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "a command that does not exist, and a missing command after --",
    async () => {
      const missing = await inspect(["list-tools", "--", "no-such-command-mcpkit"]);
      expect(missing.code).toBe(2);
      expect(missing.json.error.message).toContain("command not found: no-such-command-mcpkit");
      const empty = await inspect(["list-tools", "--"]);
      expect(empty.code).toBe(1);
      expect(empty.json.error.message).toContain("no server given");
    },
    TEST_GUARD_MS,
  );

  test(
    "Ctrl-C cancels the call, tells the server, and exits 130",
    async () => {
      const child = Bun.spawn(
        [BUN, "mcp-inspect.ts", "call-tool", "slow", "steps=100", "delayMs=100", "--verbose", "--", ...REFERENCE_CMD],
        {
          stdout: "pipe",
          stderr: "pipe",
          env: { ...process.env, NO_COLOR: "1" },
        },
      );
      // Wait for the first progress notification, so the call is under way.
      const reader = child.stderr.getReader();
      let seen = await readUntil(reader, (text) => text.includes("notifications/progress"));
      child.kill("SIGINT");
      const code = await child.exited;
      const stdout = await new Response(child.stdout).text();
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      expect(code).toBe(130);
      expect(JSON.parse(stdout).error.code).toBe("CANCELLED");
      // The server's own stderr (shown with --verbose) says the cancellation reached it.
      expect(seen).toContain("slow: cancelled after");
    },
    TEST_GUARD_MS,
  );

  test(
    "SIGHUP and a second Ctrl-C still end with an envelope, and no server is left behind",
    async () => {
      const token = `--hup-${process.pid}-${Date.now()}`;
      const child = Bun.spawn([BUN, "mcp-inspect.ts", "list-tools", "--", BUN, FAULTY, "stubborn", token], {
        stdout: "pipe",
        stderr: "pipe",
      });
      // Its server is up (the token is in both command lines): mcp-inspect set its signal handlers before it spawned it.
      await until(
        () => Bun.spawnSync(["pgrep", "-f", "--", token]).stdout.toString().trim().split("\n").length >= 2,
        "both server processes",
      );
      child.kill("SIGHUP");
      // The envelope is out while the stubborn server is still being stopped: a Ctrl-C now changes nothing.
      const reader = child.stdout.getReader();
      const first = await reader.read();
      child.kill("SIGINT");
      let out = new TextDecoder().decode(first.value);
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += new TextDecoder().decode(chunk.value);
      const code = await child.exited;
      expect(code).toBe(129);
      expect(JSON.parse(out).error.code).toBe("CANCELLED");
      expect(Bun.spawnSync(["pgrep", "-f", token]).stdout.toString().trim()).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "the result is printed before the server is shut down",
    async () => {
      // The stubborn server needs SIGKILL after two grace periods; the envelope must not wait for that.
      const { json } = await inspect(["list-tools", "--timeout", "800", "--", BUN, FAULTY, "stubborn"]);
      expect(json.error.code).toBe("TIMEOUT");
      expect(json.metadata.durationMs).toBeLessThan(2_500);
    },
    TEST_GUARD_MS,
  );

  test(
    "a message over the size cap fails at once instead of looking like a timeout",
    async () => {
      const { code, json } = await inspect(["call-tool", "big", "bytes=40000000", "--", ...REFERENCE_CMD]);
      expect(code).toBe(5);
      expect(json.error.message).toContain("over the");
      expect(json.metadata.durationMs).toBeLessThan(30_000);
    },
    TEST_GUARD_MS,
  );

  test(
    "a malformed list from the server is a protocol error",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", BUN, FAULTY, "malformed"]);
      expect(code).toBe(5);
      expect(json.error.message).toContain("malformed");
    },
    TEST_GUARD_MS,
  );

  test(
    "the default negotiation spawns a stdio server once, for a 2026 and for a 2025 server",
    async () => {
      const counter = join(dir, "spawns");
      for (const server of [REFERENCE_CMD.join(" "), `${BUN} ${EVERYTHING}`]) {
        writeFileSync(counter, "");
        const { code } = await inspect(["list-tools", "--", "/bin/sh", "-c", `echo spawn >> ${counter}; exec ${server}`]);
        expect(code).toBe(0);
        expect(readFileSync(counter, "utf8").trim().split("\n")).toEqual(["spawn"]);
      }
    },
    TEST_GUARD_MS,
  );
});

describe("usage", () => {
  test(
    "--help shows examples, --version the version, and the server's own --help passes through",
    async () => {
      const help = await inspect(["call-tool", "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Examples:");
      expect(help.stdout).toContain("mcp-inspect call-tool echo message=hello -- node server.js");
      const version = await inspect(["--version"]);
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      // `--help` after `--` belongs to the server: the reference server ignores it and serves.
      const passthrough = await inspect(["list-tools", "--", ...REFERENCE_CMD, "--help"]);
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
  ])("%j is refused: %s", async (args, fragment) => {
    const { code, json } = await inspect(args);
    expect(code).toBe(1);
    expect(json.error.message).toContain(fragment);
  });

  test(
    "options work before the command as after it; an option's value is never taken for the command",
    async () => {
      const before = await inspect(["--text", "--timeout", "20000", "ping", "--", ...REFERENCE_CMD]);
      expect(before.code).toBe(0);
      expect(before.stdout).toStartWith("pong (");
      const timedOut = await inspect(["--timeout", "1", "list-prompts", "--", BUN, FAULTY, "silent"]);
      expect(timedOut.code).toBe(4);
      expect(timedOut.json.error.code).toBe("TIMEOUT");
      expect(timedOut.stdout).not.toContain("Usage:");
      const unknownFirst = await inspect(["--bogus", "ping", "--", ...REFERENCE_CMD]);
      expect(unknownFirst.code).toBe(1);
      expect(unknownFirst.json.error.message).toContain("unknown option --bogus");
    },
    TEST_GUARD_MS,
  );

  test(
    "--server takes a command line, quoted as a shell would, or a URL; a URL without a scheme is named",
    async () => {
      const { code, json } = await inspect(["list-tools", "--server", `${BUN} "${REFERENCE}"`]);
      expect(code).toBe(0);
      expect(json.data.tools.length).toBeGreaterThan(5);
      const schemeless = await inspect(["ping", "--server", "localhost:3000/mcp"]);
      expect(schemeless.code).toBe(1);
      expect(schemeless.json.error.message).toContain("give a full http:// or https:// URL");
    },
    TEST_GUARD_MS,
  );

  test(
    "--help into a pipe: plain text, examples under their heading, every command listed, config too",
    async () => {
      const help = await inspect(["--help"], { env: { NO_COLOR: "" } });
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
          mcpServers: { ref: { command: "${RUNNER}", args: [REFERENCE], env: { FIXTURE_STARTUP_DELAY_MS: "${DELAY:-0}" } } },
        }),
      );
      const { code, json } = await inspect(["list-tools", "--config", config, "--server", "ref"], { env: { RUNNER: BUN } });
      expect(code).toBe(0);
      expect(json.metadata.target).toBe("ref");
      expect(json.data.tools.length).toBeGreaterThan(5);
    },
    TEST_GUARD_MS,
  );
});

describe("Streamable HTTP", () => {
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startReferenceHttp();
  });
  afterAll(() => server.stop());

  test(
    "every command works on 2026-07-28",
    async () => {
      const url = ["--url", server.url];
      const tools = await inspect(["list-tools", ...url]);
      expect(tools.json.metadata.protocolVersion).toBe("2026-07-28");
      expect((await inspect(["call-tool", "add", "a=1", "b=2", ...url])).json.data.structuredContent).toEqual({ sum: 3 });
      expect((await inspect(["read-resource", "ref://hello", ...url])).json.data.contents[0].text).toBe("Hello, world");
      expect((await inspect(["list-resources", ...url])).code).toBe(0);
      expect((await inspect(["list-resource-templates", ...url])).code).toBe(0);
      expect((await inspect(["get-prompt", "greet", "name=bob", ...url])).code).toBe(0);
      expect((await inspect(["list-prompts", ...url])).code).toBe(0);
      expect((await inspect(["complete", "--prompt", "greet", "--argument", "name=b", ...url])).json.data.completion.values).toEqual([
        "bob",
      ]);
      expect((await inspect(["ping", ...url])).code).toBe(0);
      expect((await inspect(["call-tool", "fail", ...url])).code).toBe(6);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tool parameter marked x-mcp-header travels as an Mcp-Param header (the server checks it)",
    async () => {
      const checked = await inspect(["call-tool", "region_query", "region=us-west1", "query=q", "--url", server.url]);
      expect(checked.json.data?.content[0].text).toBe("us-west1:q");
      const unchecked = await inspect(["call-tool", "region_query", "region=Zürich", "query=q", "--no-validate", "--url", server.url]);
      expect(unchecked.json.data?.content[0].text).toBe("Zürich:q");
    },
    TEST_GUARD_MS,
  );

  test(
    "the 2025 handshake works too, with a session",
    async () => {
      const { code, json } = await inspect([
        "call-tool",
        "echo",
        "message=legacy",
        "--protocol-version",
        "2025-11-25",
        "--url",
        server.url,
      ]);
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
      const slow = await inspect(["call-tool", "slow", "steps=4", "delayMs=20", "--log-level", "debug", "--url", server.url]);
      expect(slow.json.data?.content[0].text).toBe("done 4 steps");
      const steps = [...slow.stderr.matchAll(/notifications\/progress \{[^\n]*"progress":(\d+),"total":4/g)].map((match) =>
        Number(match[1]),
      );
      expect(steps).toEqual([1, 2, 3, 4]);
      const big = await inspect(["call-tool", "big", "bytes=20000000", "--url", server.url]);
      expect(big.json.data.content[0].text.length).toBe(20_000_000);
    },
    TEST_GUARD_MS,
  );
});
