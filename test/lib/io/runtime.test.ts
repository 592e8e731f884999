// lib/io/runtime: connectUnix on Bun (Bun.connect behind the node-stream surface the daemon client
// uses), against a real node:net listener: writes before the connect, a write past what the kernel
// takes, pause, end, and a socket nobody listens on; and the start-up JIT policy's end.
import { afterAll, expect, jest, spyOn, test } from "bun:test";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { connectUnix, normalJitAfterStartUp, START_UP_MS } from "../../../lib/io/runtime.ts";
import { BUN, ROOT, removeTempDirs, tempDir, until } from "../../support/helpers.ts";

afterAll(removeTempDirs);

/** A listener that keeps every byte each connection sends, and the connections themselves. */
async function listening() {
  const path = join(tempDir("mcprt-"), "s.sock");
  const received: Buffer[] = [];
  const peers: Socket[] = [];
  let ended = false;
  const server = createServer((socket) => {
    peers.push(socket);
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("end", () => (ended = true));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    path,
    peers,
    bytes: () => Buffer.concat(received),
    ended: () => ended,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test("what is written before the connect is sent once connected, then the connect event; data comes both ways", async () => {
  const server = await listening();
  const socket = await connectUnix(server.path);
  let connected = false;
  const got: Uint8Array[] = [];
  socket.on("connect", () => (connected = true));
  socket.on("data", (chunk) => got.push(chunk));
  socket.write("hello ");
  socket.write(new TextEncoder().encode("there\n"));
  await until(() => server.bytes().toString() === "hello there\n", "the early writes to arrive");
  expect(connected).toBe(true);
  server.peers[0]!.write("back\n");
  await until(() => Buffer.concat(got).toString() === "back\n", "the answer to arrive");
  socket.destroy();
  await server.close();
});

test("a write past what the socket takes returns false, arrives whole and in order, and drain follows", async () => {
  const server = await listening();
  const socket = await connectUnix(server.path);
  await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
  // The reader is paused, so the kernel's buffers fill and the rest waits in ours.
  await until(() => server.peers.length > 0, "the connection");
  server.peers[0]!.pause();
  const big = Buffer.alloc(8 * 1024 * 1024, "a");
  big[big.length - 1] = 0x62;
  expect(socket.write(big)).toBe(false);
  expect(socket.writableLength).toBeGreaterThan(0);
  let drained = false;
  socket.once("drain", () => (drained = true));
  server.peers[0]!.resume();
  await until(() => drained, "drain");
  await until(() => server.bytes().length === big.length, "every byte");
  expect(server.bytes().equals(big)).toBe(true);
  expect(socket.writableLength).toBe(0);
  socket.destroy();
  await server.close();
});

test("end sends what is buffered, then closes our side: the listener sees the end; destroy then closes, once", async () => {
  const server = await listening();
  const socket = await connectUnix(server.path);
  let closes = 0;
  socket.once("close", () => closes++);
  socket.write("last\n");
  await new Promise<void>((resolve) => socket.end(() => resolve()));
  await until(() => server.ended(), "the listener to see the end");
  expect(server.bytes().toString()).toBe("last\n");
  socket.destroy();
  socket.destroy();
  await until(() => closes === 1, "the close");
  expect(socket.destroyed).toBe(true);
  expect(socket.write("more")).toBe(false);
  await server.close();
});

test("a path nobody listens on: an error, then the close, both after the caller had its turn to listen", async () => {
  const socket = await connectUnix(join(tempDir("mcprt-"), "nobody.sock"));
  const events: string[] = [];
  socket.on("error", (error) => events.push(`error ${(error as NodeJS.ErrnoException).code ?? error.message}`));
  socket.once("close", () => events.push("close"));
  await until(() => events.includes("close"), "the close");
  expect(events[0]).toStartWith("error ");
  expect(events).toHaveLength(2);
});

test("normalJitAfterStartUp puts the normal JIT policy back once START_UP_MS have passed, not before", () => {
  jest.useFakeTimers();
  const setPolicy = spyOn(Bun.unsafe, "setJITPolicy");
  try {
    normalJitAfterStartUp();
    jest.advanceTimersByTime(START_UP_MS - 1);
    expect(setPolicy).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(setPolicy).toHaveBeenCalledTimes(1);
    expect(setPolicy).toHaveBeenCalledWith(1);
  } finally {
    setPolicy.mockRestore();
    jest.useRealTimers();
  }
});

test("the start-up policy's timer keeps no process alive: a command done before it ends, the policy untouched", async () => {
  // The child says which came first: its exit (the timer was unref'd) or the policy's reset (it kept the process up).
  const script = `
    const { normalJitAfterStartUp } = await import(${JSON.stringify(join(ROOT, "lib/io/runtime.ts"))});
    Bun.unsafe.setJITPolicy = (scale) => process.stdout.write("reset " + scale + "\\n");
    normalJitAfterStartUp();
    process.on("exit", () => process.stdout.write("exit\\n"));
  `;
  const child = Bun.spawn([BUN, "-e", script], { stdout: "pipe", stderr: "pipe" });
  expect(await child.exited).toBe(0);
  expect(await new Response(child.stdout).text()).toBe("exit\n");
});
