// Shared by the e2e tests: run our entry scripts as real processes, and start fixture servers.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { SERVE_REFERENCE_ENV } from "../../host/serve-reference.ts";
import { processAlive } from "../../lib/io/process.ts";
import { pollUntil } from "../../lib/io/reading.ts";

export const ROOT = join(import.meta.dir, "..", "..");
export const BUN = process.execPath;
export const REFERENCE = join(ROOT, "host/reference/main.ts");
export const FAULTY = join(ROOT, "test/fixtures/faulty-server.ts");
export const EVERYTHING = join(ROOT, "node_modules/.bin/mcp-server-everything");
/** Empty vendor keys: whatever this machine has set, mcp-host picks its keyless scripted provider. */
/** The variables that move a client's files away from HOME, emptied so a test's HOME holds them all. */
export const NO_CLIENT_HOMES = {
  XDG_CONFIG_HOME: "",
  CODEX_HOME: "",
  QWEN_HOME: "",
  COPILOT_HOME: "",
  CLAUDE_CONFIG_DIR: "",
  MCPKIT_AUTH_DIR: "",
};
/** An empty HOME and an empty git repository beside it, and the environment that puts every client's files in that HOME. */
export function homeAndRepository(prefix: string): { home: string; project: string; env: Record<string, string> } {
  const dir = tempDir(prefix);
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { home, project, env: { HOME: home, ...NO_CLIENT_HOMES } };
}

export const NO_VENDOR_KEYS = { ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", OPENAI_API_KEY: "", GEMINI_API_KEY: "" };

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is one JSON document. */
  json: any;
  /** With watchRss: the process's own peak RSS in MB. */
  peakRssMb?: number;
}

/** One of our tools, named by its entry script. */
export type ToolScript = "mcp-inspect.ts" | "mcp-proxy.ts" | "mcp-daemon.ts" | "mcp-host.ts" | "mcpkit.ts";

/**
 * The compiled tools of this checkout, when the run drives them (npm test sets MCPKIT_TEST_BINARIES to the folder
 * test/support/binary.ts prepared): the binary is what users install, and it starts without transpiling a hundred
 * modules, which was most of the suite's CPU. Unset (a `bun test` while editing), the entry scripts run under bun.
 */
export const TEST_BINARIES = process.env.MCPKIT_TEST_BINARIES || undefined;

/**
 * The stdio reference server as a command line (after `--`, or spread into a config entry): in a binaries run the
 * compiled mcpkit serving it, as `mcp-host --reference` does (it costs half the CPU of bun transpiling the server's
 * modules, and the suite starts it hundreds of times), else bun and the script. /usr/bin/env sets the one variable
 * without a shell, so the server's pid is the command's.
 */
export const REFERENCE_CMD =
  TEST_BINARIES === undefined ? [BUN, REFERENCE] : ["/usr/bin/env", `${SERVE_REFERENCE_ENV}=1`, join(TEST_BINARIES, "mcpkit")];
/** REFERENCE_CMD as one line for a shell or a `--server` string. */
export const REFERENCE_LINE = REFERENCE_CMD.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ");
/** REFERENCE_CMD as a config file's entry. */
export const REFERENCE_ENTRY = { command: REFERENCE_CMD[0]!, args: REFERENCE_CMD.slice(1) };

/** The command line that starts one of our tools: its compiled binary in a binaries run, else bun and the entry script. */
export function toolCommand(script: ToolScript): string[] {
  if (TEST_BINARIES === undefined) return [BUN, join(ROOT, script)];
  return [join(TEST_BINARIES, script === "mcpkit.ts" ? "mcpkit" : script.slice(0, -".ts".length))];
}

/** The entry script under bun, whatever the run drives: for what only the script shows (its own path, its source). */
export const scriptCommand = (script: ToolScript): string[] => [BUN, join(ROOT, script)];

/** Runs one of our tools (e.g. "mcp-inspect.ts", see toolCommand) with args; never hangs past timeoutMs. */
export async function runTool(
  script: ToolScript,
  args: string[],
  options: {
    stdin?: string | number;
    env?: Record<string, string>;
    timeoutMs?: number;
    cwd?: string;
    watchRss?: boolean;
    /** Run the entry script under bun even in a binaries run. */
    asScript?: boolean;
  } = {},
): Promise<RunResult> {
  const command = options.asScript ? scriptCommand(script) : toolCommand(script);
  const child = spawn([...command, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    // A number is a file descriptor to read from (e.g. an open /dev/zero).
    stdin:
      options.stdin === undefined ? "ignore" : typeof options.stdin === "number" ? options.stdin : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const rss = options.watchRss ? new PeakRss(child.pid) : undefined;
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? WAIT_GUARD_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json, ...(rss ? { peakRssMb: rss.stop() } : {}) };
}

export const inspect = (args: string[], options?: Parameters<typeof runTool>[2]) => runTool("mcp-inspect.ts", args, options);

export interface HttpFixture {
  url: string;
  stop(): Promise<void>;
}

/** Reads until `until` holds for what came so far, or the stream ends; returns that text. The reader stays the caller's. */
export async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (seen: string) => boolean): Promise<string> {
  const decoder = new TextDecoder();
  let seen = "";
  while (!until(seen)) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  return seen;
}

