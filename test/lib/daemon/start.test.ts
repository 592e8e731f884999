// lib/daemon/start: finding mcp-daemon (a hello on its socket, never a bare connect) or starting
// it exactly once, with MCPKIT_DAEMON_COMMAND pointing at a tiny fake daemon (test/support/
// fake-daemon.ts), and the start lock under contention: held by a live caller, left stale.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { type DaemonPaths, daemonPaths } from "../../../lib/daemon/paths.ts";
import { DAEMON_PROTOCOL, MAX_CONTROL_FRAME_BYTES } from "../../../lib/daemon/protocol.ts";
import {
  DAEMON_START_TIMEOUT_MS,
  DETACHED_ENV,
  daemonCommand,
  daemonEnvironment,
  daemonRequest,
  ensureDaemon,
  PROBE_TIMEOUT_MS,
  probeDaemon,
} from "../../../lib/daemon/start.ts";
import { lockHolder, tryLock } from "../../../lib/io/file-lock.ts";
import { processStartTime } from "../../../lib/io/process.ts";
import { FAKE_DAEMON_COMMAND, launches, stopLaunched } from "../../support/fake-daemon.ts";
import { BUN, ROOT, removeTempDirs, tempDir } from "../../support/helpers.ts";
import { manualClock, realClock } from "../../support/manual-clock.ts";

const dirs: string[] = [];
const listeners: Server[] = [];
afterEach(async () => {
  realClock();
  for (const dir of dirs.splice(0)) stopLaunched(dir);
  await Promise.all(listeners.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});
afterAll(removeTempDirs);

function freshPaths(): DaemonPaths {
  const resolved = daemonPaths({ MCPKIT_DAEMON_DIR: join(tempDir("mcpd-"), "d") });
  if (!resolved.ok) throw new Error(resolved.error);
  dirs.push(resolved.value.dir);
  return resolved.value;
}

/** ensureDaemon's options for `paths`, its daemon the fake one (or `command`), as MCPKIT_DAEMON_COMMAND says. */
const viaEnv = (paths: DaemonPaths, command: string[] = FAKE_DAEMON_COMMAND) => ({
  paths,
  env: { MCPKIT_DAEMON_COMMAND: JSON.stringify(command), MCPKIT_DAEMON_DIR: paths.dir },
});

/** A listener of the test's own on the socket: `answer` gets each connection's first line (its frame). */
async function listener(socketPath: string, answer: (line: string, socket: Socket, count: number) => void): Promise<Server> {
  let count = 0;
  const server = createServer((socket) => {
    let buffer = "";
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf("\n");
      if (end !== -1 && buffer !== "") {
        const line = buffer.slice(0, end);
        buffer = "";
        answer(line, socket, ++count);
      }
    });
  });
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, () => resolve()));
  return server;
}
const hello = (socket: Socket) =>
  socket.end(`${JSON.stringify({ type: "hello", protocol: DAEMON_PROTOCOL, pid: 77, version: "9.9.9" })}\n`);

