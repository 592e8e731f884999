// Spawning a server with piped stdio, the runtime's fastest way (part of the native-I/O seam,
// lib/io/runtime.ts): Bun.spawn's own pipes on Bun (lib/io/bun-pipes.ts), node:child_process
// elsewhere, loaded only there (on Bun it would cost a one-shot's start-up several ms for nothing).
// Apart from runtime.ts so that what only connects (a daemon client) never loads this.
import type { LineSink } from "../wire/line-writer.ts";
import { BunChild, type BunSpawn } from "./bun-pipes.ts";
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

/** Spawns `command` with piped stdio, without a shell: Bun.spawn on Bun, node:child_process elsewhere. */
export function spawnPiped(command: string, args: string[], options: SpawnOptions): PipedChild {
  if (bun) return new BunChild(bun, command, args, options);
  const { spawn } = process.getBuiltinModule("node:child_process") as typeof import("node:child_process");
  return spawn(command, args, { ...options, stdio: ["pipe", "pipe", "pipe"], windowsHide: true }) as PipedChild;
}
