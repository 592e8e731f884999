// mcp-daemon end to end: real daemons on real sockets, started on demand by mcp-inspect.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { Client, type Transport } from "@modelcontextprotocol/client";
import { ChannelTransport } from "../../../host/channel-transport.ts";
import { Session } from "../../../inspect/session.ts";
import { RawClient } from "../../../lib/client/raw-client.ts";
import { DaemonChannel } from "../../../lib/daemon/client.ts";
import { SESSION_NOTIFICATION } from "../../../lib/daemon/protocol.ts";
import { daemonEnvironment } from "../../../lib/daemon/start.ts";
import type { StdioTarget } from "../../../lib/targets/target.ts";
import {
  alive,
  BUN,
  daemonDir,
  FAULTY,
  inspect,
  REFERENCE_CMD,
  REFERENCE_ENTRY,
  ROOT,
  runTool,
  stopDaemons,
  TEST_GUARD_MS,
  toolCommand,
  until,
} from "../../support/helpers.ts";

const GATED = join(ROOT, "test/fixtures/gated-server.ts");
/** The reference server as mcp-inspect names it to the daemon from here: our PATH, our directory. */
const REFERENCE_AS_SENT = { kind: "stdio", ...REFERENCE_ENTRY, env: { PATH: process.env.PATH ?? "" }, cwd: ROOT };
afterEach(stopDaemons);

const stateful = (dir: string, args: string[]) =>
  inspect([...args.slice(0, args.indexOf("--")), "--stateful", ...args.slice(args.indexOf("--"))], { env: { MCPKIT_DAEMON_DIR: dir } });
const daemon = (dir: string, args: string[]) => runTool("mcp-daemon.ts", args, { env: { MCPKIT_DAEMON_DIR: dir } });
const statusOf = async (dir: string) => JSON.parse((await daemon(dir, ["status", "--json"])).stdout);

