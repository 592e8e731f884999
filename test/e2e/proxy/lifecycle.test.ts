// mcp-proxy's lifecycle, at the wire: how it and its server end (stdin EOF, SIGTERM, mid-restart),
// its flags and reloaderoo's environment variables, and --watch restarting the server on changes.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  alive,
  BUN,
  FAULTY,
  LinePeer,
  REFERENCE_CMD,
  REFERENCE_LINE,
  runTool,
  TEST_GUARD_MS,
  toolCommand,
  until,
} from "../../support/helpers.ts";
import { closeProxies, initialized, peers, pidOf, proxy } from "../../support/proxy-peer.ts";

afterEach(async () => {
  await closeProxies();
});

describe("lifecycle", () => {
  test(
    "stdin EOF ends the proxy and its server, the server's own children included",
    async () => {
      const marker = `sleep ${31_000 + Math.floor(Math.random() * 999)}`;
      const peer = proxy(["--", "/bin/sh", "-c", `${marker} & exec ${REFERENCE_LINE}`]);
      await initialized(peer);
      const serverPid = await pidOf(peer, 1);
      peers.splice(peers.indexOf(peer), 1);
      expect(await peer.close()).toBe(0);
      await until(() => !alive(serverPid), "the server process to go");
      const leftover = Bun.spawnSync(["pgrep", "-f", "--", marker]).stdout.toString().trim();
      expect(leftover).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "the client closing stdin mid-restart leaves nothing behind",
    async () => {
      const token = `--mid-restart-${process.pid}-${Date.now()}`;
      const peer = proxy(["--", ...REFERENCE_CMD, token]);
      await initialized(peer);
      const serverPid = await pidOf(peer, 1);
      peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "restart_server", arguments: {} } });
      peers.splice(peers.indexOf(peer), 1);
      await peer.close();
      await until(() => !alive(serverPid), "the server process to go");
      expect(Bun.spawnSync(["pgrep", "-f", "--", token]).stdout.toString().trim()).toBe("");
    },
    TEST_GUARD_MS,
  );

  test(
    "stdin closing mid-restart: the restart and the request queued behind it are answered, then the proxy exits",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      await initialized(peer);
      peer.send({ jsonrpc: "2.0", id: "r", method: "tools/call", params: { name: "restart_server", arguments: {} } });
      peer.send({ jsonrpc: "2.0", id: "after", method: "tools/list", params: {} });
      peers.splice(peers.indexOf(peer), 1);
      expect(await peer.close()).toBe(0);
      expect(peer.responseTo("r").result.isError).toBe(false);
      expect(peer.responseTo("after").result.tools.length).toBeGreaterThan(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "a grandchild that ignores SIGTERM is killed with the group, and does not hold the proxy up",
    async () => {
      const marker = `sleep ${32_000 + Math.floor(Math.random() * 999)}`;
      const peer = proxy(["--", "/bin/sh", "-c", `trap '' TERM; ${marker} & exec ${REFERENCE_LINE}`]);
      await initialized(peer);
      peers.splice(peers.indexOf(peer), 1);
      const started = Date.now();
      await peer.close();
      expect(Date.now() - started).toBeLessThan(8_000);
      // Killed with the group as the proxy exits; a loaded machine may take a moment to tear the process down
      // (one that survived would run for nine hours, past the guard).
      await until(() => Bun.spawnSync(["pgrep", "-f", "--", marker]).stdout.toString().trim() === "", "the grandchild gone");
    },
    TEST_GUARD_MS,
  );

  test(
    "SIGTERM exits 143 and stops the server",
    async () => {
      const peer = proxy(["--", ...REFERENCE_CMD]);
      await initialized(peer);
      const serverPid = await pidOf(peer, 1);
      peer.child.kill("SIGTERM");
      expect(await peer.child.exited).toBe(143);
      await until(() => !alive(serverPid), "the server process to go");
    },
    TEST_GUARD_MS,
  );

  test(
    "bad flags are one line on stderr and exit 1, with nothing on stdout",
    async () => {
      for (const [args, fragment] of [
        [["--max-restarts", "many", "--", "x"], "--max-restarts takes a whole number of at least 0"],
        [["--log-level", "loud", "--", "x"], '--log-level takes one of silent, error, warn, info, debug, trace, not "loud"'],
        [["--bogus", "--", "x"], "unknown option --bogus"],
        [[], "no server given"],
      ] as const) {
        const { code, stdout, stderr } = await runTool("mcp-proxy.ts", [...args]);
        expect(code).toBe(1);
        expect(stdout).toBe("");
        expect(stderr).toContain(fragment);
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "reloaderoo's environment variables are honoured, and flags win",
    async () => {
      const peer = proxy([], {
        MCPDEV_PROXY_CHILD_CMD: BUN,
        MCPDEV_PROXY_CHILD_ARGS: JSON.stringify([FAULTY, "junk", "from env"]),
        MCPDEV_PROXY_LOG_LEVEL: "debug",
      });
      const init = await initialized(peer);
      expect(init.result.instructions).toBe('argv: ["junk","from env"]');
      const quiet = proxy(["--log-level", "error", "--", BUN, FAULTY, "junk"], { MCPDEV_PROXY_LOG_LEVEL: "debug" });
      await initialized(quiet);
      expect(quiet.stderr).not.toContain("proxying");
      expect(peer.stderr).toContain("proxying");
    },
    TEST_GUARD_MS,
  );

  test(
    "MCPDEV_PROXY_DEBUG_MODE=true means debug logging; reloaderoo's users type `mcpkit proxy` and `mcpkit inspect`",
    async () => {
      const debug = proxy(["--", ...REFERENCE_CMD], { MCPDEV_PROXY_DEBUG_MODE: "true" });
      await initialized(debug);
      // The same id twice in flight is logged at debug level only.
      debug.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 50 } } });
      debug.send({ jsonrpc: "2.0", id: 9, method: "ping" });
      await debug.waitFor(() => debug.messages.filter((m) => m.id === 9).length === 2);
      expect(debug.stderr).toContain("debug: the client reused id 9");
      const viaMcpkit = new LinePeer([...toolCommand("mcpkit.ts"), "proxy", "--", ...REFERENCE_CMD]);
      peers.push(viaMcpkit);
      expect((await initialized(viaMcpkit)).result.serverInfo.name).toBe("mcpkit-reference");
      const inspected = Bun.spawnSync([...toolCommand("mcpkit.ts"), "inspect", "list-tools", "--", ...REFERENCE_CMD]);
      expect(JSON.parse(inspected.stdout.toString()).data.tools.length).toBeGreaterThan(5);
    },
    TEST_GUARD_MS,
  );
});

