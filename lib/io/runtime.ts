// The native-I/O seam (DESIGN.md "Forwarding at wire speed"): the hot path of a forwarder reads and
// writes through the runtime's own pipes where it runs on Bun (our stdin and stdout, and a server's,
// spawned with Bun.spawn: lib/io/spawn.ts), and through node:stream and node:child_process elsewhere
// (Deno runs this fallback); a client reaches mcp-daemon through
// Bun.connect where it can (node:net's first connect costs ~5 ms of a warm call's start-up, and
// loading node:net more). A one-shot command's answer and its terminal checks go through Bun too:
// the first touch of process.stdout, stdin or stderr builds a node stream (and loads node:stream,
// node:net and node:tty), a few ms of a start-up whose floor is ~8. Everything else in lib/ stays runtime-neutral.

import { type BunFileSink, type FailingSink, FileSinkOutput, WebStreamSource } from "./bun-pipes.ts";
import type { NodeReadable } from "./reading.ts";

interface BunSocket {
  write(data: Uint8Array): number;
  end(): void;
  terminate(): void;
  pause(): void;
  resume(): void;
}

interface BunSocketHandlers {
  open(socket: BunSocket): void;
  data(socket: BunSocket, data: Uint8Array): void;
  drain(socket: BunSocket): void;
  end(socket: BunSocket): void;
  close(socket: BunSocket, error?: Error): void;
  error(socket: BunSocket, error: Error): void;
  connectError(socket: BunSocket, error: Error): void;
}

interface BunGlobal {
  unsafe?: { setJITPolicy?(scale: number): void };
  stdout: { writer(options?: { highWaterMark?: number }): BunFileSink };
  write(destination: unknown, text: string): Promise<number>;
  stdin: { stream(): ReadableStream<Uint8Array> };
  connect(options: { unix: string; socket: BunSocketHandlers }): Promise<BunSocket>;
  file(path: string): { stat(): Promise<{ uid: number; mode: number; dev: number; ino: number; isDirectory(): boolean }> };
}

const bun = (globalThis as { Bun?: BunGlobal }).Bun;

/** How long a process counts as starting up: a one-shot command is done by then, a long-lived one has begun serving. */
export const START_UP_MS = 1000;

/**
 * The release binary starts with JavaScriptCore's tier-up thresholds scaled up (build.ts, STARTUP_JIT_POLICY): a
 * one-shot command's code runs once, and the JIT threads compiling it cost a fifth of its CPU. A process still
 * running after START_UP_MS is a proxy, a daemon, a host or a server: from then on its hot paths tier up as usual.
 * The timer does not keep the process alive.
 */
export function normalJitAfterStartUp(): void {
  const unsafe = bun?.unsafe;
  if (unsafe?.setJITPolicy === undefined) return;
  const timer = setTimeout(() => unsafe.setJITPolicy?.(1), START_UP_MS);
  (timer as { unref?(): void }).unref?.();
}

/** What stat(2) says of a path (links followed): its owner, mode bits, identity, and whether it is a directory. */
export interface PathFacts {
  uid: number;
  mode: number;
  dev: number;
  ino: number;
  directory: boolean;
}

/**
 * stat(2) of a path, following links, through Bun's own file API: undefined when the path cannot be
 * read, or off Bun, where the caller asks node:fs instead. On Bun, loading node:fs costs a start-up
 * ~1.5 ms; this costs nothing measurable.
 */
export async function statWithoutNodeFs(path: string): Promise<PathFacts | undefined> {
  if (!bun) return undefined;
  try {
    const stats = await bun.file(path).stat();
    return { uid: stats.uid, mode: stats.mode, dev: stats.dev, ino: stats.ino, directory: stats.isDirectory() };
  } catch {
    return undefined;
  }
}

/** Our stdout, for protocol lines: Bun's FileSink when on Bun, process.stdout otherwise. */
export function stdoutSink(): FailingSink {
  return bun ? new FileSinkOutput(bun.stdout.writer()) : nodeOutput();
}

/** Our stdin, read like a node stream: Bun's own pipe reader when on Bun, process.stdin otherwise. */
export function stdinSource(): NodeReadable & { destroy(): void } {
  return bun ? new WebStreamSource(bun.stdin.stream()) : process.stdin;
}

/** Bun's own tty_wrap binding: isatty(3) without building a stream for the descriptor. */
type TtyBinding = { isTTY(fd: number): boolean };

/** Whether our stdin (0), stdout (1) or stderr (2) is a terminal, as process.std*.isTTY says, without building that stream on Bun. */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  if (bun) {
    const binding = (process as unknown as { binding(name: string): TtyBinding }).binding("tty_wrap");
    return binding.isTTY(fd);
  }
  const stream = fd === 0 ? process.stdin : fd === 1 ? process.stdout : process.stderr;
  return Boolean(stream.isTTY);
}

/**
 * Writes a command's answer to our stdout (the process stays up until it is out). A reader that
 * hung up (`| head`) is not an error worth a stack trace: the process ends with the exit code it has.
 */
export function writeStdout(text: string): void {
  if (!bun) {
    process.stdout.write(text);
    return;
  }
  bun.write(bun.stdout, text).catch(() => process.exit(process.exitCode ?? 0));
}

let stdoutQuiet = false;

/**
 * process.stdout for a command that streams to it, with a reader that hangs up (`| head`) ending the process with
 * the exit code it has, not a stack trace. Asked for where it is used, never up front: the first touch builds the
 * node stream, ~25 ms of a start-up on a loaded machine.
 */
export function quietStdout(): NodeJS.WriteStream {
  if (!stdoutQuiet) {
    stdoutQuiet = true;
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    });
  }
  return process.stdout;
}

