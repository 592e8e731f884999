// mcp-inspect's start-up order (its own start-up overlaps the server's): a one-shot command spawns a plain stdio server before
// the rest of mcp-inspect loads. What must hold: the early server is the very server the command
// uses (spawned once, with its --env, --cwd and stderr), usage that is wrong or not understood
// early spawns nothing, and a server started for a call that then fails its checks is stopped.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, FAULTY, inspect, REFERENCE_CMD, REFERENCE_LINE, ROOT, TEST_GUARD_MS } from "../../support/helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server command line that appends a line (its working directory and $MARK) to `counter` each time it starts. */
const counted = (counter: string, server: string) => ["/bin/sh", "-c", `echo "$PWD $MARK" >> ${counter}; exec ${server}`];
const starts = (counter: string) => readFileSync(counter, "utf8").split("\n").filter(Boolean);
const running = (token: string) => Bun.spawnSync(["pgrep", "-f", "--", token]).stdout.toString().trim();

test(
  "the early server is the server: started once, with --env and --cwd, its stderr shown with --verbose",
  async () => {
    const counter = join(dir, "once");
    writeFileSync(counter, "");
    const called = await inspect([
      "call-tool",
      "echo",
      "message=hi",
      "--env",
      "MARK=early",
      "--cwd",
      dir,
      "--",
      ...counted(counter, `${BUN} ${FAULTY}`),
    ]);
    expect(called.code).toBe(0);
    expect(called.json.data.content[0].text).toBe("hi");
    expect(starts(counter)).toEqual([`${dir} early`]);
    // What the server wrote before the session took it over is shown too.
    const verbose = await inspect(["list-tools", "--verbose", "--", BUN, FAULTY, "exit-now"]);
    expect(verbose.code).toBe(2);
    expect(verbose.json.error.message).toContain("exited with code 3");
    expect(verbose.stderr).toContain("boom");
  },
  TEST_GUARD_MS,
);

test(
  "a config entry's stdio server is started once",
  async () => {
    const counter = join(dir, "config");
    writeFileSync(counter, "");
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { ref: { command: "/bin/sh", args: ["-c", `pwd >> ${counter}; exec ${REFERENCE_LINE}`] } } }),
    );
    const { code, json } = await inspect(["list-tools", "--config", config, "--server", "ref"]);
    expect(code).toBe(0);
    expect(json.data.tools.length).toBeGreaterThan(5);
    expect(starts(counter)).toHaveLength(1);
  },
  TEST_GUARD_MS,
);

test.each([
  ["an unknown flag", ["list-tools", "--bogus"], "unknown option --bogus"],
  ["--help", ["list-tools", "--help"], undefined],
  ["a bad --timeout", ["ping", "--timeout", "soon"], "--timeout takes milliseconds, a whole number of at least 1"],
  ["--json with --text", ["ping", "--json", "--text"], "not both"],
  ["a missing tool name", ["call-tool"], "missing tool name"],
])(
  "%s starts no server",
  async (_what, args, fragment) => {
    const counter = join(dir, `none-${args.join("")}`);
    writeFileSync(counter, "");
    const run = await inspect([...args, "--", ...counted(counter, REFERENCE_LINE)]);
    if (fragment) {
      expect(run.code).toBe(1);
      expect(run.json.error.message).toContain(fragment);
    } else {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Examples:");
    }
    expect(starts(counter)).toEqual([]);
  },
  TEST_GUARD_MS,
);

test(
  "a call that fails its checks after its server was started stops that server, even one that ignores SIGTERM",
  async () => {
    const token = `--startup-${process.pid}-${Date.now()}`;
    const run = await inspect(["call-tool", "echo", "__proto__.isError=true", "--", BUN, FAULTY, "stubborn", token]);
    expect(run.code).toBe(1);
    expect(run.json.error.message).toContain('"__proto__" is not allowed');
    expect(running(token)).toBe("");
  },
  TEST_GUARD_MS,
);

test("mcp-inspect.ts loads nothing statically but the early server (else the server would start after it all)", () => {
  const source = readFileSync(join(ROOT, "mcp-inspect.ts"), "utf8");
  const loaded = source.split("\n").filter((line) => /^import (?!type )/.test(line));
  expect(loaded).toEqual([
    'import { discardEarly, earlyCall, earlyInterruption, startEarly } from "./inspect/early-server.ts";',
    // The declarations early-server itself is read from: no more loads for them.
    'import { ONE_SHOT, type OneShotName } from "./inspect/flags.ts";',
    'import pkg from "./package.json" with { type: "json" };',
  ]);
});

test(
  "--stateful attaches to mcp-daemon before the rest loads, and the call uses that very attach",
  async () => {
    // A stand-in daemon on a real socket: it counts attach frames and answers as mcp-daemon does,
    // with the session extension's cached handshake, so one attach and one tools/call make the call.
    const daemon = mkdtempSync("/tmp/mcpd-early-");
    const frames: { type?: string; server?: { command?: string; args?: string[] } }[] = [];
    const calls: string[] = [];
    const identity = {
      era: "legacy",
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "stand-in", version: "1" },
    };
    const listener = Bun.listen<{ buffer: string; attached: boolean }>({
      unix: join(daemon, "daemon.sock"),
      socket: {
        open: (socket) => void (socket.data = { buffer: "", attached: false }),
        data(socket, chunk) {
          socket.data.buffer += chunk.toString();
          let newline: number;
          while ((newline = socket.data.buffer.indexOf("\n")) !== -1) {
            const line = JSON.parse(socket.data.buffer.slice(0, newline));
            socket.data.buffer = socket.data.buffer.slice(newline + 1);
            if (!socket.data.attached) {
              frames.push(line);
              socket.data.attached = true;
              socket.write(`${JSON.stringify({ type: "attached", session: "s1", pid: null, extensions: { session: 1 } })}\n`);
              const tools = [{ name: "echo", inputSchema: { type: "object" } }];
              socket.write(
                `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/mcpkit/session", params: { version: 1, identity, tools } })}\n`,
              );
            } else if (line.method === "tools/call") {
              calls.push(line.params.arguments.message);
              const content = [{ type: "text", text: line.params.arguments.message }];
              socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: line.id, result: { content } })}\n`);
            }
          }
        },
      },
    });
    try {
      const run = await inspect(["call-tool", "echo", "message=early", "--stateful", "--", ...REFERENCE_CMD], {
        env: { MCPKIT_DAEMON_DIR: daemon },
      });
      expect(run.code).toBe(0);
      expect(run.json.data.content[0].text).toBe("early");
      expect(calls).toEqual(["early"]);
      expect(frames).toHaveLength(1);
      expect(frames[0]!.type).toBe("attach");
      expect(frames[0]!.server?.args).toEqual(REFERENCE_CMD.slice(1));
    } finally {
      listener.stop(true);
      rmSync(daemon, { recursive: true, force: true });
    }
  },
  TEST_GUARD_MS,
);