describe("daemonRequest and probeDaemon", () => {
  test("one frame out (in this protocol), the first reply back", async () => {
    const paths = freshPaths();
    const frames: string[] = [];
    await listener(paths.socket, (line, socket) => {
      frames.push(line);
      socket.end('{"type":"status","sessions":[]}\n{"type":"ignored"}\n');
    });
    expect(await daemonRequest(paths.socket, { type: "status" })).toEqual({ type: "status", sessions: [] });
    expect(frames.map((frame) => JSON.parse(frame))).toEqual([{ type: "status", protocol: DAEMON_PROTOCOL }]);
  });

  test("a daemon that says hello is alive: its pid and version", async () => {
    const paths = freshPaths();
    await listener(paths.socket, (_line, socket) => hello(socket));
    expect(await probeDaemon(paths.socket)).toEqual({ pid: 77, version: "9.9.9" });
  });

  // [what is on the socket, how it answers a hello]
  const dead: [string, ((socket: Socket) => void) | undefined][] = [
    ["nothing", undefined],
    ["a listener that hangs up", (socket) => socket.end()],
    ["one that answers junk", (socket) => socket.end("<html>\n")],
    ["one that answers another frame", (socket) => socket.end('{"type":"error","message":"no"}\n')],
    ["one whose hello has no pid", (socket) => socket.end('{"type":"hello","protocol":1}\n')],
    ["one whose reply is over the control frame cap", (socket) => socket.end("x".repeat(MAX_CONTROL_FRAME_BYTES + 1))],
  ];
  for (const [what, answer] of dead)
    test(`${what} on the socket is no daemon`, async () => {
      const paths = freshPaths();
      if (answer) await listener(paths.socket, (_line, socket) => answer(socket));
      expect(await probeDaemon(paths.socket)).toBeUndefined();
    });

  test(`a listener that never answers is no daemon once the probe's ${PROBE_TIMEOUT_MS} ms are up`, async () => {
    const paths = freshPaths();
    const framed = Promise.withResolvers<void>();
    await listener(paths.socket, () => framed.resolve());
    const clock = manualClock();
    const probed = probeDaemon(paths.socket);
    await framed.promise;
    expect(clock.pending).toEqual([PROBE_TIMEOUT_MS]);
    clock.elapse();
    expect(await probed).toBeUndefined();
  });
});

describe("daemonCommand", () => {
  const script = join(ROOT, "mcp-daemon.ts");
  const cases: [string, string | undefined, string[]][] = [
    ["unset: the script beside ours", undefined, [BUN, script]],
    ["a JSON list", '["/opt/mcpd", "--x"]', ["/opt/mcpd", "--x"]],
    ["a JSON list of numbers, as strings", "[1, 2]", ["1", "2"]],
    ["an empty JSON list: the default", "[]", [BUN, script]],
    ["a plain command line, split on spaces", "  /opt/mcp daemon  ", ["/opt/mcp", "daemon"]],
    ["empty: the default", "", [BUN, script]],
  ];
  for (const [what, value, command] of cases)
    test(`MCPKIT_DAEMON_COMMAND ${what}`, () => expect(daemonCommand({ MCPKIT_DAEMON_COMMAND: value })).toEqual(command));
});

test("daemonEnvironment: what any server gets, plus mcpkit's and the network's settings; never API keys", () => {
  const env = daemonEnvironment({
    PATH: "/bin",
    HOME: "/h",
    ANTHROPIC_API_KEY: "secret",
    GITHUB_TOKEN: "secret",
    MCPKIT_AUTH_DIR: "/a",
    XDG_RUNTIME_DIR: "/run/user/1",
    HTTPS_PROXY: "http://proxy:3128",
    no_proxy: "localhost",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
    UNSET: undefined,
  });
  expect(env).toEqual({
    PATH: "/bin",
    HOME: "/h",
    MCPKIT_AUTH_DIR: "/a",
    XDG_RUNTIME_DIR: "/run/user/1",
    HTTPS_PROXY: "http://proxy:3128",
    no_proxy: "localhost",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
  });
});

