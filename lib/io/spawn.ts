// Spawning a server with piped stdio, the runtime's fastest way (part of the native-I/O seam,
// lib/io/runtime.ts): Bun.spawn's own pipes on Bun (read and written through lib/io/bun-pipes.ts)
// behind the part of a ChildProcess lib/transport/stdio.ts uses, node:child_process
// elsewhere, loaded only there (on Bun it would cost a one-shot's start-up several ms for nothing).
// Apart from runtime.ts so that what only connects (a daemon client) never loads this.

import type { LineSink } from "../wire/line-writer.ts";
import { type BunFileSink, FileSinkOutput, OnceListeners, WebStreamSource } from "./bun-pipes.ts";
import type { NodeReadable } from "./reading.ts";

const bun = (globalThis as { Bun?: BunSpawn }).Bun;

/** A readable the caller may also let go of. */
export interface ChildOutput extends NodeReadable {
  destroy(): unknown;
}

/** A child's stdin: a LineSink that can be ended, and says (as "error") when the pipe broke. */
export interface ChildInput extends LineSink {
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): unknown;
  readonly destroyed: boolean;
  readonly writable: boolean;
}

/** What lib/transport/stdio.ts uses of a spawned process (node's ChildProcess has it all). */
export interface PipedChild {
  readonly pid?: number;
  readonly stdin: ChildInput | null;
  readonly stdout: ChildOutput | null;
  readonly stderr: ChildOutput | null;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  once(event: "close" | "spawn", listener: () => void): unknown;
  once(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
  kill(signal?: NodeJS.Signals): unknown;
}

export interface SpawnOptions {
  cwd?: string;
  env: Record<string, string>;
  /** Its own process group, so that the whole group can be signalled. */
  detached: boolean;
}

interface BunSubprocess {
  readonly pid: number;
  readonly stdin: BunFileSink;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  kill(signal?: string): void;
}

export interface BunSpawn {
  spawn(
    command: string[],
    options: {
      cwd?: string;
      env: Record<string, string | undefined>;
      stdin: "pipe";
      stdout: "pipe";
      stderr: "pipe";
      detached?: boolean;
      windowsHide?: boolean;
      onExit(process: unknown, code: number | null, signal: string | number | null): void;
    },
  ): BunSubprocess;
}

type ChildEvent = "spawn" | "error" | "exit" | "close";

/** A child's stdin: its FileSink, which reports a broken pipe as node's "error" event. */
class BunChildInput extends FileSinkOutput {
  readonly #events = new OnceListeners<"error">();
  #ended = false;

  constructor(sink: BunFileSink) {
    super(sink);
    // Unlike node's, a pipe nobody listens on for errors fails quietly (its writes return false).
    this.onfailure = () => {
      if (this.#events.count("error") > 0)
        this.#events.emit("error", Object.assign(new Error("EPIPE: broken pipe, write"), { code: "EPIPE" }));
    };
  }

  get destroyed(): boolean {
    return this.failed;
  }

  get writable(): boolean {
    return !this.failed && !this.#ended;
  }

  /** A pipe breaks once: the listener hears it once. */
  on(event: "error", listener: (error: Error) => void): this {
    this.#events.add(event, listener);
    return this;
  }

  override end(): void {
    this.#ended = true;
    super.end();
  }
}

const CLOSED_SINK: BunFileSink = {
  write: () => {
    throw new Error("the process never started");
  },
  flush: () => undefined,
  end: () => undefined,
};

const emptyStream = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });

/**
 * Bun.spawn as the part of a ChildProcess lib/transport/stdio.ts uses: its pipes, and the events
 * spawn, error (a spawn that failed: Bun throws, node emits), exit, and close (exited, and both
 * outputs ended).
 */
export class BunChild implements PipedChild {
  pid?: number;
  readonly stdin: BunChildInput;
  readonly stdout: WebStreamSource;
  readonly stderr: WebStreamSource;
  #subprocess?: BunSubprocess;

