// A stdio MCP server as a message channel: spawned without a shell, with an allow-listed
// environment, in its own process group, framed by lib/wire/lines, written with a bound, read with
// backpressure, and shut down in the order the spec gives: close stdin, then SIGTERM, then SIGKILL.
// A server whose stdout closes, or that stops reading its stdin, is a crashed server.
// One concept past 250 lines: one child process's life as a channel, from spawn to the last signal.
import { type Flow, pollUntil, readChunks, settlesWithin } from "../io/reading.ts";
import { type PipedChild, spawnPiped } from "../io/spawn.ts";
import { CutThroughSplitter, type LineStream, type MessageHead } from "../wire/cut-through.ts";
import { parseForRouting } from "../wire/json-scan.ts";
import { isBlank, type JsonRpcMessage, parseMessage, type RawMessage, rawText, serializeMessage } from "../wire/jsonrpc.ts";
import { FORWARD_BUFFER_BYTES } from "../wire/limits.ts";
import { LineWriter, type PieceWriter } from "../wire/line-writer.ts";
import { ByteLineSplitter, type LineError, MAX_LINE_BYTES } from "../wire/lines.ts";
import { type CloseOptions, DroppedLineError, type MessageChannel } from "./channel.ts";
import { type Environment, serverSpawnOptions } from "./environment.ts";
import { ServerStderr } from "./stderr.ts";

/** How long a server gets to exit after its stdin closes, and then after SIGTERM. */
export const STDIN_CLOSE_GRACE_MS = 2_000;
export const SIGTERM_GRACE_MS = 2_000;
/** The same two steps when a signal is ending us: the whole shutdown stays well under a second. */
export const QUICK_GRACE_MS = 250;
/** A grandchild may keep our pipe open after the server exits; don't wait on it longer. */
export const CLOSE_AFTER_EXIT_MS = 200;
/** How often a shutdown looks whether the server's process group is gone yet. */
const GROUP_POLL_MS = 20;
const SHOWN_JUNK_CHARS = 80;

export interface StdioServerOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Each line the server writes to stderr, stripped of control sequences; its tail is kept either way. */
  onstderr?: (line: string) => void;
  maxLineBytes?: number;
  /** The environment to pick allow-listed variables from (defaults to ours). */
  baseEnv?: Environment;
  /** Pass all of `baseEnv` on, not only the allow-list (mcp-proxy's `-- cmd`: the client configured it). */
  inheritEnvironment?: boolean;
  /**
   * Forwarders: `raw` is each line's bytes as they arrived (not checked or decoded: a line that is
   * not valid UTF-8 passes as it is), and large messages are read for their routing fields only.
   */
  forwarding?: boolean;
  /**
   * The server, spawned already from these options (mcp-inspect spawns it before this file loads):
   * adopted instead of spawned. Its events until now must have been kept (lib/io/spawn.ts's EarlySpawn).
   */
  spawned?: PipedChild;
}

export class StdioChannel implements MessageChannel {
  onmessage?: (message: JsonRpcMessage, raw?: RawMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: string) => void;
  ondrain?: () => void;
  onlong?: (head: MessageHead) => LineStream | undefined;

  readonly options: StdioServerOptions;
  #child?: PipedChild;
  #exit?: { code: number | null; signal: string | null };
  #exited?: Promise<void>;
  #started?: Promise<void>;
  #closing?: Promise<void>;
  #closed = false;
  #quick = false;
  /** Stopped before it was ever written to: no grace for its stdin to close. */
  #unheard = false;
  /** Settles when a quick close is asked for while a normal one is under way. */
  readonly #hurry = Promise.withResolvers<void>();
  readonly #stderr: ServerStderr;
  #writer?: LineWriter;
  #stdout?: Flow;
  /** Set when the server closed its stdout or stopped reading its stdin while still running. */
  #deafOrMute?: string;

