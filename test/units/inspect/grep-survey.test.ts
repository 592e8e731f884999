// grep --stateful takes what mcp-daemon's running sessions know from one survey: against a daemon
// of the test's own that answers surveys and cuts every attach, the tools still come, from the one
// survey connection; where the survey says nothing, the server is attached to (and here fails).
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { survey } from "../../../inspect/grep.ts";
import type { Target } from "../../../lib/targets/target.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);
const savedDir = process.env.MCPKIT_DAEMON_DIR;
afterEach(() => {
  if (savedDir === undefined) delete process.env.MCPKIT_DAEMON_DIR;
  else process.env.MCPKIT_DAEMON_DIR = savedDir;
});

const identity = { era: "legacy", protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } } };
const target = (name: string): Target => ({ kind: "stdio", command: name, args: [], env: {} });

/** Answers a survey with tools for the servers whose command starts with "known", nothing for the rest; ends any other connection. */
async function surveyOnlyDaemon(dir: string): Promise<{ server: Server; frames: string[] }> {
  const frames: string[] = [];
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", (chunk) => {
      const frame = JSON.parse(chunk.toString().split("\n")[0]!);
      frames.push(frame.type);
      if (frame.type !== "survey") return void socket.destroy();
      const answers = frame.servers.map((server: { command: string }, index: number) =>
        server.command.startsWith("known")
          ? { type: "surveyed", index, session: { version: 1, identity, tools: [{ name: `${server.command}-echo` }] } }
          : { type: "surveyed", index },
      );
      socket.end(answers.map((answer: unknown) => `${JSON.stringify(answer)}\n`).join(""));
    });
  });
  await new Promise<void>((resolve) => server.listen(join(dir, "daemon.sock"), resolve));
  return { server, frames };
}

test("servers the survey knows get their tools from it alone; one it does not know is attached to", async () => {
  const dir = join(tempDir("mcpd-grep-"), "d");
  process.env.MCPKIT_DAEMON_DIR = dir;
  mkdirSync(dir, { mode: 0o700 });
  const { server, frames } = await surveyOnlyDaemon(dir);
  try {
    const named = ["known-a", "known-b", "unknown"].map((name) => ({ server: name, target: target(name), select: name }));
    const results = await survey(named, { version: "0", stateful: true, timeoutMs: 2_000 });
    expect(results[0]).toEqual({ server: "known-a", tools: [{ name: "known-a-echo" }] });
    expect(results[1]).toEqual({ server: "known-b", tools: [{ name: "known-b-echo" }] });
    expect(results[2]!.tools).toBeUndefined();
    expect(results[2]!.failure?.server).toBe("unknown");
    expect(frames).toEqual(["survey", "attach"]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