/** Starts a server that prints `listening <url>` on stderr once ready, and waits for that line. */
export async function startHttpServer(
  command: string[],
  options: { env?: Record<string, string>; pattern?: RegExp } = {},
): Promise<HttpFixture> {
  const child = spawn(command, { env: { ...process.env, ...options.env }, stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const pattern = options.pattern ?? /listening (http:\/\/\S+)/;
  // A server that never says it listens is killed, which ends the read below.
  const guard = setTimeout(() => child.kill("SIGKILL"), WAIT_GUARD_MS);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
    const match = seen.match(pattern);
    if (match) {
      clearTimeout(guard);
      // Keep draining stderr so the server never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return {
        url: match[1]!,
        async stop() {
          child.kill("SIGTERM");
          await child.exited;
        },
      };
    }
  }
  clearTimeout(guard);
  child.kill("SIGKILL");
  throw new Error(`server did not start: ${command.join(" ")}\n${seen}`);
}

export const startReferenceHttp = (extra: string[] = []) => startHttpServer([...REFERENCE_CMD, "--http", "0", ...extra]);

/** A free loopback port that nothing listens on (for "connection refused"). */
export function closedPort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/** A process spoken to in raw JSON lines over its stdin/stdout, as a client would. */
export class LinePeer {
  readonly child: ReturnType<typeof spawn>;
  readonly messages: any[] = [];
  readonly rawLines: string[] = [];
  /** Lines that are not JSON (a message cut short), as a client would drop them. */
  readonly unparsed: string[] = [];
  stderr = "";
  #waiters: { predicate: () => boolean; resolve: () => void }[] = [];

  constructor(command: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
    this.child = spawn(command, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    void this.#read(this.child.stdout as ReadableStream<Uint8Array>, (line) => {
      this.rawLines.push(line);
      try {
        this.messages.push(JSON.parse(line));
      } catch {
        this.unparsed.push(line);
      }
    });
    void this.#read(this.child.stderr as ReadableStream<Uint8Array>, (line) => {
      this.stderr += `${line}\n`;
    });
  }

  async #read(stream: ReadableStream<Uint8Array>, online: (line: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    // A line's pieces so far: only each new chunk is searched for its end, so a 40 MB line costs
    // one pass over it, not a search of everything held on every chunk.
    let pieces: string[] = [];
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      let newline: number;
      while ((newline = text.indexOf("\n", start)) !== -1) {
        pieces.push(text.slice(start, newline));
        const line = pieces.join("");
        pieces = [];
        start = newline + 1;
        if (line.trim()) online(line);
      }
      if (start < text.length) pieces.push(text.slice(start));
      this.#check();
    }
    this.#check();
  }

  #check(): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.predicate()) return true;
      waiter.resolve();
      return false;
    });
  }

  send(message: unknown): void {
    const stdin = this.child.stdin as import("bun").FileSink;
    stdin.write(typeof message === "string" ? `${message}\n` : `${JSON.stringify(message)}\n`);
    stdin.flush();
  }

  /** Writes a ping request longer than `limit` bytes, in 64 KB pieces as a pipe carries it; resolves with its length. */
  async sendLongRequest(id: string, limit: number): Promise<number> {
    const stdin = this.child.stdin as import("bun").FileSink;
    const piece = new Uint8Array(64 * 1024).fill(0x61);
    const [start, end] = [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping","params":{"x":"`, '"}}\n'];
    stdin.write(start);
    let bytes = start.length + end.length - 1;
    for (; bytes <= limit; bytes += piece.length) {
      stdin.write(piece);
      await stdin.flush();
    }
    stdin.write(end);
    await stdin.flush();
    return bytes;
  }

  /** Resolves once the predicate holds over what has arrived; rejects after timeoutMs. */
  waitFor(predicate: () => boolean, timeoutMs = WAIT_GUARD_MS, what = "the expected messages"): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`)), timeoutMs);
      this.#waiters.push({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  responseTo(id: unknown): any {
    return this.messages.find((message) => "id" in message && message.id === id && !("method" in message));
  }

  async request(id: string | number, method: string, params: unknown = {}): Promise<any> {
    this.send({ jsonrpc: "2.0", id, method, params });
    await this.waitFor(() => this.responseTo(id) !== undefined, WAIT_GUARD_MS, `the answer to ${method} #${id}`);
    return this.responseTo(id);
  }

  async close(): Promise<number> {
    (this.child.stdin as import("bun").FileSink).end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), WAIT_GUARD_MS);
    const code = await this.child.exited;
    clearTimeout(timer);
    return code;
  }
}