  constructor(options: StdioServerOptions) {
    this.options = options;
    this.#stderr = new ServerStderr(options.onstderr);
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the server wrote to stderr (for error messages). */
  get stderrTail(): string {
    return this.#stderr.tail;
  }

  /** How the process ended, once it has. */
  get exit(): { code: number | null; signal: string | null } | undefined {
    return this.#exit;
  }

  get hasRoom(): boolean {
    return this.#writer?.hasRoom ?? true;
  }

  /** Idempotent: a second call waits for the same spawn (mcp-inspect starts a server early, the client starts it again). */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  #start(): Promise<void> {
    const { command, args = [], cwd } = this.options;
    if (cwd !== undefined && !isDirectory(cwd)) {
      this.#closed = true;
      return Promise.reject(new Error(`working directory not found: ${cwd}`));
    }
    const child = this.options.spawned ?? spawnPiped(command, args, serverSpawnOptions(this.options));
    this.#child = child;
    // A process that never started has no exit event (bun emits only "error"): settle on both.
    this.#exited = new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });

    const maxLineBytes = this.options.maxLineBytes ?? MAX_LINE_BYTES;
    const onerror = (error: LineError) =>
      this.onerror?.(
        error.kind === "oversize"
          ? new DroppedLineError(
              "oversize",
              `dropped a ${error.bytes}-byte message from the server (over the ${maxLineBytes}-byte limit)`,
              error.head,
              error.tail,
            )
          : new DroppedLineError("invalid-utf8", "dropped a line from the server that is not valid UTF-8"),
      );
    const decoder = new TextDecoder();
    const forwarding = this.options.forwarding === true;
    // Stream chunks are handed over, never reused: lines can be views into them. A client decodes
    // leniently: a stray bad byte must not cost the answer it belongs to. A forwarder takes long
    // messages as they come, when it can (cut-through).
    const splitter = forwarding
      ? new CutThroughSplitter({ online: (line) => this.#online(line), onlong: (head) => this.onlong?.(head), onerror, maxLineBytes })
      : new ByteLineSplitter((line) => this.#online(decoder.decode(line)), {
          maxLineBytes,
          onerror,
          chunksAreOwned: true,
          validateUtf8: false,
        });
    this.#stdout = readChunks(child.stdout!, {
      onchunk: (chunk) => splitter.push(chunk),
      onend: () => {
        splitter.end();
        this.#whenStillRunning("the server closed its stdout");
      },
    });
    readChunks(child.stderr!, { onchunk: (chunk) => this.#stderr.push(chunk), onend: () => this.#stderr.end() });
    // A write to a server that is gone, or that closed its stdin, fails with EPIPE.
    child.stdin!.on("error", () => this.#whenStillRunning("the server stopped reading its stdin"));

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
    const writer = this.#openWriter();
    if (!writer) return Promise.reject(new Error(this.#deafOrMute ?? "the server's stdin is closed"));
    return writer.write(raw ?? serializeMessage(message));
  }

  openLine(): PieceWriter | undefined {
    return this.#openWriter()?.openLine();
  }

  #openWriter(): LineWriter | undefined {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || this.#deafOrMute || stdin.destroyed || !stdin.writable) return undefined;
    if (!this.#writer) {
      this.#writer = new LineWriter(stdin, this.options.forwarding ? { bufferBytes: FORWARD_BUFFER_BYTES } : {});
      this.#writer.onroom = () => this.ondrain?.();
    }
    return this.#writer;
  }

  pause(): void {
    this.#stdout?.pause("consumer");
  }

  resume(): void {
    this.#stdout?.resume("consumer");
  }

  /**
   * Stops a server nobody has written to (mcp-inspect started it early, then found a usage error):
   * it has no request to finish, so its group gets SIGTERM at once, and SIGKILL QUICK_GRACE_MS later.
   */
  discard(): Promise<void> {
    if (!this.#writer) this.#unheard = true;
    return this.close({ quick: true });
  }

  /** Idempotent: closes stdin, waits, then signals the whole process group. */
  close(options: CloseOptions = {}): Promise<void> {
    if (options.quick && !this.#quick) {
      this.#quick = true;
      this.#hurry.resolve();
    }
    this.#closing ??= this.#shutdown(options.stdinGraceMs ?? STDIN_CLOSE_GRACE_MS);
    return this.#closing;
  }

  async #shutdown(stdinGraceMs: number): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    const exited = this.#exited;
    // Each wait is cut short when a signal asks for a quick close meanwhile.
    let gone = false;
    void exited.then(() => (gone = true));
    const exitsWithin = async (normal: number): Promise<boolean> => {
      if (!this.#quick) await settlesWithin(Promise.race([exited, this.#hurry.promise]), normal);
      if (gone) return true;
      return this.#quick ? settlesWithin(exited, QUICK_GRACE_MS) : false;
    };
    child.stdin?.end();
    // A server that cannot hear us any more (or never did) gets no time to react to its stdin closing.
    if (!this.#exit && (this.#deafOrMute || this.#unheard || !(await exitsWithin(stdinGraceMs)))) {
      this.#signalGroup("SIGTERM");
      if (!(await exitsWithin(SIGTERM_GRACE_MS))) {
        this.#signalGroup("SIGKILL");
        await this.#exited;
      }
    }
    // Sweep what the server left behind in its group (e.g. npx's child), by force if it must.
    if (this.#groupAlive()) {
      this.#signalGroup("SIGTERM");
      await pollUntil(() => !this.#groupAlive(), { everyMs: GROUP_POLL_MS, withinMs: this.#quick ? QUICK_GRACE_MS : SIGTERM_GRACE_MS });
      if (this.#groupAlive()) this.#signalGroup("SIGKILL");
    }
    // A survivor holding our pipes must not keep us running.
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.#finish();
  }

  /**
   * The server's stdout closed or its stdin broke. A server that exits does both, so this waits a
   * moment for the exit; one still running after that can neither answer nor hear, and is stopped.
   */
  #whenStillRunning(what: string): void {
    if (this.#closed || this.#closing || this.#deafOrMute) return;
    setTimeout(() => {
      if (this.#exit || this.#closed || this.#closing || this.#deafOrMute) return;
      this.#deafOrMute = `${what} but kept running`;
      this.#finish();
      void this.close();
    }, CLOSE_AFTER_EXIT_MS).unref();
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
    this.onerror?.(
      new DroppedLineError(
        "not-json-rpc",
        `skipped a line from the server that is not JSON-RPC (${parsed.error}): ${JSON.stringify(shown)}`,
      ),
    );
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    const exit = this.#exit;
    const reason =
      this.#deafOrMute ??
      (exit
        ? exit.signal
          ? `the server was killed by ${exit.signal}`
          : `the server exited with code ${exit.code}`
        : "the server closed its output");
    this.onclose?.(reason);
  }
}

function spawnErrorMessage(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return `command not found: ${command} (check the name and PATH)`;
  if (error.code === "EACCES") return `permission denied running ${command} (is it executable?)`;
  return `could not start ${command}: ${error.message}`;
}

/** Asked only for a --cwd: node:fs loads then, not on every one-shot call's start-up (~1.5 ms of a compiled binary's). */
function isDirectory(path: string): boolean {
  const { statSync } = process.getBuiltinModule("node:fs");
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
