// Finding mcp-daemon, or starting it exactly once however many callers race: a probe of its
// socket, a lock written whole and linked into place (a stale, empty or foreign one is replaced),
// a detached start with an allow-listed environment, and errors a user can act on.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { connect } from "node:net";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeFsError, lockHolder, releaseLock, tryLock } from "../io/file-lock.ts";
import { pollUntil } from "../io/reading.ts";
import { serverEnvironment } from "../transport/environment.ts";
import type { JsonObject } from "../wire/jsonrpc.ts";
import { LineSplitter } from "../wire/lines.ts";
import { type DaemonPaths, resolvePaths } from "./paths.ts";
import { encodeFrame, MAX_CONTROL_FRAME_BYTES } from "./protocol.ts";

/** How long a starting daemon may take to answer its first hello. */
export const DAEMON_START_TIMEOUT_MS = 10_000;
export const PROBE_TIMEOUT_MS = 1_000;
const START_POLL_MS = 20;
/** Tells a daemon started here that its stderr already is the log file (so it logs once). */
export const DETACHED_ENV = "MCPKIT_DAEMON_DETACHED";

export interface DaemonOptions {
  paths?: DaemonPaths;
  /** The command that runs `mcp-daemon` (its `run` subcommand is appended). */
  command?: string[];
  /** Flags for a daemon started on demand, e.g. ["--idle-timeout", "600000"]. */
  startFlags?: string[];
  env?: Record<string, string | undefined>;
  /** Ends the wait for a daemon (a caller that was interrupted); one started meanwhile keeps running. */
  signal?: AbortSignal;
}

/** Sends one control frame and resolves with the first reply frame (or undefined). */
export function daemonRequest(
  socketPath: string,
  frame: { type: string; [field: string]: unknown },
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<JsonObject | undefined> {
  return new Promise((resolve) => {
    let done = false;
    const socket = connect(socketPath);
    const finish = (value: JsonObject | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const splitter = new LineSplitter(
      (line) => {
        try {
          finish(JSON.parse(line));
        } catch {
          finish(undefined);
        }
      },
      { maxLineBytes: MAX_CONTROL_FRAME_BYTES, onerror: () => finish(undefined) },
    );
    socket.on("connect", () => socket.write(encodeFrame(frame)));
    socket.on("data", (chunk: Uint8Array) => splitter.push(chunk));
    socket.on("error", () => finish(undefined));
    socket.on("close", () => finish(undefined));
  });
}

/** The daemon's pid and version if one answers on the socket; liveness is the hello, not a bare connect. */
export async function probeDaemon(socketPath: string): Promise<{ pid: number; version: string } | undefined> {
  const reply = await daemonRequest(socketPath, { type: "hello" });
  return reply?.type === "hello" && typeof reply.pid === "number" ? { pid: reply.pid, version: String(reply.version) } : undefined;
}

/** How to run mcp-daemon from here: an override, the script beside ours, or the binary beside us. */
export function daemonCommand(env: Record<string, string | undefined> = process.env): string[] {
  const override = env.MCPKIT_DAEMON_COMMAND;
  if (override) {
    try {
      const parsed = JSON.parse(override);
      if (Array.isArray(parsed) && parsed.length > 0) return parsed.map(String);
    } catch {
      return override.split(/\s+/).filter(Boolean);
    }
  }
  // import.meta.dir is Bun's own; a URL works under Deno too.
  const script = fileURLToPath(new URL("../../mcp-daemon.ts", import.meta.url));
  if (existsSync(script))
    return basename(process.execPath).startsWith("deno") ? [process.execPath, "run", "-A", script] : [process.execPath, script];
  const sibling = join(dirname(process.execPath), "mcp-daemon");
  if (existsSync(sibling)) return [sibling];
  // One multi-tool binary dispatches on its first argument.
  return [process.execPath, "mcp-daemon"];
}

/**
 * Returns the socket of a live daemon, starting one if needed. Start-up is serialized with an
 * exclusive lock file: of ten callers racing, one starts the daemon and the rest wait for it. A
 * lock left behind (its holder gone, its pid reused, or empty from a full disk) is replaced.
 */
export async function ensureDaemon(options: DaemonOptions = {}): Promise<DaemonPaths> {
  const paths = resolvePaths(options);
  if (await probeDaemon(paths.socket)) return paths;
  const deadline = Date.now() + DAEMON_START_TIMEOUT_MS;
  // One caller takes the lock and starts the daemon; the rest wait for its daemon to answer.
  const up = await pollUntil(
    async () => {
      if (takeStartLock(paths.lockFile)) {
        try {
          if (!(await probeDaemon(paths.socket))) await startDaemon(paths, options, deadline);
          return true;
        } finally {
          releaseLock(paths.lockFile);
        }
      }
      return probeDaemon(paths.socket).then(Boolean);
    },
    { everyMs: START_POLL_MS, withinMs: DAEMON_START_TIMEOUT_MS, signal: options.signal },
  );
  if (up) return paths;
  const holder = lockHolder(paths.lockFile);
  const where = existsSync(paths.logFile)
    ? `see ${paths.logFile}`
    : `${paths.lockFile} is held by ${holder ? `pid ${holder.split(" ")[0]}` : "nobody we can name"}`;
  throw new Error(`mcp-daemon did not start within ${DAEMON_START_TIMEOUT_MS} ms (${where})`);
}

/**
 * The long-lived daemon gets what any server gets plus its own settings, not the caller's whole
 * environment: API keys in a shell (or in mcp-host) must not sit in a background process for hours.
 */
export function daemonEnvironment(base: Record<string, string | undefined>): Record<string, string> {
  const env = serverEnvironment({}, base);
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (name.startsWith("MCPKIT_") || DAEMON_NETWORK_ENV.has(name.toUpperCase()))) env[name] = value;
  }
  return env;
}