describe("stateful sessions", () => {
  test(
    "begin_session in one mcp-inspect call unlocks the tools for the next calls",
    async () => {
      const dir = daemonDir();
      const locked = await inspect(["list-tools", "--", BUN, GATED]);
      expect(locked.json.data.tools.map((t: { name: string }) => t.name)).not.toContain("secret_echo");
      const opened = await stateful(dir, ["call-tool", "begin_session", "user=ann", "--", BUN, GATED]);
      expect(opened.json.data.content[0].text).toBe("session open for ann");
      const listed = await stateful(dir, ["list-tools", "--", BUN, GATED]);
      expect(listed.json.data.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["secret_echo", "session_info"]));
      const called = await stateful(dir, ["call-tool", "secret_echo", "message=hi", "--", BUN, GATED]);
      expect(called.json.data.content[0].text).toBe("[ann] hi (call 1)");
      const status = await statusOf(dir);
      expect(status.running).toBe(true);
      expect(status.sessions).toHaveLength(1);
      expect(status.sessions[0]).toMatchObject({ state: "ready", kind: "stdio", clients: 0 });
      expect(status.sessions[0].server).toContain("gated-server.ts");
      expect(status.sessions[0].calls).toBeGreaterThan(2);
      expect(typeof status.sessions[0].pid).toBe("number");
    },
    TEST_GUARD_MS,
  );

  test(
    "an edited server definition gets its own session; a config entry with stateful: true uses the daemon",
    async () => {
      const dir = daemonDir();
      await stateful(dir, ["call-tool", "begin_session", "--", BUN, GATED]);
      const other = await stateful(dir, ["list-tools", "--env", "X=1", "--", BUN, GATED]);
      expect(other.json.data.tools.map((t: { name: string }) => t.name)).not.toContain("secret_echo");
      const config = join(dir, "mcp.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { gated: { command: BUN, args: [GATED], stateful: true } } }));
      await inspect(["call-tool", "begin_session", "user=cfg", "--config", config], { env: { MCPKIT_DAEMON_DIR: dir } });
      const viaConfig = await inspect(["call-tool", "session_info", "--config", config], { env: { MCPKIT_DAEMON_DIR: dir } });
      expect(JSON.parse(viaConfig.json.data.content[0].text).unlockedBy).toBe("cfg");
      // The config names exactly the first call's server (command, args, env, cwd): the same session.
      expect((await statusOf(dir)).sessions.length).toBe(2);
    },
    TEST_GUARD_MS,
  );

  test(
    "ten racing clients start exactly one daemon, and share one server process",
    async () => {
      const dir = daemonDir();
      const results = await Promise.all(Array.from({ length: 10 }, () => stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD])));
      expect(results.map((r) => r.code)).toEqual(Array(10).fill(0));
      expect(new Set(results.map((r) => r.json.data.content[0].text)).size).toBe(1);
      const log = readFileSync(join(dir, "daemon.log"), "utf8");
      expect(log.match(/listening on/g)?.length).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 12 MB result, over the 8 MB a client may leave unread, reaches a client that reads it: one frame is never too big to be sent",
    async () => {
      const dir = daemonDir();
      const params = join(dir, "params.json");
      const message = "m".repeat(12 * 1024 * 1024);
      writeFileSync(params, JSON.stringify({ message }));
      const echoed = await stateful(dir, ["call-tool", "echo", "--params", `@${params}`, "--", ...REFERENCE_CMD]);
      expect(echoed.code).toBe(0);
      expect(echoed.json.data.content[0].text).toBe(message);
      expect(readFileSync(join(dir, "daemon.log"), "utf8")).not.toContain("disconnected");
    },
    TEST_GUARD_MS,
  );

  test(
    "the raw client over a DaemonChannel and the SDK Client over the same channel reach the same session",
    async () => {
      const dir = daemonDir();
      const target: StdioTarget = { kind: "stdio", command: BUN, args: [GATED], env: {} };
      const env = { ...process.env, MCPKIT_DAEMON_DIR: dir };
      const raw = new RawClient(new DaemonChannel(target, { env }), { clientInfo: { name: "raw-through-daemon", version: "0" } });
      await raw.connect();
      expect(((await raw.request("tools/list")).tools as { name: string }[]).map((t) => t.name)).not.toContain("secret_echo");
      const opened = await raw.request("tools/call", { name: "begin_session", arguments: { user: "lib" } });
      expect(JSON.stringify(opened.content)).toContain("session open for lib");
      await raw.close();
      const client = new Client({ name: "sdk-through-daemon", version: "0" });
      await client.connect(new ChannelTransport(new DaemonChannel(target, { env })) as unknown as Transport);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("secret_echo");
      const echoed = await client.callTool({ name: "secret_echo", arguments: { message: "sdk" } });
      expect(JSON.stringify(echoed.content)).toContain("[lib] sdk");
      await client.close();
    },
    TEST_GUARD_MS,
  );
});

/** A session through the daemon as mcp-inspect opens one, with the method of every message it sends recorded. */
function spiedSession(dir: string, target: StdioTarget) {
  const channel = new DaemonChannel(target, { env: { ...process.env, MCPKIT_DAEMON_DIR: dir } });
  const sent: string[] = [];
  const send = channel.send.bind(channel);
  channel.send = (message, raw) => {
    sent.push("method" in message ? message.method : "(response)");
    return send(message, raw);
  };
  const session = new Session({ version: "0", timeoutMs: 20_000, stateful: true }, channel);
  const toolNames = async () =>
    ((await session.run((call) => call.listAll("tools/list", "tools"))).tools as { name: string }[]).map((tool) => tool.name);
  return { channel, sent, session, toolNames };
}

/** The lines the daemon sends on a raw connection after an attach frame, until `count` have come. */
function attachLines(dir: string, frame: Record<string, unknown>, count: number, after?: string): Promise<any[]> {
  return new Promise((resolve) => {
    const connection = connect(join(dir, "daemon.sock"), () => connection.write(`${JSON.stringify(frame)}\n`));
    let text = "";
    let sent = false;
    connection.on("data", (chunk) => {
      text += chunk;
      if (after && !sent && text.includes('"attached"')) {
        sent = true;
        connection.write(`${after}\n`);
      }
      const lines = text.split("\n").filter((line) => line.startsWith("{"));
      if (lines.length >= count) {
        connection.destroy();
        resolve(lines.slice(0, count).map((line) => JSON.parse(line)));
      }
    });
  });
}