describe("ensureDaemon", () => {
  test("a daemon that answers is used: nothing is started", async () => {
    const paths = freshPaths();
    await listener(paths.socket, (_line, socket) => hello(socket));
    expect(await ensureDaemon(viaEnv(paths))).toBe(paths);
    expect(launches(paths.dir)).toEqual([]);
  });

  test("none: MCPKIT_DAEMON_COMMAND is started once, detached in /, with `run` and the start flags, its stderr the log", async () => {
    const paths = freshPaths();
    await ensureDaemon({ ...viaEnv(paths), startFlags: ["--idle-timeout", "5000"] });
    expect(launches(paths.dir)).toEqual([
      {
        pid: expect.any(Number) as never,
        argv: ["run", "--idle-timeout", "5000"],
        cwd: "/",
        env: { MCPKIT_DAEMON_DIR: paths.dir, [DETACHED_ENV]: "1" },
      },
    ]);
    expect(await probeDaemon(paths.socket)).toMatchObject({ version: "fake" });
    expect(existsSync(paths.lockFile)).toBe(false); // released once the daemon answered
  });

  test("ten callers at once start one daemon, and all of them get it", async () => {
    const paths = freshPaths();
    const all = await Promise.all(Array.from({ length: 10 }, () => ensureDaemon(viaEnv(paths))));
    expect(all.every((each) => each === paths)).toBe(true);
    expect(launches(paths.dir)).toHaveLength(1);
  });

  test("a start lock held by a live caller: the waiter starts nothing, and is done when that caller's daemon answers", async () => {
    const paths = freshPaths();
    expect(tryLock(paths.lockFile, { maxAgeMs: DAEMON_START_TIMEOUT_MS, dirVariable: "MCPKIT_DAEMON_DIR" })).toBe(true);
    const held = lockHolder(paths.lockFile);
    // The holder's daemon comes up while the waiter waits: it hangs up on the first probes, then says hello.
    await listener(paths.socket, (_line, socket, count) => (count < 3 ? socket.end() : hello(socket)));
    await ensureDaemon(viaEnv(paths));
    expect(launches(paths.dir)).toEqual([]);
    expect(lockHolder(paths.lockFile)).toBe(held); // not taken from its live holder
  });

  const stale: [string, () => string][] = [
    ["empty (a full disk)", () => ""],
    ["naming no pid", () => "garbage\n"],
    ["whose holder is gone", () => "2147483646 1\n"],
    ["whose pid is now another process (another start time)", () => `${process.pid} ${Number(processStartTime(process.pid)) + 1}\n`],
  ];
  for (const [what, content] of stale)
    test(`a start lock ${what} is replaced, and the daemon started`, async () => {
      const paths = freshPaths();
      writeFileSync(paths.lockFile, content(), { mode: 0o600 });
      await ensureDaemon(viaEnv(paths));
      expect(launches(paths.dir)).toHaveLength(1);
      expect(existsSync(paths.lockFile)).toBe(false);
    });

  test("a daemon command that exits at once: the error says so and points at the log, which holds its stderr", async () => {
    const paths = freshPaths();
    const failing = [BUN, "-e", "console.error('mcpd: cannot bind'); process.exit(3)"];
    await expect(ensureDaemon(viaEnv(paths, failing))).rejects.toThrow(`mcp-daemon exited at once with code 3 (see ${paths.logFile})`);
    expect(readFileSync(paths.logFile, "utf8")).toContain("mcpd: cannot bind");
    expect(existsSync(paths.lockFile)).toBe(false);
  });

  test("a daemon command that does not exist: the error names it", async () => {
    const paths = freshPaths();
    await expect(ensureDaemon(viaEnv(paths, ["/nonexistent/mcp-daemon"]))).rejects.toThrow(
      "could not start mcp-daemon (/nonexistent/mcp-daemon): ",
    );
    expect(existsSync(paths.lockFile)).toBe(false);
  });

  test("an interrupted caller stops waiting with its signal's reason, and starts nothing", async () => {
    const paths = freshPaths();
    tryLock(paths.lockFile, { maxAgeMs: DAEMON_START_TIMEOUT_MS, dirVariable: "MCPKIT_DAEMON_DIR" });
    const interrupted = new AbortController();
    // Interrupted while it waits for the lock's holder: at its second probe.
    await listener(paths.socket, (_line, socket, count) => {
      if (count === 2) interrupted.abort(new Error("interrupted"));
      socket.end();
    });
    await expect(ensureDaemon({ ...viaEnv(paths), signal: interrupted.signal })).rejects.toThrow("interrupted");
    expect(launches(paths.dir)).toEqual([]);
  });
});
