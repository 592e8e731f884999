// A survey's answers on a real Unix socket: a client that sends the frame and then takes nothing is
// let go after SLOW_CLIENT_GRACE_MS, also when everything was already written and only waits to go
// out (one answer of several MB), so no connection is held open by a reader that never reads.
import { afterAll, expect, test } from "bun:test";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { createConsola, type LogObject } from "consola/core";
import { type ConnectionHost, DaemonConnection } from "../../../daemon/connection.ts";
import type { DaemonSession } from "../../../daemon/session.ts";
import { removeTempDirs, TEST_GUARD_MS, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

test(
  "one survey answer of 6 MB to a client that never reads: the client is let go and says why",
  async () => {
    const warnings: string[] = [];
    const log = createConsola({ reporters: [{ log: (entry: LogObject) => void warnings.push(String(entry.args[0])) }] });
    const tools = Array.from({ length: 6_000 }, (_, i) => ({ name: `tool${i}`, description: "x".repeat(1_000) }));
    const session = { touch() {}, sessionInfo: () => ({ version: 1, identity: { era: "legacy" }, tools }) } as unknown as DaemonSession;
    const host = { log, version: "0", runningSession: () => session, clientName: () => "client" } as unknown as ConnectionHost;
    const path = join(tempDir("mcpd-survey-"), "s.sock");
    const accepted = Promise.withResolvers<Socket>();
    const server = createServer((socket) => {
      new DaemonConnection(socket, host);
      accepted.resolve(socket);
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const reader = connect(path, () => {
      reader.write(`${JSON.stringify({ type: "survey", protocol: 1, servers: [{ kind: "stdio", command: "x", args: [], env: {} }] })}\n`);
      reader.pause();
    });
    reader.on("error", () => {});
    const daemonSide = await accepted.promise;
    await new Promise((resolve) => daemonSide.once("close", resolve));
    expect(warnings.some((line) => line.startsWith("a client took nothing of a survey's answers for"))).toBe(true);
    reader.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  },
  TEST_GUARD_MS,
);