describe("the session extension: a warm call is one round trip", () => {
  const reference: StdioTarget = { kind: "stdio", ...REFERENCE_ENTRY, env: {} };

  test(
    "once the session is warm, the handshake and the tool list come with the attach: call-tool sends only tools/call",
    async () => {
      const dir = daemonDir();
      const cold = spiedSession(dir, reference);
      const negotiated = await cold.session.connect();
      expect(await cold.toolNames()).toContain("echo");
      // The first client of a session negotiates, as it always did.
      expect(cold.sent).toEqual(["server/discover", "initialize", "notifications/initialized", "tools/list"]);
      await cold.session.close();

      const warm = spiedSession(dir, reference);
      expect(await warm.session.connect()).toEqual(negotiated);
      expect(await warm.toolNames()).toContain("echo");
      const echoed = await warm.session.run((call) => call.request("tools/call", { name: "echo", arguments: { message: "warm" } }));
      expect(JSON.stringify(echoed.content)).toContain("warm");
      expect(warm.sent).toEqual(["tools/call"]);
      await warm.session.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-inspect itself: a warm call-tool is one request at the daemon, a warm list-tools none",
    async () => {
      const dir = daemonDir();
      const calls = async () => (await statusOf(dir)).sessions[0].calls as number;
      expect((await stateful(dir, ["call-tool", "echo", "message=a", "--", ...REFERENCE_CMD])).code).toBe(0);
      const before = await calls();
      const warm = await stateful(dir, ["call-tool", "echo", "message=b", "--", ...REFERENCE_CMD]);
      expect(warm.json.data.content[0].text).toBe("b");
      expect(warm.json.metadata.protocolVersion).toBe("2025-11-25");
      expect(await calls()).toBe(before + 1);
      const listed = await stateful(dir, ["list-tools", "--", ...REFERENCE_CMD]);
      expect(listed.json.data.tools.map((t: { name: string }) => t.name)).toContain("echo");
      expect(await calls()).toBe(before + 1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tools/list_changed drops the cached list: on the daemon for later clients, on a client that holds it",
    async () => {
      const dir = daemonDir();
      const gated: StdioTarget = { kind: "stdio", command: BUN, args: [GATED], env: {} };
      const first = spiedSession(dir, gated);
      await first.session.connect();
      expect(await first.toolNames()).not.toContain("secret_echo");
      await first.session.close();
      // This client holds the cached (locked) list when another one opens the session.
      const holder = spiedSession(dir, gated);
      await holder.session.connect();
      expect(holder.channel.cached?.tools?.map((tool) => tool.name)).not.toContain("secret_echo");
      const changed = Promise.withResolvers<void>();
      const onmessage = holder.channel.onmessage;
      holder.channel.onmessage = (message, raw) => {
        onmessage?.(message, raw);
        if ("method" in message && message.method === "notifications/tools/list_changed") changed.resolve();
      };
      const opener = spiedSession(dir, gated);
      await opener.session.connect();
      await opener.session.run((call) => call.request("tools/call", { name: "begin_session", arguments: { user: "ext" } }));
      await opener.session.close();
      await changed.promise;
      expect(holder.channel.cached?.tools).toBeUndefined();
      // The daemon dropped its copy before it passed the notification on: a client attaching now gets none.
      const later = spiedSession(dir, gated);
      await later.session.connect();
      expect(later.channel.cached?.identity).toBeDefined();
      expect(later.channel.cached?.tools).toBeUndefined();
      await later.session.close();
      expect(await holder.toolNames()).toContain("secret_echo");
      expect(holder.sent).toContain("tools/list");
      await holder.session.close();
    },
    TEST_GUARD_MS,
  );

  test(
    "only a client that asks gets the session line, in the version the daemon speaks; others see the protocol as before",
    async () => {
      const dir = daemonDir();
      expect((await stateful(dir, ["list-tools", "--", ...REFERENCE_CMD])).code).toBe(0);
      const request = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" });
      const [attached, next] = await attachLines(dir, { type: "attach", protocol: 1, server: REFERENCE_AS_SENT }, 2, request);
      expect(attached).toMatchObject({ type: "attached" });
      expect(attached).not.toHaveProperty("extensions");
      expect(next).toMatchObject({ id: 7, result: {} });
      const [granted, info] = await attachLines(
        dir,
        { type: "attach", protocol: 1, server: REFERENCE_AS_SENT, extensions: { session: 9 } },
        2,
      );
      expect(granted).toMatchObject({ type: "attached", extensions: { session: 1 } });
      expect(info).toMatchObject({
        method: SESSION_NOTIFICATION,
        params: { version: 1, identity: { era: "legacy", protocolVersion: "2025-11-25", serverInfo: { name: "mcpkit-reference" } } },
      });
      expect(info.params.tools.map((tool: { name: string }) => tool.name)).toContain("echo");
    },
    TEST_GUARD_MS,
  );

  test(
    "the attach answer and the session line leave in one write: a client reading at once finds both in its first chunk",
    async () => {
      const dir = daemonDir();
      expect((await stateful(dir, ["list-tools", "--", ...REFERENCE_CMD])).code).toBe(0);
      const frame = { type: "attach", protocol: 1, server: REFERENCE_AS_SENT, extensions: { session: 1 } };
      // Sent as two writes, the second came ~0.2-0.5 ms after the first: a warm call waited for it.
      for (let attempt = 0; attempt < 5; attempt++) {
        const chunk = await new Promise<string>((resolve) => {
          const connection = connect(join(dir, "daemon.sock"), () => connection.write(`${JSON.stringify(frame)}\n`));
          connection.once("data", (data) => {
            connection.destroy();
            resolve(data.toString());
          });
        });
        const lines = chunk.split("\n").filter(Boolean);
        expect(lines.map((line) => JSON.parse(line).type ?? JSON.parse(line).method)).toEqual(["attached", SESSION_NOTIFICATION]);
      }
    },
    TEST_GUARD_MS,
  );
});

describe("a survey: what the running sessions know, in one round trip", () => {
  test(
    "a warm session answers with its handshake and tools; a server with no session gets nothing and is not started",
    async () => {
      const dir = daemonDir();
      expect((await stateful(dir, ["list-tools", "--", ...REFERENCE_CMD])).code).toBe(0);
      const never = { ...REFERENCE_AS_SENT, env: { ...REFERENCE_AS_SENT.env, NEVER: "1" } };
      const answers = await attachLines(dir, { type: "survey", protocol: 1, servers: [never, REFERENCE_AS_SENT] }, 2);
      const byIndex = Object.fromEntries(answers.map((answer) => [answer.index, answer]));
      expect(byIndex[0]).toEqual({ type: "surveyed", index: 0 });
      expect(byIndex[1].session.identity).toMatchObject({ protocolVersion: "2025-11-25", serverInfo: { name: "mcpkit-reference" } });
      expect(byIndex[1].session.tools.map((tool: { name: string }) => tool.name)).toContain("echo");
      expect((await statusOf(dir)).sessions).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "grep --stateful over a warm and a cold session finds both (the cold one started), and the next grep asks no server",
    async () => {
      const dir = daemonDir();
      const config = join(dir, "mcp.json");
      const entry = (tag: string) => ({ command: REFERENCE_CMD[0], args: REFERENCE_CMD.slice(1), env: { TAG: tag } });
      writeFileSync(config, JSON.stringify({ mcpServers: { warm: entry("warm"), cold: entry("cold") } }));
      const env = { MCPKIT_DAEMON_DIR: dir };
      expect((await inspect(["list-tools", "--config", config, "--server", "warm", "--stateful"], { env })).code).toBe(0);
      const servers = (json: any) => json.data.matches.map((match: { server: string }) => match.server).sort();
      const first = await inspect(["grep", "echo", "--config", config, "--stateful"], { env });
      expect(servers(first.json)).toEqual(["cold", "warm"]);
      const calls = async () => ((await statusOf(dir)).sessions as { calls: number }[]).map((session) => session.calls);
      const before = await calls();
      expect(before).toHaveLength(2);
      const again = await inspect(["grep", "echo", "--config", config, "--stateful"], { env });
      expect(again.json.data).toEqual(first.json.data);
      expect(await calls()).toEqual(before);
    },
    TEST_GUARD_MS,
  );

  test(
    "a client that sends a survey and never reads is let go; the daemon goes on serving",
    async () => {
      const dir = daemonDir();
      expect((await stateful(dir, ["list-tools", "--", ...REFERENCE_CMD])).code).toBe(0);
      const servers = Array.from({ length: 1000 }, () => REFERENCE_AS_SENT);
      let received = "";
      const closed = Promise.withResolvers<void>();
      const reader = connect(join(dir, "daemon.sock"), () => {
        reader.write(`${JSON.stringify({ type: "survey", protocol: 1, servers })}\n`);
        reader.pause();
      });
      reader.on("data", (chunk) => void (received += chunk));
      reader.on("close", () => closed.resolve());
      reader.on("error", () => {});
      const warm = await stateful(dir, ["call-tool", "echo", "message=still", "--", ...REFERENCE_CMD]);
      expect(warm.json.data.content[0].text).toBe("still");
      // The daemon says so in its log; the reader then finds the connection cut short.
      await until(() => readFileSync(join(dir, "daemon.log"), "utf8").includes("took nothing of a survey's answers"));
      reader.resume();
      await closed.promise;
      expect(received.split("\n").filter((line) => line.startsWith("{")).length).toBeLessThan(servers.length);
    },
    TEST_GUARD_MS,
  );
});

describe("faults", () => {
  test(
    "a server that crashes is restarted on next use; the call in flight gets an error, not a rerun",
    async () => {
      const dir = daemonDir();
      const first = (await stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD])).json.data.content[0].text;
      const slow = stateful(dir, ["call-tool", "slow", "steps=50", "delayMs=100", "--", ...REFERENCE_CMD]);
      // The slow call is in flight once the daemon has counted it: the first call-tool made a tools/list
      // and a tools/call; the second, attaching to a warm session, is sent the tool list and makes the call only.
      await until(async () => (await statusOf(dir)).sessions?.[0]?.calls >= 3, "the daemon to count three calls");
      await stateful(dir, ["call-tool", "crash", "--", ...REFERENCE_CMD]);
      const cut = await slow;
      expect(cut.code).toBe(5);
      expect(cut.json.error.message).toContain("not retried");
      const second = (await stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD])).json.data.content[0].text;
      expect(second).not.toBe(first);
      expect(alive(Number(first))).toBe(false);
    },
    TEST_GUARD_MS,
  );

  test(
    "a client that disconnects mid-call has its call cancelled upstream; others are unaffected",
    async () => {
      const dir = daemonDir();
      await daemon(dir, ["start", "--log-level", "debug"]);
      const child = Bun.spawn(
        [...toolCommand("mcp-inspect.ts"), "call-tool", "slow", "steps=100", "delayMs=50", "--stateful", "--", ...REFERENCE_CMD],
        {
          cwd: ROOT,
          env: { ...process.env, MCPKIT_DAEMON_DIR: dir },
          stdout: "ignore",
          stderr: "ignore",
        },
      );
      // Its tools/list and its tools/call have reached the server.
      await until(async () => (await statusOf(dir)).sessions?.[0]?.calls >= 2, "the daemon to count two calls");
      child.kill("SIGKILL");
      const other = await stateful(dir, ["call-tool", "echo", "message=still here", "--", ...REFERENCE_CMD]);
      expect(other.json.data.content[0].text).toBe("still here");
      await until(
        () => readFileSync(join(dir, "daemon.log"), "utf8").includes("slow: cancelled after"),
        "the server's cancel line in the log",
      );
    },
    TEST_GUARD_MS,
  );

  test(
    "garbage and a 50 MB line on the socket are dropped; the daemon lives",
    async () => {
      const dir = daemonDir();
      await daemon(dir, ["start"]);
      const socket = join(dir, "daemon.sock");
      const reply = await new Promise<string>((resolve) => {
        const connection = connect(socket, () => connection.write("garbage\n"));
        let text = "";
        connection.on("data", (chunk) => (text += chunk));
        connection.on("close", () => resolve(text));
      });
      expect(JSON.parse(reply)).toMatchObject({ type: "error" });
      await new Promise<void>((resolve) => {
        const connection = connect(socket, () => connection.write(Buffer.alloc(50 * 1024 * 1024, 120)));
        connection.on("error", () => resolve());
        connection.on("close", () => resolve());
      });
      expect((await statusOf(dir)).running).toBe(true);
      // After attaching, a request over the line cap is answered with an error (its id read from its edges).
      const answer = await new Promise<string>((resolve) => {
        let text = "";
        const connection = connect(socket, () => {
          connection.write(`${JSON.stringify({ type: "attach", protocol: 1, server: { kind: "stdio", ...REFERENCE_ENTRY, env: {} } })}\n`);
        });
        connection.on("data", (chunk) => {
          text += chunk;
          if (text.includes('"attached"') && !text.includes("huge")) {
            text += " huge-sent ";
            const huge = {
              jsonrpc: "2.0",
              id: "huge",
              method: "tools/call",
              params: { name: "echo", arguments: { message: "m".repeat(40 * 1024 * 1024) } },
            };
            connection.write(`${JSON.stringify(huge)}\n`);
          }
          if (text.includes('"id":"huge"')) connection.end();
        });
        connection.on("close", () => resolve(text));
      });
      expect(answer).toContain("over the");
      // A well-formed frame with a broken server definition is refused, not fatal.
      for (const server of [{ kind: "stdio" }, { kind: "http" }, { kind: "stdio", command: "x", args: "no", env: {} }, "text"]) {
        const refused = await new Promise<string>((resolve) => {
          const connection = connect(socket, () => connection.write(`${JSON.stringify({ type: "attach", protocol: 1, server })}\n`));
          let text = "";
          connection.on("data", (chunk) => (text += chunk));
          connection.on("close", () => resolve(text));
        });
        expect(JSON.parse(refused)).toMatchObject({ type: "error", message: expect.stringContaining("valid server definition") });
      }
      expect((await statusOf(dir)).running).toBe(true);
      expect((await stateful(dir, ["ping", "--", ...REFERENCE_CMD])).code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "no server process survives mcp-daemon stop",
    async () => {
      const dir = daemonDir();
      const pid = Number((await stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD])).json.data.content[0].text);
      const daemonPid = (await statusOf(dir)).pid;
      expect((await daemon(dir, ["stop"])).stdout).toContain("stopped");
      expect(alive(pid)).toBe(false);
      expect(alive(daemonPid)).toBe(false);
      expect((await daemon(dir, ["status"])).code).toBe(9);
    },
    TEST_GUARD_MS,
  );

  test(
    "after SIGKILL of the daemon, the next call starts a new one that ends what the old one left",
    async () => {
      const dir = daemonDir();
      const pid = Number((await stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD])).json.data.content[0].text);
      // A server that ignores stdin EOF and SIGTERM: only the pid records can end it.
      const stubborn = await stateful(dir, ["list-tools", "--timeout", "500", "--", BUN, FAULTY, "stubborn"]);
      expect(stubborn.code).toBe(4);
      const status = await statusOf(dir);
      const stubbornPid = status.sessions.find((s: { server: string }) => s.server.includes("stubborn")).pid;
      process.kill(status.pid, "SIGKILL");
      // The well-behaved server sees its stdin close and leaves by itself.
      await until(() => !alive(pid), "the server process to go");
      expect(alive(stubbornPid)).toBe(true);
      const next = await stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD]);
      expect(next.code).toBe(0);
      // The new daemon ended what the old one left (SIGKILL to its group) before it served.
      await until(() => !alive(stubbornPid), "the stubborn server to be killed");
    },
    TEST_GUARD_MS,
  );

  test(
    "idle sessions are closed, and an idle daemon exits by itself",
    async () => {
      const dir = daemonDir();
      await daemon(dir, ["start", "--idle-timeout", "1000", "--exit-after", "1500"]);
      const pid = Number((await stateful(dir, ["call-tool", "whoami", "--", ...REFERENCE_CMD])).json.data.content[0].text);
      const daemonPid = (await statusOf(dir)).pid;
      await until(() => !alive(pid) && !alive(daemonPid), "the idle session and the idle daemon to end");
      expect(alive(pid)).toBe(false);
      expect(alive(daemonPid)).toBe(false);
    },
    TEST_GUARD_MS,
  );
});

