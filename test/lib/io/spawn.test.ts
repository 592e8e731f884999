// lib/io/spawn and lib/io/bun-pipes: Bun.spawn's pipes behind the ChildProcess surface lib/transport/stdio.ts uses,
// against real processes: bytes both ways, pause and resume, a child that exits before we write
// (the broken pipe is an "error" event, never an unhandled rejection), and a spawn that fails.
import { describe, expect, test } from "bun:test";
import { BunChild, type BunSpawn, EarlySpawn } from "../../../lib/io/spawn.ts";
import { until } from "../../support/helpers.ts";

const runtime = Bun as unknown as BunSpawn;
const spawnChild = (command: string, ...args: string[]) => new BunChild(runtime, command, args, { env: { PATH: process.env.PATH ?? "" } });

/** Everything a child's stdout hands over, and whether it ended. */
function collect(child: BunChild) {
  const chunks: Uint8Array[] = [];
  let ended = false;
  child.stdout.on("data", (chunk: Uint8Array) => chunks.push(chunk));
  child.stdout.once("end", () => (ended = true));
  return { text: () => Buffer.concat(chunks).toString(), ended: () => ended };
}

test("bytes written to the child come back through its stdout, then end, exit and close in node's order", async () => {
  const child = spawnChild("cat");
  const events: string[] = [];
  child.once("spawn", () => events.push("spawn"));
  child.once("exit", (code: number | null) => events.push(`exit ${code}`));
  child.once("close", () => events.push("close"));
  const out = collect(child);
  expect(child.stdin.write("hello ")).toBe(true);
  expect(child.stdin.write(new TextEncoder().encode("there\n"))).toBe(true);
  await until(() => out.text() === "hello there\n", "the echo");
  child.stdin.end();
  await until(() => events.includes("close"), "the close");
  expect(out.ended()).toBe(true);
  expect(events).toEqual(["spawn", "exit 0", "close"]);
});

test("a paused stdout hands over nothing until resumed, then all of it in order", async () => {
  // The line on stderr comes after the two on stdout: once it is here, they were written.
  const child = spawnChild("sh", "-c", "echo one; echo two; echo written >&2; cat");
  child.stdout.pause();
  const out = collect(child);
  let witness = "";
  child.stderr.on("data", (chunk: Uint8Array) => (witness += Buffer.from(chunk).toString()));
  await until(() => witness === "written\n", "the child to have written its lines");
  expect(out.text()).toBe("");
  child.stdout.resume();
  await until(() => out.text() === "one\ntwo\n", "the held lines");
  child.stdin.end();
  await until(() => out.ended(), "the end of stdout");
});

test("writing to a child that has exited is an error event on stdin, not a crash", async () => {
  const child = spawnChild("true");
  let closed = false;
  child.once("close", () => (closed = true));
  await until(() => closed, "the child to exit");
  const errors: Error[] = [];
  child.stdin.on("error", (error) => errors.push(error));
  // Past the FileSink's buffer: its write returns a promise that rejects with EPIPE.
  child.stdin.write("x".repeat(1024 * 1024));
  await until(() => errors.length > 0, "the broken pipe");
  expect((errors[0] as NodeJS.ErrnoException).code).toBe("EPIPE");
  expect(child.stdin.destroyed).toBe(true);
  expect(child.stdin.write("more")).toBe(false);
});

test("a command that does not exist: an ENOENT error event a turn later, and pipes already ended", async () => {
  const child = spawnChild("mcpkit-no-such-command-here");
  const out = collect(child);
  let error: NodeJS.ErrnoException | undefined;
  child.once("error", (failure: NodeJS.ErrnoException) => (error = failure));
  expect(error).toBeUndefined();
  await until(() => error !== undefined && out.ended(), "the error and the end of stdout");
  expect(error!.code).toBe("ENOENT");
  expect(child.pid).toBeUndefined();
  expect(child.stdin.write("x")).toBe(false);
});

describe("EarlySpawn: a child spawned before whoever drives it has loaded", () => {
  test("events that came before a listener was added reach it later, once each, with their arguments", async () => {
    const early = new EarlySpawn(spawnChild("sh", "-c", "echo out; exit 3"));
    // Only the test's own look at the child: the listeners below come after it has exited.
    await new Promise<void>((resolve) => early.once("exit", () => resolve()));
    const heard: string[] = [];
    early.once("spawn", () => heard.push("spawn"));
    early.once("exit", (code: number | null, signal: string | null) => heard.push(`exit ${code} ${signal}`));
    await until(() => heard.length === 2, "the replayed events");
    expect(heard).toEqual(["spawn", "exit 3 null"]);
    // What the child wrote waited in its pipe; once both pipes are read to their end, it closes.
    const chunks: Uint8Array[] = [];
    early.stdout!.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    early.stderr!.on("data", () => {});
    early.once("close", () => heard.push("close"));
    await until(() => heard.includes("close"), "the close");
    expect(Buffer.concat(chunks).toString()).toBe("out\n");
    expect(heard).toEqual(["spawn", "exit 3 null", "close"]);
  });

  test("a reader that pauses as it starts listening (the early server does) gets nothing until it resumes", async () => {
    // The line on stderr comes after the one on stdout: once it is here, stdout's was written.
    const early = new EarlySpawn(spawnChild("sh", "-c", "echo one; echo written >&2; cat"));
    const chunks: Uint8Array[] = [];
    let stderr = "";
    early.stdout!.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    early.stdout!.pause();
    early.stderr!.on("data", (chunk: Uint8Array) => (stderr += Buffer.from(chunk).toString()));
    await until(() => stderr.includes("written"), "the line on stderr");
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual([]);
    early.stdout!.resume();
    await until(() => Buffer.concat(chunks).toString() === "one\n", "stdout once resumed");
    early.stdin!.end();
  });

  test("a spawn that fails throws nothing while nobody listens; the error reaches the listener added later", async () => {
    const early = new EarlySpawn(spawnChild("/nonexistent/server"));
    // The failure is emitted a turn after the spawn (as node's): two turns, and it has come and gone unheard.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => early.once("error", resolve));
    expect(error.code).toBe("ENOENT");
  });
});
