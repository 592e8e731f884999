// A daemon connection on a real Unix socket sends one frame over CHANNEL_BUFFER_BYTES whole (a
// result may be up to MAX_MESSAGE_BYTES) and does not hold it against a client that reads: only
// that much of other frames waiting lets a client go.
import { afterAll, expect, test } from "bun:test";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { createConsola, type LogObject } from "consola/core";
import { type ConnectionHost, DaemonConnection } from "../../../daemon/connection.ts";
import type { DaemonSession, SessionClient } from "../../../daemon/session.ts";
import { CHANNEL_BUFFER_BYTES } from "../../../lib/wire/limits.ts";
import { removeTempDirs, TEST_GUARD_MS, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

/** A session whose attached client is handed to `onattach`; it holds and releases nothing real. */
function fakeSession(onattach: (client: SessionClient) => void): DaemonSession {
  return {
    key: "k",
    pid: 1,
    ensureUpstream: async () => {},
    attach: (client: SessionClient) => setImmediate(() => onattach(client)),
    detach() {},
    hold() {},
    release() {},
    sessionInfo: () => ({ version: 1, identity: { era: "legacy" } }),
  } as unknown as DaemonSession;
}

/** Attaches to a DaemonConnection over a real socket and reads until `done` says the text is complete, or the socket closes. */
async function attachAndRead(session: DaemonSession, done: (text: string) => boolean) {
  const warnings: string[] = [];
  const log = createConsola({ reporters: [{ log: (entry: LogObject) => void warnings.push(String(entry.args[0])) }] });
  const host = { log, version: "0", session: () => session, clientName: () => "client" } as unknown as ConnectionHost;
  const path = join(tempDir("mcpd-frames-"), "s.sock");
  const server = createServer((socket) => new DaemonConnection(socket, host));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const text = await new Promise<string>((resolve) => {
    let received = "";
    const reader = connect(path, () =>
      reader.write(`${JSON.stringify({ type: "attach", protocol: 1, server: { kind: "stdio", command: "x", args: [], env: {} } })}\n`),
    );
    reader.on("data", (chunk: Buffer) => {
      received += chunk.toString();
      if (done(received)) reader.end();
    });
    reader.on("error", () => {});
    reader.on("close", () => resolve(received));
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { text, warnings };
}

const answer = (id: string, text: string) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });

test(
  "a 12 MB answer and a small one written in the same turn both reach a client that reads: the big frame is not held against it",
  async () => {
    const big = "m".repeat(12 * 1024 * 1024);
    expect(big.length).toBeGreaterThan(CHANNEL_BUFFER_BYTES);
    const session = fakeSession((client) => {
      client.send(answer("big", big) as never);
      client.send(answer("small", "s") as never);
    });
    const { text, warnings } = await attachAndRead(session, (received) => received.includes('"id":"small"'));
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id ?? line.type)).toEqual(["attached", "big", "small"]);
    expect(lines[1].result.content[0].text).toBe(big);
    expect(warnings).toEqual([]);
  },
  TEST_GUARD_MS,
);

test(
  "past the big frame, CHANNEL_BUFFER_BYTES of other frames still waiting lets the client go, and says why",
  async () => {
    const half = "h".repeat(CHANNEL_BUFFER_BYTES / 2);
    const session = fakeSession((client) => {
      client.send(answer("big", "m".repeat(12 * 1024 * 1024)) as never);
      // Three more of half the bound each, all in this turn: the third finds the bound taken.
      for (const id of ["a", "b", "c"]) client.send(answer(id, half) as never);
    });
    const { text, warnings } = await attachAndRead(session, () => false);
    expect(warnings.some((line) => line.includes("read nothing while"))).toBe(true);
    expect(text).not.toContain('"id":"c"');
  },
  TEST_GUARD_MS,
);