export const INITIALIZE = (version = "2025-11-25") => ({
  protocolVersion: version,
  capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
  clientInfo: { name: "mcpkit-test", version: "0" },
});

/** Whether a process with this pid is still running (a zombie waiting to be reaped is not). */
export const alive = processAlive;

/**
 * How long a test may wait on one event before it counts as hung. These are hang guards, not speed bounds:
 * generous enough that two runs sharing a loaded 2-core box stay green. A wait's guard is shorter than the
 * test's, so a hung wait fails with its own message (what it waited for) rather than bun's bare timeout.
 */
export const WAIT_GUARD_MS = 120_000;
/** The per-test guard: package.json's `bun test --timeout` and the tests that set their own. */
export const TEST_GUARD_MS = 240_000;
const POLL_EVERY_MS = 20;

/**
 * The one polling helper, for state no event announces (a pid gone, a file written, a screen redrawn):
 * resolves with the first value `look` gives that is neither undefined nor false. A `look` that throws
 * counts as "not yet"; its last error is in the message when the guard runs out.
 */
export async function until<T>(
  look: () => T | undefined | false | Promise<T | undefined | false>,
  what = "the condition",
  withinMs = WAIT_GUARD_MS,
): Promise<T> {
  let last = "";
  const seen = await pollUntil(
    async () => {
      try {
        return await look();
      } catch (error) {
        last = `; last: ${error instanceof Error ? error.message : String(error)}`;
        return undefined;
      }
    },
    { withinMs, everyMs: POLL_EVERY_MS },
  );
  if (seen === undefined) throw new Error(`still waiting for ${what} after ${withinMs} ms${last}`);
  return seen;
}

/** How many of a concurrent group's runs go at once: each spawns processes, and the box has two cores. */
export const RUNS_AT_ONCE = 4;

/**
 * For a describe.concurrent group whose tests each spawn processes that mostly wait (a server, a
 * grace period): a gate that lets `width` jobs run at once and queues the rest, so the group's
 * waits overlap without every process starting on the same two cores at the same moment.
 */
export function lanes(width = RUNS_AT_ONCE): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    if (running >= width) await new Promise<void>((go) => waiting.push(go));
    else running++;
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** A process's own peak RSS (VmHWM, which leaves its children out), sampled until it exits. */
export class PeakRss {
  #peakKb = 0;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(readonly pid: number) {
    this.#timer = setInterval(() => this.sample(), 20);
  }

  sample(): void {
    try {
      const match = readFileSync(`/proc/${this.pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/);
      if (match && Number(match[1]) > this.#peakKb) this.#peakKb = Number(match[1]);
    } catch {
      clearInterval(this.#timer); // gone: the last sample stands
    }
  }

  /** The peak so far, in MB. */
  get mb(): number {
    this.sample();
    return Math.round(this.#peakKb / 102.4) / 10;
  }

  stop(): number {
    const mb = this.mb;
    clearInterval(this.#timer);
    return mb;
  }
}

/** What a flooding fixture reports in $FLOOD_PROGRESS (see faulty-server.ts). */
export function floodProgress(file: string): { bytes: number; stalled: boolean } {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return { bytes: 0, stalled: false };
  }
}

/** A fresh temporary directory; removeTempDirs() (an afterAll of the test file) removes them all. */
export function tempDir(prefix = "mcpkit-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
const tempDirs: string[] = [];

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

const daemonDirs: string[] = [];

/** A fresh private daemon directory (short, for the socket path limit); stopDaemons() ends its daemon and removes it. */
export function daemonDir(): string {
  const dir = mkdtempSync("/tmp/mcpd-");
  daemonDirs.push(dir);
  return dir;
}

/** For an afterEach: stops the daemon of every directory daemonDir() made, and removes the directories. */
export async function stopDaemons(): Promise<void> {
  for (const dir of daemonDirs.splice(0)) {
    await runTool("mcp-daemon.ts", ["stop"], { env: { MCPKIT_DAEMON_DIR: dir } });
    rmSync(dir, { recursive: true, force: true });
  }
}
