// A stdio MCP server as a message channel: spawned without a shell, with an allow-listed
// environment, in its own process group, framed by lib/lines, written with backpressure, and
// shut down in the order the spec gives: close stdin, then SIGTERM, then SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import { isBlank, parseForRouting, parseMessage, rawText, serializeMessage, type JsonRpcMessage, type MessageChannel, type RawMessage } from "./jsonrpc.ts";
import { ByteLineSplitter, LineSplitter, MAX_LINE_BYTES, type LineError } from "./lines.ts";

/** Variables a server inherits from us; API keys and the rest stay behind unless configured. */
export const INHERITED_ENV_POSIX = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];
export const INHERITED_ENV_WINDOWS = [
  "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
];
/** How long a server gets to exit after its stdin closes, and then after SIGTERM. */
export const STDIN_CLOSE_GRACE_MS = 2_000;
export const SIGTERM_GRACE_MS = 2_000;
/** A grandchild may keep our pipe open after the server exits; don't wait on it longer. */
export const CLOSE_AFTER_EXIT_MS = 200;
/** How often a shutdown looks whether the server's process group is gone yet. */
const GROUP_POLL_MS = 20;
/** How much of the server's stderr to keep for error messages. */
export const STDERR_TAIL_BYTES = 4 * 1024;
const SHOWN_JUNK_CHARS = 80;

/** A line from the server that could not be delivered; the channel lives on. */
export class DroppedLineError extends Error {
  constructor(
    readonly kind: "oversize" | "invalid-utf8" | "not-json-rpc",
    message: string,
    /** For an oversize line: its first and last bytes (see idFromEdges). */
    readonly head = "",
    readonly tail = "",
  ) {
    super(message);
  }
}

export interface StdioServerOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** What to do with the server's stderr; its tail is kept for error messages either way. */
  onstderr?: (chunk: Uint8Array) => void;
  maxLineBytes?: number;
  /** The environment to pick allow-listed variables from (defaults to ours). */
  baseEnv?: Record<string, string | undefined>;
  /**
   * Forwarders: `raw` is each line's bytes as they arrived (valid UTF-8), and large messages are
   * read for their routing fields only (see parseForRouting).
   */
  forwarding?: boolean;
}

export function serverEnvironment(
  extra: Record<string, string> = {},
  base: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const names = process.platform === "win32" ? INHERITED_ENV_WINDOWS : INHERITED_ENV_POSIX;
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = base[name];
    // Exported bash functions look like "() { ...": never pass them on (Shellshock).
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return { ...env, ...extra };
}

export class StdioChannel implements MessageChannel {
  onmessage?: (message: JsonRpcMessage, raw?: RawMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: string) => void;

  readonly options: StdioServerOptions;
  #child?: ChildProcess;
  #exit?: { code: number | null; signal: string | null };
  #exited?: Promise<void>;
  #closing?: Promise<void>;
  #closed = false;
  #stderrTail = "";
  #writer?: LineWriter;

