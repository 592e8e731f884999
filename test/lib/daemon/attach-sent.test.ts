// DaemonChannel.attachSent: mcp-inspect waits for it before it loads the rest of a warm call, so that
// the daemon answers the attach meanwhile. It must mean the frame is with the kernel (a daemon in
// another process reads it while this thread does nothing but block), and it must not wait for a
// daemon to be started when none listens.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DaemonChannel } from "../../../lib/daemon/client.ts";
import { daemonPaths } from "../../../lib/daemon/paths.ts";
import type { Target } from "../../../lib/targets/target.ts";
import { FAKE_DAEMON_COMMAND, launches, stopLaunched } from "../../support/fake-daemon.ts";
import { BUN, removeTempDirs, tempDir, until, WAIT_GUARD_MS } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const target: Target = { kind: "stdio", command: "node", args: ["server.js"], env: {} };

/** Listens on `socket` in another process and appends each line it reads to `heard`; never answers. */
const LISTENER = `
const [socket, heard] = process.argv.slice(1);
require("node:net").createServer((connection) => {
  connection.on("data", (chunk) => require("node:fs").appendFileSync(heard, chunk));
}).listen(socket);
`;

test("attachSent: the attach frame is with the kernel, read by the daemon while this thread blocks", async () => {
  const dir = tempDir("mcpd-");
  const paths = daemonPaths({ MCPKIT_DAEMON_DIR: dir });
  if (!paths.ok) throw new Error(paths.error);
  const heard = join(dir, "heard");
  const listener = Bun.spawn([BUN, "-e", LISTENER, paths.value.socket, heard], { stdout: "ignore", stderr: "inherit" });
  try {
    await until(() => existsSync(paths.value.socket), "the listener's socket");
    const channel = new DaemonChannel(target, { paths: paths.value });
    void channel.start().catch(() => {});
    await channel.attachSent;
    // From here this thread never turns the event loop: only what the kernel already holds can reach the listener.
    const deadline = Date.now() + WAIT_GUARD_MS;
    while (!existsSync(heard) && Date.now() < deadline) Bun.sleepSync(5);
    expect(existsSync(heard) && JSON.parse(readFileSync(heard, "utf8").split("\n")[0]!)).toMatchObject({ type: "attach" });
    await channel.close();
  } finally {
    listener.kill();
  }
});

test("attachSent: with no daemon listening it settles at the refused connect, before the daemon started on demand answers", async () => {
  const dir = tempDir("mcpd-");
  const paths = daemonPaths({ MCPKIT_DAEMON_DIR: dir });
  if (!paths.ok) throw new Error(paths.error);
  const channel = new DaemonChannel(target, { paths: paths.value, command: FAKE_DAEMON_COMMAND, env: { MCPKIT_DAEMON_DIR: dir } });
  let attached = false;
  const started = channel.start().then(() => (attached = true));
  try {
    await channel.attachSent;
    expect(attached).toBe(false);
    await started;
    expect(launches(dir)).toHaveLength(1);
  } finally {
    await channel.close();
    stopLaunched(dir);
  }
});
