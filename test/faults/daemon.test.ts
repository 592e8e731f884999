// mcp-daemon against its own debris and against clients that never read: stale locks, full and
// read-only disks, a client that stops reading a flooding session.
import { afterEach, describe, expect, test } from "bun:test";
import { spawn as spawnChild } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import {
  BUN,
  daemonDir,
  FAULTY,
  INITIALIZE,
  inspect,
  REFERENCE_CMD,
  REFERENCE_LINE,
  ROOT,
  runTool,
  stopDaemons,
  TEST_GUARD_MS,
  toolCommand,
  until,
} from "../support/helpers.ts";

afterEach(stopDaemons);

const pingStateful = (dir: string) => inspect(["ping", "--stateful", "--", ...REFERENCE_CMD], { env: { MCPKIT_DAEMON_DIR: dir } });

describe("debris a crashed start leaves behind", () => {
  test(
    "an empty daemon.lock (as a full disk leaves it) is replaced, and the call goes through",
    async () => {
      const dir = daemonDir();
      writeFileSync(join(dir, "daemon.lock"), "");
      const run = await pingStateful(dir);
      expect(run.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a daemon.lock naming a live pid that is not its writer (pid 1) is replaced",
    async () => {
      const dir = daemonDir();
      writeFileSync(join(dir, "daemon.lock"), "1\n");
      const run = await pingStateful(dir);
      expect(run.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a lock older than any start could take is replaced, whoever it names",
    async () => {
      const dir = daemonDir();
      const lock = join(dir, "daemon.lock");
      writeFileSync(lock, `${process.pid} whatever\n`);
      const old = new Date(Date.now() - 60_000);
      utimesSync(lock, old, old);
      expect((await pingStateful(dir)).code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a pid file of garbage and a socket left by a dead daemon do not stop a new one",
    async () => {
      const dir = daemonDir();
      writeFileSync(join(dir, "daemon.pid"), "not a pid\n");
      expect((await pingStateful(dir)).code).toBe(0);
      const status = JSON.parse((await runTool("mcp-daemon.ts", ["status", "--json"], { env: { MCPKIT_DAEMON_DIR: dir } })).stdout);
      expect(status.running).toBe(true);
    },
    TEST_GUARD_MS,
  );
});

/** Runs a shell script in a mount namespace of its own, where it may mount a small tmpfs. */
function inNamespace(script: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawnChild("unshare", ["-m", "sh", "-c", script], { env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("exit", (code) => resolve({ code: code ?? -1, out }));
  });
}

describe("callers", () => {
  test(
    "a signal while --stateful waits for mcp-daemon to start ends mcp-inspect, which does not attach once the daemon is up",
    async () => {
      const dir = daemonDir();
      const go = join(dir, "go");
      // A daemon that starts only when told to: until then mcp-inspect waits in its start-up.
      const slowStart = JSON.stringify([
        "/bin/sh",
        "-c",
        `while [ ! -e ${go} ]; do sleep 0.05; done; exec ${BUN} ${join(ROOT, "mcp-daemon.ts")} "$@"`,
        "sh",
      ]);
      const [inspectCommand, ...start] = toolCommand("mcp-inspect.ts");
      const child = spawnChild(inspectCommand!, [...start, "ping", "--stateful", "--", ...REFERENCE_CMD], {
        env: { ...process.env, MCPKIT_DAEMON_DIR: dir, MCPKIT_DAEMON_COMMAND: slowStart },
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
      await until(() => existsSync(join(dir, "daemon.lock")), "the daemon's lock file");
      child.kill("SIGTERM");
      // The daemon may come up now; an mcp-inspect that still attached to it would never exit.
      writeFileSync(go, "");
      expect(await exited).toBe(143);
      expect(JSON.parse(out).error.code).toBe("CANCELLED");
      // Up, so that stopDaemons stops it: one that came up after the test would outlive the run in a removed folder.
      await until(() => existsSync(join(dir, "daemon.sock")), "the daemon up");
    },
    TEST_GUARD_MS,
  );
});

describe("a disk that takes nothing (these mount a tmpfs in a mount namespace of their own, as root)", () => {
  const root = process.getuid?.() === 0;
  const inspectCommand = `${toolCommand("mcp-inspect.ts").join(" ")} ping --stateful -- ${REFERENCE_LINE}`;

  test.skipIf(!root)(
    "a full disk: a one-line error that says so, and no lock left to block the next call",
    async () => {
      const dir = daemonDir();
      const run = await inNamespace(
        `mount -t tmpfs -o size=32k tmpfs ${dir} && chmod 700 ${dir} && (dd if=/dev/zero of=${dir}/filler bs=4k 2>/dev/null; true) && ` +
          `MCPKIT_DAEMON_DIR=${dir} ${inspectCommand}; echo "exit=$?"; ls -A ${dir}`,
      );
      expect(run.out).toContain("no space left");
      expect(run.out).toContain("exit=2");
      expect(run.out).not.toContain("daemon.lock");
    },
    TEST_GUARD_MS,
  );

  test.skipIf(!root)(
    "a read-only disk: a one-line error that says so",
    async () => {
      const dir = daemonDir();
      const run = await inNamespace(
        `mount -t tmpfs tmpfs ${dir} && chmod 700 ${dir} && mount -o remount,ro ${dir} && MCPKIT_DAEMON_DIR=${dir} ${inspectCommand}; ` +
          `echo "exit=$?"`,
      );
      expect(run.out).toContain("read-only file system");
      expect(run.out).toContain("exit=2");
    },
    TEST_GUARD_MS,
  );
});

describe("clients", () => {
  /** A raw client of the daemon socket: the attach frame, then JSON-RPC lines. */
  function attach(dir: string, server: object): Socket {
    const socket = connect(join(dir, "daemon.sock"));
    socket.on("error", () => {});
    socket.write(`${JSON.stringify({ type: "attach", protocol: 1, server })}\n`);
    return socket;
  }

  test(
    "a client that stops reading a flooding session holds it back a while, then is let go; the daemon stays small and the other client " +
      "goes on",
    async () => {
      const dir = daemonDir();
      const env = { MCPKIT_DAEMON_DIR: dir };
      expect((await runTool("mcp-daemon.ts", ["start"], { env })).code).toBe(0);
      const server = { kind: "stdio", command: BUN, args: [FAULTY, "flood"], env: {}, cwd: ROOT };
      const fast = attach(dir, server);
      let fastBytes = 0;
      fast.on("data", (chunk: Buffer) => (fastBytes += chunk.length));
      await until(() => fastBytes > 0, "the fast session to attach"); // attached
      const slow = attach(dir, server);
      slow.pause(); // it never reads
      const status = async () => JSON.parse((await runTool("mcp-daemon.ts", ["status", "--json"], { env })).stdout);
      // The flood starts once the server is initialized.
      fast.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE() })}\n`);
      // The slow one holds the session back for a while, then is let go.
      const sessions = await until(async () => {
        const now: { clients: number }[] = (await status()).sessions;
        return now.length === 1 && now[0]!.clients === 1 && now;
      }, "the slow client to be let go");
      expect(sessions[0]!.clients).toBe(1);
      const before = fastBytes;
      await until(() => fastBytes > before + 20e6, "20 MB more on the fast session");
      expect((await status()).rssBytes / 1024 / 1024).toBeLessThan(150);
      fast.destroy();
      slow.destroy();
    },
    TEST_GUARD_MS,
  );
});

describe("the daemon process", () => {
  test(
    "mcp-daemon run exits 143 on SIGTERM and 130 on SIGINT, stopping its servers",
    async () => {
      for (const [signal, code] of [
        ["SIGTERM", 143],
        ["SIGINT", 130],
      ] as const) {
        const dir = daemonDir();
        const [daemonCommand, ...start] = toolCommand("mcp-daemon.ts");
        const child = spawnChild(daemonCommand!, [...start, "run"], { env: { ...process.env, MCPKIT_DAEMON_DIR: dir } });
        let err = "";
        child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        await until(() => err.includes("listening"), "the daemon to listen");
        const exited = new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
        child.kill(signal);
        expect(await exited).toBe(code);
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp-daemon logs strips escape sequences and bidi overrides that servers wrote",
    async () => {
      const dir = daemonDir();
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "daemon.log"),
        "2026-01-01 info [abc] \u001b]0;pwned\u0007title \u001b[31mred\u001b[0m \u202eevil\u202c \u009bc\n",
      );
      const run = await runTool("mcp-daemon.ts", ["logs"], { env: { MCPKIT_DAEMON_DIR: dir } });
      expect(run.stdout).toBe("2026-01-01 info [abc] title red evil c\n");
    },
    TEST_GUARD_MS,
  );
});
