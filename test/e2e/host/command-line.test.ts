// mcp-host as a command: bad input gets one clear line and a usage exit code, one-shot mode answers
// on stdout alone, servers come from --server, --config (stateful ones through mcp-daemon) or the
// built-in reference server, protocol pins hold or fail, and spawned servers never see the host's
// keys nor reach the terminal with escape sequences.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  closedPort,
  EVERYTHING,
  NO_VENDOR_KEYS,
  REFERENCE_CMD,
  REFERENCE_ENTRY,
  REFERENCE_LINE,
  runTool,
  TEST_GUARD_MS,
  until,
} from "../../support/helpers.ts";

const host = (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
  runTool("mcp-host.ts", args, { ...options, env: { ...NO_VENDOR_KEYS, ...options.env } });
const scratch = mkdtempSync(join(tmpdir(), "mcp-host-test-"));
afterAll(async () => {
  await runTool("mcp-daemon.ts", ["stop"], { env: { MCPKIT_DAEMON_DIR: daemonDir } });
  rmSync(scratch, { recursive: true, force: true });
  rmSync(daemonDir, { recursive: true, force: true });
});
const daemonDir = mkdtempSync("/tmp/mcph-");

describe("bad input: one line on stderr, exit 1, nothing started", () => {
  const cases: [string, string[], RegExp][] = [
    ["an unknown flag", ["--bogus"], /^error: unknown option --bogus \(see --help\)\n$/],
    ["an unknown provider", ["--provider", "nope"], /unknown provider "nope" \(choose anthropic, openai, gemini, scripted\)/],
    ["an unknown protocol version", ["--protocol-version", "1999-01-01"], /--protocol-version takes one of .*, not "1999-01-01"/],
    ["--legacy with --protocol-version", ["--legacy", "--protocol-version", "2025-06-18"], /give --legacy or --protocol-version, not both/],
    ["a callback port that is not a port", ["--callback-port", "80x"], /--callback-port takes a port number/],
    ["a server command with an open quote", ["--server", "bun 'server.ts"], /unterminated ' quote/],
    ["a missing config file", ["--config", "/nonexistent/mcp.json"], /cannot read config \/nonexistent\/mcp.json \(ENOENT\)/],
    ["a stray positional argument", ["hello"], /unexpected argument "hello" \(a message goes in -p/],
    ["an empty one-shot message", ["-p", " "], /-p needs a message/],
    ["--server with no value", ["--server"], /--server needs a value/],
    [
      "a URL without a scheme",
      ["--server", "mcp.example.com/mcp"],
      /looks like a URL without a scheme \(give a full http:\/\/ or https:\/\/ URL\)/,
    ],
    [
      "a client secret variable that is not set",
      ["--client-id", "app", "--client-secret-env", "MCPKIT_UNSET_SECRET"],
      /--client-secret-env MCPKIT_UNSET_SECRET: that variable is not set/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const result = await host(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stdout).toBe("");
    });
  }
});

test("--help teaches with examples", async () => {
  const result = await host(["--help"]);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("mcp-host --server http://127.0.0.1:3000/mcp --provider anthropic");
  expect(result.stdout).toContain("--protocol-version");
});

test(
  "a server that cannot start is reported, and with none connected the host exits 2",
  async () => {
    const result = await host(["--server", "/nonexistent/server --flag", "-p", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("could not connect to server:");
    expect(result.stderr).toContain("error: no server could be connected");
  },
  TEST_GUARD_MS,
);

describe("one-shot mode", () => {
  test(
    "answers on stdout alone (the built-in reference server, the scripted model) and exits 0",
    async () => {
      const result = await host(["-p", "call add a=2 b=3"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("mcp__reference__add returned: 5");
      expect(result.stdout).not.toContain("connected to");
      expect(result.stderr).toContain(`connected to "mcpkit-reference" as reference (2026-07-28, 18 tools`);
    },
    TEST_GUARD_MS,
  );

  test(
    "exits 6 when a tool failed and the model gave up",
    async () => {
      const result = await host(["-p", "fail"]);
      expect(result.code).toBe(6);
      expect(result.stdout).toContain("failed: fail: requested failure");
    },
    TEST_GUARD_MS,
  );

  test(
    "a server that needs a browser step first (-32042): the user is asked, the model is told to retry",
    async () => {
      const result = await host(["--server", EVERYTHING, "-p", "trigger-url-elicitation url=https://example.com/step errorPath=true"], {
        stdin: "n\n",
      });
      expect(result.code).toBe(6);
      expect(result.stderr).toContain("asks you to open a page: Open this link to satisfy the prerequisite");
      expect(result.stderr).toContain("Open it in your browser? [y/N] n");
      expect(result.stdout).toContain("needs a step in the user's browser before this call can succeed");
      expect(result.stdout).toContain("the user declined");
    },
    TEST_GUARD_MS,
  );

  test(
    "talks to a published server: @modelcontextprotocol/server-everything",
    async () => {
      const result = await host(["--server", EVERYTHING, "-p", "echo hello from the host"]);
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/connected to "[^"]+" as [\w-]+ \(2025-11-25, \d+ tools/);
      expect(result.stdout).toContain("Echo: hello from the host");
    },
    TEST_GUARD_MS,
  );
});

describe("protocol revisions", () => {
  test(
    "--protocol-version 2025-06-18 holds the connection to exactly that revision",
    async () => {
      const result = await host(["--server", REFERENCE_LINE, "--protocol-version", "2025-06-18", "-p", "hi"]);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`as mcpkit-reference (2025-06-18,`);
    },
    TEST_GUARD_MS,
  );

  test(
    "--protocol-version 2026-07-28 against a 2025-only server fails instead of settling",
    async () => {
      const result = await host(["--server", EVERYTHING, "--protocol-version", "2026-07-28", "-p", "hi"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("could not connect to");
      expect(result.stderr).toContain("error: no server could be connected");
    },
    TEST_GUARD_MS,
  );
});

describe("servers from a config file", () => {
  test(
    "every entry is connected under its own name, tools namespaced apart",
    async () => {
      const config = join(scratch, "two.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { "alpha one": { ...REFERENCE_ENTRY }, beta: { ...REFERENCE_ENTRY } } }));
      const result = await host(["--config", config], { stdin: "/tools\ncall mcp__beta__add a=1 b=2\n/quit\n" });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("mcp__alpha_one__echo");
      expect(result.stdout).toContain("mcp__beta__echo");
      expect(result.stdout).toContain("← beta/add: 3");
    },
    TEST_GUARD_MS,
  );

  test(
    "a stateful entry goes through mcp-daemon: the same server process answers two host runs",
    async () => {
      const config = join(scratch, "stateful.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { kept: { ...REFERENCE_ENTRY, stateful: true } } }));
      const env = { MCPKIT_DAEMON_DIR: daemonDir };
      const first = await host(["--config", config, "-p", "whoami"], { env });
      const second = await host(["--config", config, "-p", "whoami"], { env });
      expect(first.code).toBe(0);
      const pid = /whoami returned: (\d+)/.exec(first.stdout)?.[1];
      expect(pid).toBeDefined();
      expect(second.stdout).toContain(`whoami returned: ${pid}`);
      expect(Number(pid)).not.toBe(process.pid);
    },
    TEST_GUARD_MS,
  );
});

describe("safety", () => {
  test(
    "a spawned server gets a minimal environment: never the host's API keys",
    async () => {
      const probe = `sh -c 'echo "env-probe key=[$OPENAI_API_KEY] path=[$PATH]" >&2; exec ${REFERENCE_CMD.join(" ")}'`;
      const result = await host(["--server", probe, "--provider", "scripted", "-p", "hi"], { env: { OPENAI_API_KEY: "sk-must-not-leak" } });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain("env-probe key=[] path=[");
      expect(result.stderr).not.toContain("sk-must-not-leak");
    },
    TEST_GUARD_MS,
  );

  test(
    "escape sequences in server text never reach the terminal",
    async () => {
      const hostile = "hi\u001b[2J\u001b]0;pwned\u0007\u001b[31mred";
      const result = await host(["-p", `echo ${hostile}`]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("returned: hired");
      expect(result.stdout + result.stderr).not.toContain("\u001b");
      expect(result.stdout + result.stderr).not.toContain("\u0007");
    },
    TEST_GUARD_MS,
  );
});

test(
  "a vendor SDK drives the tool loop: Anthropic's, against a loopback fake of its API",
  async () => {
    const { anthropicStream, startFakeVendor } = await import("../../fixtures/fake-vendors.ts");
    const fake = startFakeVendor("anthropic");
    try {
      fake.replies = [
        anthropicStream({
          model: "claude-test",
          text: ["Let me add."],
          toolCall: { id: "toolu_1", name: "mcp__reference__add", argumentChunks: ['{"a": 2,', ' "b": 3}'] },
          stop: "tool_use",
        }),
        anthropicStream({ model: "claude-test", text: ["The sum ", "is 5."], stop: "end_turn" }),
      ];
      const env = { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-test" };
      const result = await host(["-p", "what is 2+3?"], { env });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain("model anthropic/claude-test");
      expect(result.stdout).toContain("The sum is 5.");
      const [first, second] = fake.requestsTo("/messages").map((request) => request.body);
      expect(first.tools.map((tool: { name: string }) => tool.name)).toContain("mcp__reference__add");
      const toolResult = second.messages.at(-1).content[0];
      expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
      expect(JSON.stringify(toolResult.content)).toContain('"5"');
    } finally {
      fake.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  "a legacy HTTP+SSE URL falls back to that transport, as mcp-inspect does, and the server goes by its host's name",
  async () => {
    const { startHttpServer, closedPort: freePort } = await import("../../support/helpers.ts");
    const port = freePort();
    const server = await startHttpServer([BUN, EVERYTHING, "sse"], { env: { PORT: String(port) }, pattern: /running on port (\d+)/ });
    try {
      const result = await host(["--server", `http://127.0.0.1:${port}/sse`, "-p", "call echo message=over-sse"]);
      expect(result.stderr).toMatch(/connected to "[^"]+" as localhost \(2025-/);
      expect(result.stderr).not.toContain("Cannot POST");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("over-sse");
    } finally {
      await server.stop();
    }
  },
  TEST_GUARD_MS,
);

describe("leaving closes every server", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    test(
      `${signal}: the host exits ${code} and its server process is gone`,
      async () => {
        const { HostDriver } = await import("../../support/host-driver.ts");
        const { processAlive } = await import("../../../lib/io/process.ts");
        const host = new HostDriver(["--server", REFERENCE_LINE]);
        try {
          host.send("whoami");
          const [, pid] = await host.waitFor(/whoami returned: (\d+)/);
          host.child.kill(signal);
          expect(await host.exit()).toBe(code);
          await until(() => !processAlive(Number(pid)), "the server process to go");
        } finally {
          host.child.kill("SIGKILL");
        }
      },
      TEST_GUARD_MS,
    );
  }

  test(
    "Ctrl-C while a server is still in its handshake leaves at once with 130, and stops that server",
    async () => {
      const { HostDriver } = await import("../../support/host-driver.ts");
      const { processAlive } = await import("../../../lib/io/process.ts");
      const host = new HostDriver(["--server", `sh -c 'echo pid=$$ >&2; exec sleep 600'`]);
      try {
        const pid = Number(await until(() => /pid=(\d+)/.exec(host.stderr)?.[1], "the server's pid on stderr"));
        expect(processAlive(pid)).toBe(true);
        host.interrupt();
        expect(await host.exit()).toBe(130);
        await until(() => !processAlive(pid), "the server in its handshake to be stopped");
      } finally {
        host.child.kill("SIGKILL");
      }
    },
    TEST_GUARD_MS,
  );
});

test(
  "a model that keeps calling tools is stopped after the round cap",
  async () => {
    const { anthropicStream, startFakeVendor } = await import("../../fixtures/fake-vendors.ts");
    const { MAX_TOOL_ROUNDS } = await import("../../../host/chat.ts");
    const fake = startFakeVendor("anthropic");
    try {
      // The last reply repeats: a tool call, every time.
      fake.replies = [
        anthropicStream({
          model: "claude-test",
          toolCall: { id: "toolu_loop", name: "mcp__reference__echo", argumentChunks: ['{"message":"again"}'] },
          stop: "tool_use",
        }),
      ];
      const env = { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-test" };
      const result = await host(["-p", "loop"], { env });
      expect(result.stderr).toContain(`stopped: the model called tools ${MAX_TOOL_ROUNDS} rounds in a row`);
      expect(fake.requestsTo("/messages")).toHaveLength(MAX_TOOL_ROUNDS);
      expect(result.code).toBe(6);
    } finally {
      fake.stop();
    }
  },
  TEST_GUARD_MS,
);

test(
  "the model failing is exit 7 with one line, in -p and when its model cannot even be resolved",
  async () => {
    const { startFakeVendor } = await import("../../fixtures/fake-vendors.ts");
    const fake = startFakeVendor("anthropic");
    try {
      fake.replies = [
        { kind: "error", status: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } },
      ];
      const env = { ANTHROPIC_API_KEY: "sk-bad", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-test" };
      const answered = await host(["-p", "hi"], { env });
      expect(answered.code).toBe(7);
      expect(answered.stderr).toContain("invalid x-api-key");
      const unresolved = await host(["-p", "hi"], {
        env: { ANTHROPIC_API_KEY: "sk-bad", ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort()}` },
      });
      expect(unresolved.code).toBe(7);
      expect(unresolved.stderr).toMatch(/^error: anthropic: .+\n$/);
    } finally {
      fake.stop();
    }
  },
  TEST_GUARD_MS,
);