function nodeOutput(): FailingSink {
  const sink: FailingSink = {
    write: (chunk) => process.stdout.write(chunk),
    once: (event, listener) => process.stdout.once(event, listener),
    off: (event, listener) => process.stdout.off(event, listener),
  };
  process.stdout.on("error", () => sink.onfailure?.());
  return sink;
}

/** A connected Unix socket as the daemon client uses it: read like a node stream, written through a LineWriter. */
export interface UnixSocket extends NodeReadable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect", listener: () => void): unknown;
  once(event: "end" | "close" | "drain", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  write(chunk: string | Uint8Array): boolean;
  /** Bytes written but not yet taken by the socket. */
  readonly writableLength: number;
  readonly destroyed: boolean;
  /** Sends what is still buffered, then closes our side; `done` runs once it is sent. */
  end(done: () => void): unknown;
  destroy(): unknown;
}

/** Connects to a Unix socket: Bun.connect on Bun, node:net elsewhere. Writes made before it connects are sent once it does. */
export async function connectUnix(path: string): Promise<UnixSocket> {
  if (bun) return new BunUnixSocket(bun, path);
  const { connect } = await import("node:net");
  return connect(path);
}

type SocketEvent = "connect" | "data" | "drain" | "end" | "close" | "error";
const encoder = new TextEncoder();

/** Bun's socket behind the node-stream surface the daemon client reads and writes. */
class BunUnixSocket implements UnixSocket {
  readonly #listeners = new Map<SocketEvent, { listener: (...args: any[]) => void; once: boolean }[]>();
  #socket?: BunSocket;
  /** What the socket has not taken yet: written before it connected, or past what the kernel accepted. */
  #backlog: Uint8Array[] = [];
  #backlogBytes = 0;
  #paused = false;
  #destroyed = false;
  #closed = false;
  #ending?: () => void;

  constructor(runtime: BunGlobal, path: string) {
    runtime
      .connect({
        unix: path,
        socket: {
          open: (socket) => this.#open(socket),
          data: (_socket, data) => this.#emit("data", data),
          drain: () => this.#sendBacklog(),
          end: () => this.#emit("end"),
          close: (_socket, error) => (error ? this.#fail(error) : this.#close()),
          error: (_socket, error) => this.#fail(error),
          connectError: (_socket, error) => this.#fail(error),
        },
      })
      .catch((error: Error) => this.#fail(error));
  }

  get writableLength(): number {
    return this.#backlogBytes;
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  on(event: SocketEvent, listener: (...args: any[]) => void): this {
    this.#add(event, listener, false);
    return this;
  }

  once(event: SocketEvent, listener: (...args: any[]) => void): this {
    this.#add(event, listener, true);
    return this;
  }

  off(event: SocketEvent, listener: (...args: any[]) => void): this {
    const listeners = this.#listeners.get(event);
    const at = listeners?.findIndex((entry) => entry.listener === listener) ?? -1;
    if (at !== -1) listeners!.splice(at, 1);
    return this;
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.#destroyed || this.#ending) return false;
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    if (this.#socket && this.#backlogBytes === 0) {
      const written = Math.max(0, this.#socket.write(bytes));
      if (written === bytes.length) return true;
      this.#queue(bytes.subarray(written));
      return false;
    }
    this.#queue(bytes);
    return false;
  }

  pause(): this {
    this.#paused = true;
    this.#socket?.pause();
    return this;
  }

  resume(): this {
    this.#paused = false;
    this.#socket?.resume();
    return this;
  }

  end(done: () => void): this {
    this.#ending = done;
    if (this.#socket && this.#backlogBytes === 0) this.#finishEnding();
    return this;
  }

  destroy(): this {
    if (this.#destroyed) return this;
    this.#destroyed = true;
    this.#socket?.terminate();
    // Not connected yet: the socket is let go when it does (#open), and nobody waits for its close.
    if (!this.#socket) this.#close();
    return this;
  }

  #open(socket: BunSocket): void {
    if (this.#destroyed) return socket.terminate();
    this.#socket = socket;
    if (this.#paused) socket.pause();
    this.#emit("connect");
    this.#sendBacklog();
  }

  #queue(bytes: Uint8Array): void {
    this.#backlog.push(bytes);
    this.#backlogBytes += bytes.length;
  }

  #sendBacklog(): void {
    const socket = this.#socket;
    if (!socket || this.#destroyed) return;
    while (this.#backlog.length > 0) {
      const bytes = this.#backlog[0]!;
      const written = Math.max(0, socket.write(bytes));
      this.#backlogBytes -= written;
      if (written < bytes.length) {
        this.#backlog[0] = bytes.subarray(written);
        return;
      }
      this.#backlog.shift();
    }
    if (this.#ending) return this.#finishEnding();
    this.#emit("drain");
  }

  #finishEnding(): void {
    const done = this.#ending!;
    this.#socket!.end();
    done();
  }

  // An error and the close come a turn later, as node's do: a connect refused at once must still
  // reach the listeners the caller adds right after connectUnix, and whoever destroys the socket
  // finishes its own close before the stream's end is seen.
  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#destroyed = true;
    setImmediate(() => {
      this.#emit("error", error);
      this.#emit("close");
    });
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#destroyed = true;
    setImmediate(() => this.#emit("close"));
  }

  #add(event: SocketEvent, listener: (...args: any[]) => void, once: boolean): void {
    let listeners = this.#listeners.get(event);
    if (!listeners) this.#listeners.set(event, (listeners = []));
    listeners.push({ listener, once });
  }

  #emit(event: SocketEvent, ...args: unknown[]): void {
    const listeners = this.#listeners.get(event);
    if (!listeners) return;
    for (const entry of [...listeners]) {
      if (entry.once) this.off(event, entry.listener);
      entry.listener(...args);
    }
  }
}