  constructor(options: StdioServerOptions) {
    this.options = options;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last few KB the server wrote to stderr (for error messages). */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** How the process ended, once it has. */
  get exit(): { code: number | null; signal: string | null } | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    const { command, args = [], cwd } = this.options;
    if (cwd !== undefined && !isDirectory(cwd)) {
      this.#closed = true;
      return Promise.reject(new Error(`working directory not found: ${cwd}`));
    }
    const child = spawn(command, args, {
      cwd,
      env: serverEnvironment(this.options.env, this.options.baseEnv),
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    this.#child = child;
    // A process that never started has no exit event (bun emits only "error"): settle on both.
    this.#exited = new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });

    const maxLineBytes = this.options.maxLineBytes ?? MAX_LINE_BYTES;
    const onerror = (error: LineError) =>
      this.onerror?.(
        new DroppedLineError(
          error.kind,
          error.kind === "oversize"
            ? `dropped a ${error.bytes}-byte message from the server (over the ${maxLineBytes}-byte limit)`
            : "dropped a line from the server that is not valid UTF-8",
          error.kind === "oversize" ? error.head : "",
          error.kind === "oversize" ? error.tail : "",
        ),
      );
    // Stream chunks are handed over, never reused: lines can be views into them.
    const splitter = this.options.forwarding
      ? new ByteLineSplitter((line) => this.#online(line), { maxLineBytes, onerror, chunksAreOwned: true })
      : new LineSplitter((line) => this.#online(line), { maxLineBytes, onerror });
    child.stdout!.on("data", (chunk: Uint8Array) => splitter.push(chunk));
    child.stdout!.on("end", () => splitter.end());
    child.stderr!.on("data", (chunk: Uint8Array) => {
      this.#keepStderr(chunk);
      this.options.onstderr?.(chunk);
    });
    // A server that dies makes our writes fail with EPIPE: that is reported through onclose.
    child.stdin!.on("error", () => {});

    child.once("exit", (code, signal) => {
      this.#exit = { code, signal };
      setTimeout(() => this.#finish(), CLOSE_AFTER_EXIT_MS).unref();
    });
    child.once("close", () => this.#finish());

    return new Promise((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (error: NodeJS.ErrnoException) => {
        this.#closed = true;
        reject(new Error(spawnErrorMessage(command, error)));
      });
    });
  }

  send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || stdin.destroyed || !stdin.writable) return Promise.reject(new Error("the server's stdin is closed"));
    this.#writer ??= new LineWriter(stdin);
    return this.#writer.write(raw ?? serializeMessage(message));
  }

  /** Idempotent: closes stdin, waits, then signals the whole process group. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    child.stdin?.end();
    if (!this.#exit && !(await settlesWithin(this.#exited, STDIN_CLOSE_GRACE_MS))) {
      this.#signalGroup("SIGTERM");
      if (!(await settlesWithin(this.#exited, SIGTERM_GRACE_MS))) {
        this.#signalGroup("SIGKILL");
        await this.#exited;
      }
    }
    // Sweep what the server left behind in its group (e.g. npx's child), by force if it must.
    if (this.#groupAlive()) {
      this.#signalGroup("SIGTERM");
      const deadline = Date.now() + SIGTERM_GRACE_MS;
      while (this.#groupAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
      if (this.#groupAlive()) this.#signalGroup("SIGKILL");
    }
    // A survivor holding our pipes must not keep us running.
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.#finish();
  }

  #groupAlive(): boolean {
    const pid = this.#child?.pid;
    if (pid === undefined || process.platform === "win32") return false;
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  #signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === "win32") this.#child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }

  #online(line: RawMessage): void {
    if (isBlank(line)) return;
    const parsed = typeof line === "string" ? parseMessage(line) : parseForRouting(line);
    if (parsed.ok) {
      this.onmessage?.(parsed.value, line);
      return;
    }
    const text = rawText(line.length > SHOWN_JUNK_CHARS * 4 ? line.slice(0, SHOWN_JUNK_CHARS * 4) : line);
    const shown = text.length > SHOWN_JUNK_CHARS ? `${text.slice(0, SHOWN_JUNK_CHARS)}…` : text;
    this.onerror?.(new DroppedLineError("not-json-rpc", `skipped a line from the server that is not JSON-RPC (${parsed.error}): ${JSON.stringify(shown)}`));
  }

  #keepStderr(chunk: Uint8Array): void {
    this.#stderrTail = (this.#stderrTail + new TextDecoder().decode(chunk)).slice(-STDERR_TAIL_BYTES);
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    const exit = this.#exit;
    const reason = exit
      ? exit.signal
        ? `the server was killed by ${exit.signal}`
        : `the server exited with code ${exit.code}`
      : "the server closed its output";
    this.onclose?.(reason);
  }
}

interface LineSink {
  write(chunk: string | Uint8Array): boolean;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  /** How many bytes are queued and not yet written (node streams have it). */
  readonly writableLength?: number;
}

/** Lines this long are written on their own rather than joined into a batch. */
export const BATCH_LINE_LIMIT = 64 * 1024;
const NEWLINE = new Uint8Array([0x0a]);
const encoder = new TextEncoder();

/**
 * Writes newline-terminated lines (text, or the bytes of a line as it arrived) to a stream. Lines
 * written in the same turn of the event loop go out in one write (one syscall instead of one per
 * message, which is what costs under load); nothing waits on a timer. The promise settles when the
 * stream has room again, so a caller that awaits it respects backpressure.
 */
export class LineWriter {
  #pending: RawMessage[] = [];
  #pendingBytes = 0;
  #hasText = false;
  #scheduled = false;
  #room: Promise<void> = Promise.resolve();
  #roomAvailable = true;

  constructor(readonly sink: LineSink) {}

  /** Whether the stream has room (false from a refused write until it drains). */
  get hasRoom(): boolean {
    return this.#roomAvailable;
  }

  write(line: RawMessage): Promise<void> {
    if (line.length > BATCH_LINE_LIMIT) {
      this.#flush();
      if (typeof line === "string") this.#put(`${line}\n`);
      else {
        // No copy of a large line: its bytes, then the newline.
        this.#put(line);
        this.#put(NEWLINE);
      }
    } else {
      this.#pending.push(line);
      this.#pendingBytes += line.length + 1;
      if (typeof line === "string") this.#hasText = true;
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flush());
      }
    }
    return this.#room;
  }

  #flush(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    const bytes = this.#pendingBytes;
    const hasText = this.#hasText;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#hasText = false;
    if (!hasText) {
      // One buffer for the whole batch: the lines' bytes, each with its newline.
      const out = new Uint8Array(bytes);
      let offset = 0;
      for (const line of pending as Uint8Array[]) {
        out.set(line, offset);
        offset += line.length;
        out[offset++] = 0x0a;
      }
      this.#put(out);
    } else if (pending.length === 1) {
      this.#put(`${pending[0]}\n`);
    } else {
      this.#put(`${pending.map((line) => (typeof line === "string" ? line : rawText(line))).join("\n")}\n`);
    }
  }