  constructor(
    runtime: BunSpawn,
    command: string,
    args: string[],
    options: { cwd?: string; env: Record<string, string>; detached?: boolean },
  ) {
    let subprocess: BunSubprocess;
    try {
      subprocess = runtime.spawn([command, ...args], {
        ...options,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        windowsHide: true,
        onExit: (_process, code, signal) => this.#exited(code, signal),
      });
    } catch (error) {
      // As node's: pipes that are already closed, and the error a turn later.
      this.stdin = new BunChildInput(CLOSED_SINK);
      this.stdout = new WebStreamSource(emptyStream());
      this.stderr = new WebStreamSource(emptyStream());
      setImmediate(() => this.#emit("error", error));
      return;
    }
    this.#subprocess = subprocess;
    this.pid = subprocess.pid;
    this.stdin = new BunChildInput(subprocess.stdin);
    this.stdout = new WebStreamSource(subprocess.stdout);
    this.stderr = new WebStreamSource(subprocess.stderr);
    let open = 2;
    const outputEnded = () => {
      if (--open === 0) this.#closeWhenDone();
    };
    this.stdout.once("close", outputEnded);
    this.stderr.once("close", outputEnded);
    queueMicrotask(() => this.#emit("spawn"));
  }

  kill(signal?: string): boolean {
    this.#subprocess?.kill(signal);
    return true;
  }

  once(event: ChildEvent, listener: (...args: any[]) => void): this {
    this.#events.add(event, listener);
    return this;
  }

  /** As node's: an "error" nobody listens for is thrown (a turn later, so it surfaces). */
  #emit(event: ChildEvent, ...args: unknown[]): void {
    if (event === "error" && this.#events.count("error") === 0) throw args[0];
    this.#events.emit(event, ...args);
  }

  readonly #events = new OnceListeners<ChildEvent>();
  #exit?: { code: number | null; signal: string | null };
  #outputsEnded = false;

  #exited(code: number | null, signal: string | number | null): void {
    this.#exit = { code: signal === null ? code : null, signal: typeof signal === "string" ? signal : null };
    this.#emit("exit", this.#exit.code, this.#exit.signal);
    if (this.#outputsEnded) this.#emit("close", this.#exit.code, this.#exit.signal);
  }

  #closeWhenDone(): void {
    this.#outputsEnded = true;
    if (this.#exit) this.#emit("close", this.#exit.code, this.#exit.signal);
  }
}

/** Spawns `command` with piped stdio, without a shell: Bun.spawn on Bun, node:child_process elsewhere. */
export function spawnPiped(command: string, args: string[], options: SpawnOptions): PipedChild {
  if (bun) return new BunChild(bun, command, args, options);
  const { spawn } = process.getBuiltinModule("node:child_process") as typeof import("node:child_process");
  return spawn(command, args, { ...options, stdio: ["pipe", "pipe", "pipe"], windowsHide: true }) as PipedChild;
}

/**
 * Spawns a child for a driver that loads later (EarlySpawn), on Bun; undefined elsewhere, where the
 * caller spawns once its driver has loaded: node's ChildProcess (and Deno's) resumes the pipes nobody
 * reads when the child exits, so what a server that dies at once wrote (its reason, on stderr) would
 * reach nobody.
 */
export function spawnEarly(command: string, args: string[], options: SpawnOptions): PipedChild | undefined {
  return bun ? new EarlySpawn(new BunChild(bun, command, args, options)) : undefined;
}

/**
 * A child spawned before whoever drives it has loaded (mcp-inspect spawns a server first, then loads
 * its transport): what it says meanwhile is kept, its output in its pipes and its events here, each
 * given to a listener added later (once, in a microtask, as if it came then). Every event is heard
 * from the start, so a spawn that fails never throws an "error" nobody was there to hear. For Bun's
 * pipes (see spawnEarly).
 */
export class EarlySpawn implements PipedChild {
  readonly #child: BunChild;
  readonly #events = new OnceListeners<ChildEvent>();
  readonly #happened = new Map<ChildEvent, unknown[]>();

  constructor(child: BunChild) {
    this.#child = child;
    // Bun's pipe reader would start at once and hand the first chunks to nobody.
    child.stdout.hold();
    child.stderr.hold();
    for (const event of ["spawn", "error", "exit", "close"] as const)
      child.once(event, (...args: unknown[]) => {
        this.#happened.set(event, args);
        this.#events.emit(event, ...args);
      });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get stdin(): ChildInput {
    return this.#child.stdin;
  }

  get stdout(): ChildOutput {
    return this.#child.stdout;
  }

  get stderr(): ChildOutput {
    return this.#child.stderr;
  }

  once(event: ChildEvent, listener: (...args: any[]) => void): this {
    const args = this.#happened.get(event);
    if (args) queueMicrotask(() => listener(...args));
    else this.#events.add(event, listener);
    return this;
  }

  kill(signal?: NodeJS.Signals): unknown {
    return this.#child.kill(signal);
  }
}