describe("watch", () => {
  test(
    "a changed file restarts the server; a failed --build keeps the old one and says why",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-watch-"));
      const source = join(dir, "server.ts");
      writeFileSync(source, "v1");
      const flag = join(dir, "build-fails");
      const build = `test ! -e ${flag}`;
      const peer = proxy(["--watch", `${dir}/*.ts`, "--debounce", "100", "--build", build, "--log-level", "debug", "--", ...REFERENCE_CMD]);
      await initialized(peer);
      const first = await pidOf(peer, 1);

      writeFileSync(source, "v2");
      await peer.waitFor(() => peer.stderr.includes("is back"), 20_000, "a restart after the change");
      const second = await pidOf(peer, 2);
      expect(second).not.toBe(first);

      writeFileSync(flag, "");
      writeFileSync(source, "v3");
      await peer.waitFor(
        () => peer.messages.some((m) => m.method === "notifications/message" && m.params.level === "error"),
        20_000,
        "the build failure",
      );
      const note = peer.messages.find((m) => m.method === "notifications/message");
      expect(note.params.data).toContain("build failed");
      expect(await pidOf(peer, 3)).toBe(second);

      writeFileSync(join(dir, "notes.txt"), "not matched by the glob");
      // The watcher saw it and set it aside: no restart is on its way.
      await peer.waitFor(() => /ignored a change to \S*notes\.txt \(not matched by .*; 0 change\(s\) pending\)/.test(peer.stderr));
      expect(await pidOf(peer, 4)).toBe(second);
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "a --build that writes inside the watched tree does not restart in a loop: one change, at most one more round",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-watch-"));
      const count = join(dir, "builds");
      writeFileSync(join(dir, "server.ts"), "v1");
      // The build writes an output file inside the tree it is watched in, as many builds do.
      const build = `echo build >> ${count}; echo out > ${dir}/out.ts`;
      mkdirSync(join(dir, ".git"));
      const peer = proxy(["--watch", dir, "--debounce", "50", "--build", build, "--log-level", "debug", "--", ...REFERENCE_CMD]);
      await initialized(peer);
      writeFileSync(join(dir, "server.ts"), "v2");
      // Settled: the rounds are over, and a change in .git (ignored) made after that is seen with no
      // change waiting. File events arrive in order, so every change the builds made was seen before
      // it: nothing is left that could start another build.
      const rebuilding = () => peer.stderr.lastIndexOf("building:") > peer.stderr.lastIndexOf("watching again after");
      for (let marker = 0; ; marker++) {
        await peer.waitFor(() => peer.stderr.includes("watching again after") && !rebuilding());
        writeFileSync(join(dir, ".git", `marker-${marker}`), "");
        const seen = new RegExp(`ignored a change to \\S*marker-${marker} \\(an ignored folder; (\\d+) change`);
        await peer.waitFor(() => seen.test(peer.stderr));
        if (seen.exec(peer.stderr)![1] === "0" && !rebuilding()) break;
      }
      const builds = readFileSync(count, "utf8").trim().split("\n").length;
      expect(builds).toBeGreaterThanOrEqual(1);
      expect(builds).toBeLessThanOrEqual(2);
      expect((peer.stderr.match(/is back/g) ?? []).length).toBe(builds);
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );

  test(
    "a single watched file keeps working across editor-style saves (write elsewhere, rename over)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcpkit-watch-"));
      const source = join(dir, "server.js");
      writeFileSync(source, "v1");
      const peer = proxy(["--watch", source, "--debounce", "100", "--", ...REFERENCE_CMD]);
      await initialized(peer);
      let pid = await pidOf(peer, "p0");
      for (let save = 1; save <= 2; save++) {
        const temp = join(dir, `.server.js.${save}.tmp`);
        writeFileSync(temp, `v${save + 1}`);
        renameSync(temp, source);
        const restarts = (peer.stderr.match(/is back/g) ?? []).length;
        await peer.waitFor(() => (peer.stderr.match(/is back/g) ?? []).length > restarts, 20_000, `a restart after save ${save}`);
        const next = await pidOf(peer, `p${save}`);
        expect(next).not.toBe(pid);
        pid = next;
      }
      rmSync(dir, { recursive: true, force: true });
    },
    TEST_GUARD_MS,
  );
});