/** What stateful HTTP sessions (which run inside the daemon) need to reach their servers. */
const DAEMON_NETWORK_ENV = new Set([
  "XDG_RUNTIME_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
]);

async function startDaemon(paths: DaemonPaths, options: DaemonOptions, deadline: number): Promise<void> {
  const [command, ...args] = options.command ?? daemonCommand(options.env);
  // Its stderr goes to the log, so a daemon that fails at once leaves its reason where we point.
  let log: number;
  try {
    log = openSync(paths.logFile, "a", 0o600);
  } catch (error) {
    throw new Error(`cannot start mcp-daemon: ${describeFsError(error, paths.logFile, DIR_VARIABLE)}`);
  }
  const child = spawn(command!, [...args, "run", ...(options.startFlags ?? [])], {
    detached: true,
    stdio: ["ignore", "ignore", log],
    // Not the first caller's directory: each session carries its own cwd.
    cwd: "/",
    env: { ...daemonEnvironment(process.env), ...options.env, MCPKIT_DAEMON_DIR: paths.dir, [DETACHED_ENV]: "1" },
  });
  closeSync(log);
  let failure: Error | undefined;
  child.once("error", (error) => (failure = error));
  child.unref();
  const answered = await pollUntil(
    async () => {
      if (failure) throw new Error(`could not start mcp-daemon (${command}): ${failure.message}`);
      if (await probeDaemon(paths.socket)) return true;
      if (child.exitCode !== null) throw new Error(`mcp-daemon exited at once with code ${child.exitCode} (see ${paths.logFile})`);
      return undefined;
    },
    { everyMs: START_POLL_MS, withinMs: Math.max(0, deadline - Date.now()), signal: options.signal },
  );
  if (!answered) throw new Error(`mcp-daemon did not answer within ${DAEMON_START_TIMEOUT_MS} ms (see ${paths.logFile})`);
}

/** The variable that moves the daemon's directory, named in errors about it. */
const DIR_VARIABLE = "MCPKIT_DAEMON_DIR";

/** The start lock: one caller starts the daemon; a lock older than a start may take is stale. */
function takeStartLock(lockFile: string): boolean {
  try {
    return tryLock(lockFile, { maxAgeMs: DAEMON_START_TIMEOUT_MS, dirVariable: DIR_VARIABLE });
  } catch (error) {
    throw new Error(`cannot start mcp-daemon: ${(error as Error).message}`);
  }
}
