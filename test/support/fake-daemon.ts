// A tiny stand-in for mcp-daemon, for the suites of lib/daemon/start.ts and client.ts: run as
// `bun -e FAKE_DAEMON <args>`, it records each launch (pid, argv, cwd, the variables it got) as a
// line of $MCPKIT_DAEMON_DIR/launches, listens on the daemon's socket, answers hello and attach
// (then echoes the session's lines back), and exits on stop. It is no MCP server and no entry script.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN } from "./helpers.ts";

const SCRIPT = `
const { createServer } = require("node:net");
const { appendFileSync } = require("node:fs");
const dir = process.env.MCPKIT_DAEMON_DIR;
const env = { MCPKIT_DAEMON_DIR: dir, MCPKIT_DAEMON_DETACHED: process.env.MCPKIT_DAEMON_DETACHED };
appendFileSync(dir + "/launches", JSON.stringify({ pid: process.pid, argv: process.argv.slice(1), cwd: process.cwd(), env }) + "\\n");
const server = createServer((socket) => {
  let buffer = "";
  let attached = false;
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\\n"); end !== -1; end = buffer.indexOf("\\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (attached) { socket.write(line + "\\n"); continue; }
      const frame = JSON.parse(line);
      if (frame.type === "attach") {
        attached = true;
        socket.write(JSON.stringify({ type: "attached", session: "fake-session", pid: null }) + "\\n");
      } else if (frame.type === "stop") {
        socket.end(JSON.stringify({ type: "stopping", pid: process.pid }) + "\\n", () => process.exit(0));
      } else {
        socket.end(JSON.stringify({ type: "hello", protocol: 1, pid: process.pid, version: "fake" }) + "\\n");
      }
    }
  });
});
// A socket left behind by a daemon that died is replaced, as mcp-daemon replaces it.
try { require("node:fs").unlinkSync(dir + "/daemon.sock"); } catch {}
server.listen(dir + "/daemon.sock");
`;

/** The command line that runs the fake daemon (`run` and the start flags are appended to it). */
export const FAKE_DAEMON_COMMAND = [BUN, "-e", SCRIPT];

export interface Launch {
  pid: number;
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
}

/** Every launch of the fake daemon in this directory so far. */
export function launches(dir: string): Launch[] {
  try {
    return readFileSync(join(dir, "launches"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

/** Ends every fake daemon launched in this directory. */
export function stopLaunched(dir: string): void {
  for (const { pid } of launches(dir)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