  #put(chunk: string | Uint8Array): void {
    if (this.sink.write(chunk) || !this.#roomAvailable) return;
    this.#roomAvailable = false;
    this.#room = new Promise((resolve) => {
      const done = () => {
        this.sink.off("drain", done);
        this.sink.off("close", done);
        this.#roomAvailable = true;
        this.#room = Promise.resolve();
        resolve();
      };
      this.sink.once("drain", done);
      this.sink.once("close", done);
    });
  }
}

/**
 * Feeds a readable byte stream (our stdin, a socket) through the capped line splitter, handing each
 * line over as the bytes that arrived (checked to be UTF-8), undecoded: what forwarders pass on.
 */
export function readByteLines(
  source: ByteSource,
  online: (line: Uint8Array) => void,
  options: { onerror?: (error: LineError) => void; onend?: () => void; maxLineBytes?: number } = {},
): void {
  // Stream chunks are handed over, never reused: lines can be views into them.
  feed(source, new ByteLineSplitter(online, { maxLineBytes: options.maxLineBytes, onerror: options.onerror, chunksAreOwned: true }), options.onend);
}

type ByteSource = { on(event: "data", listener: (chunk: Uint8Array) => void): unknown; once(event: "end" | "close", listener: () => void): unknown };

function feed(source: ByteSource, splitter: { push(chunk: Uint8Array): void; end(): void }, onend?: () => void): void {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    splitter.end();
    onend?.();
  };
  source.on("data", (chunk) => splitter.push(chunk));
  source.once("end", end);
  source.once("close", end);
}

function spawnErrorMessage(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return `command not found: ${command} (check the name and PATH)`;
  if (error.code === "EACCES") return `permission denied running ${command} (is it executable?)`;
  return `could not start ${command}: ${error.message}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref?.();
    promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