describe("the socket's directory", () => {
  test.each([
    ["a regular file", (socket: string) => writeFileSync(socket, "precious"), "is not a socket"],
    ["a symlink", (socket: string) => symlinkSync("/etc/hostname", socket), "is not a socket"],
  ])(
    "a socket path that is %s is refused and left alone",
    async (_what, make, fragment) => {
      const dir = daemonDir();
      const socket = join(dir, "daemon.sock");
      make(socket);
      const result = await daemon(dir, ["run"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(fragment);
      expect(readFileSync(socket, "utf8").length).toBeGreaterThan(0);
      // Started on demand, the daemon's reason lands in the log the client points to.
      const call = await stateful(dir, ["ping", "--", ...REFERENCE_CMD]);
      expect(call.code).toBe(2);
      expect(call.json.error.message).toContain("daemon.log");
      expect(readFileSync(join(dir, "daemon.log"), "utf8")).toContain(fragment);
    },
    TEST_GUARD_MS,
  );

  test(
    "a directory others can read is refused with the fix",
    async () => {
      const dir = daemonDir();
      chmodSync(dir, 0o755);
      const result = await stateful(dir, ["list-tools", "--", ...REFERENCE_CMD]);
      expect(result.code).toBe(2);
      expect(result.json.error.message).toContain(`chmod 700 ${dir}`);
    },
    TEST_GUARD_MS,
  );

  test(
    "a socket path over the OS limit gets a clear message",
    async () => {
      const base = daemonDir();
      const deep = join(base, "x".repeat(60), "y".repeat(60));
      mkdirSync(deep, { recursive: true, mode: 0o700 });
      const result = await daemon(deep, ["status"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("over this system's limit");
    },
    TEST_GUARD_MS,
  );
});

test("the daemon starts with an allow-listed environment: its own and network settings, never the caller's API keys", () => {
  const env = daemonEnvironment({
    PATH: "/bin",
    HOME: "/h",
    MCPKIT_DAEMON_DIR: "/d",
    XDG_RUNTIME_DIR: "/run/u",
    OPENAI_API_KEY: "sk-x",
    GITHUB_TOKEN: "t",
    https_proxy: "http://p:3128",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
  });
  // Stateful HTTP sessions run inside the daemon: proxy and CA settings are what they need to connect.
  expect(env).toEqual({
    PATH: "/bin",
    HOME: "/h",
    MCPKIT_DAEMON_DIR: "/d",
    XDG_RUNTIME_DIR: "/run/u",
    https_proxy: "http://p:3128",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
  });
});

test("an unknown mcp-daemon command is one line on stderr, exit 1, nothing on stdout", async () => {
  const result = await daemon(daemonDir(), ["bogus"]);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe('error: unknown command "bogus" (commands: start, stop, status, restart, logs, run; see mcp-daemon --help)\n');
});

test(
  "--stateful against a 2026-07-28 server that answers the 2025 initialize with 2026-07-28: the session goes 2026, the call works",
  async () => {
    // Such a server (the conformance suite's) speaks no 2025 revision, whatever it answers initialize.
    const answer = (id: unknown, result: unknown) => Response.json({ jsonrpc: "2.0", id, result });
    const meta = { "io.modelcontextprotocol/serverInfo": { name: "modern-only", version: "1" } };
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        if (request.method !== "POST") return new Response(null, { status: 405 });
        const message = (await request.json()) as { id?: unknown; method: string; params?: { arguments?: { message?: string } } };
        if (message.id === undefined) return new Response(null, { status: 202 });
        switch (message.method) {
          case "server/discover":
            return answer(message.id, { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, _meta: meta });
          case "initialize":
            return answer(message.id, {
              protocolVersion: "2026-07-28",
              capabilities: { tools: {} },
              serverInfo: meta["io.modelcontextprotocol/serverInfo"],
            });
          case "tools/list":
            return answer(message.id, {
              tools: [{ name: "echo", inputSchema: { type: "object", properties: { message: { type: "string" } } } }],
            });
          case "tools/call":
            return answer(message.id, { content: [{ type: "text", text: String(message.params?.arguments?.message) }] });
          default:
            return Response.json({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } });
        }
      },
    });
    try {
      const dir = daemonDir();
      const url = `http://127.0.0.1:${server.port}/mcp`;
      const called = await inspect(["call-tool", "echo", "message=modern", "--stateful", "--url", url], {
        env: { MCPKIT_DAEMON_DIR: dir },
      });
      expect(called.stdout).toContain('"text":"modern"');
      expect(called.code).toBe(0);
      expect(called.json.metadata.protocolVersion).toBe("2026-07-28");
    } finally {
      server.stop(true);
    }
  },
  TEST_GUARD_MS,
);
