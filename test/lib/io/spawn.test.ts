// lib/io/spawn and lib/io/bun-pipes: Bun.spawn's pipes behind the ChildProcess surface lib/transport/stdio.ts uses,
// against real processes: bytes both ways, pause and resume, a child that exits before we write
// (the broken pipe is an "error" event, never an unhandled rejection), and a spawn that fails.
import { expect, test } from "bun:test";
import { BunChild, type BunSpawn } from "../../../lib/io/spawn.ts";
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
