// Finding mcp-daemon, or starting it exactly once however many callers race: a probe of its
// socket, a lock written whole and linked into place (a stale, empty or foreign one is replaced),
// a detached start with an allow-listed environment, and errors a user can act on.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DAEMON_PROTOCOL, daemonPaths, MAX_CONTROL_FRAME_BYTES, processAlive, processStartTime, type DaemonPaths } from "./daemon-protocol.ts";
import { serverEnvironment } from "./environment.ts";
import type { JsonObject } from "./jsonrpc.ts";
import { LineSplitter } from "./lines.ts";

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
}

/** Sends one control frame and resolves with the first reply frame (or undefined). */
export function daemonRequest(socketPath: string, frame: JsonObject, timeoutMs = PROBE_TIMEOUT_MS): Promise<JsonObject | undefined> {
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
    socket.on("connect", () => socket.write(`${JSON.stringify({ ...frame, protocol: DAEMON_PROTOCOL })}\n`));
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
  const script = fileURLToPath(new URL("../mcp-daemon.ts", import.meta.url));
  if (existsSync(script)) return basename(process.execPath).startsWith("deno") ? [process.execPath, "run", "-A", script] : [process.execPath, script];
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
  while (Date.now() < deadline) {
    if (takeLock(paths.lockFile)) {
      try {
        if (!(await probeDaemon(paths.socket))) await startDaemon(paths, options, deadline);
        return paths;
      } finally {
        releaseLock(paths.lockFile);
      }
    }
    // Someone else holds the lock: wait for their daemon.
    await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
    if (await probeDaemon(paths.socket)) return paths;
  }
  const holder = readFileSafe(paths.lockFile);
  const where = existsSync(paths.logFile) ? `see ${paths.logFile}` : `${paths.lockFile} is held by ${holder ? `pid ${holder.split(" ")[0]}` : "nobody we can name"}`;
  throw new Error(`mcp-daemon did not start within ${DAEMON_START_TIMEOUT_MS} ms (${where})`);
}

export function resolvePaths(options: DaemonOptions): DaemonPaths {
  if (options.paths) return options.paths;
  const paths = daemonPaths(options.env ?? process.env);
  if (!paths.ok) throw new Error(paths.error);
  return paths.value;
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
const DAEMON_NETWORK_ENV = new Set(["XDG_RUNTIME_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"]);

async function startDaemon(paths: DaemonPaths, options: DaemonOptions, deadline: number): Promise<void> {
  const [command, ...args] = options.command ?? daemonCommand(options.env);
  // Its stderr goes to the log, so a daemon that fails at once leaves its reason where we point.
  let log: number;
  try {
    log = openSync(paths.logFile, "a", 0o600);
  } catch (error) {
    throw new Error(`cannot start mcp-daemon: ${describeFsError(error, paths.logFile)}`);
  }
  const child = spawn(command!, [...args, "run", ...(options.startFlags ?? [])], {
    detached: true,
    stdio: ["ignore", "ignore", log],
    // Not the first caller's directory: each session carries its own cwd.
    cwd: "/",
    env: { ...daemonEnvironment(process.env), ...options.env, MCPKIT_DAEMON_DIR: paths.dir, [DETACHED_ENV]: "1" },
  });
  closeSync(log);
  const failed = new Promise<Error>((resolve) => child.once("error", resolve));
  child.unref();
  while (Date.now() < deadline) {
    const error = await Promise.race([failed, new Promise<undefined>((resolve) => setTimeout(resolve, START_POLL_MS))]);
    if (error) throw new Error(`could not start mcp-daemon (${command}): ${error.message}`);
    if (await probeDaemon(paths.socket)) return;
    if (child.exitCode !== null) throw new Error(`mcp-daemon exited at once with code ${child.exitCode} (see ${paths.logFile})`);
  }
  throw new Error(`mcp-daemon did not answer within ${DAEMON_START_TIMEOUT_MS} ms (see ${paths.logFile})`);
}

/** A lock older than this is stale whoever holds it: a start gives up by then. */
const LOCK_MAX_AGE_MS = DAEMON_START_TIMEOUT_MS;

/**
 * Exactly one caller wins: the lock is written in full to a file of our own, then linked into
 * place (link fails if the lock exists), so a lock is never seen half-written. A full or
 * read-only disk is a clear error, and nothing is left behind to block the next call.
 */
function takeLock(lockFile: string): boolean {
  const content = `${process.pid} ${processStartTime(process.pid) ?? ""}\n`;
  const draft = `${lockFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(draft, content, { mode: 0o600, flag: "wx" });
  } catch (error) {
    removeQuietly(draft);
    throw new Error(`cannot start mcp-daemon: ${describeFsError(error, dirname(lockFile))}`);
  }
  try {
    linkSync(draft, lockFile);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST") {
      // A file system without hard links: an exclusive create of the lock itself.
      try {
        writeFileSync(lockFile, content, { mode: 0o600, flag: "wx" });
        return true;
      } catch (fallback) {
        if ((fallback as NodeJS.ErrnoException).code !== "EEXIST") throw new Error(`cannot start mcp-daemon: ${describeFsError(fallback, lockFile)}`);
      }
    }
  } finally {
    removeQuietly(draft);
  }
  const held = readFileSafe(lockFile);
  if (lockIsStale(lockFile, held) && readFileSafe(lockFile) === held) removeQuietly(lockFile);
  return false;
}

/**
 * Empty or unreadable (a full disk), its holder gone, its pid now another process's (where /proc
 * tells a process's start time, a lock of ours always carries it), or simply too old.
 */
function lockIsStale(lockFile: string, content: string): boolean {
  const [pidText, startTime] = content.split(" ");
  const pid = Number(pidText);
  if (!/^\d+$/.test(pidText ?? "") || pid <= 0) return true;
  if (!processAlive(pid)) return true;
  const holderStarted = processStartTime(pid);
  if (holderStarted !== undefined && holderStarted !== startTime) return true;
  try {
    return Date.now() - statSync(lockFile).mtimeMs > LOCK_MAX_AGE_MS;
  } catch {
    return false;
  }
}

function releaseLock(lockFile: string): void {
  if (readFileSafe(lockFile).split(" ")[0] === String(process.pid)) removeQuietly(lockFile);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

/** ENOSPC, EROFS and friends in words a user acts on. */
function describeFsError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOSPC":
      return `no space left on the device holding ${path} (free some space, or set MCPKIT_DAEMON_DIR elsewhere)`;
    case "EROFS":
      return `${path} is on a read-only file system (set MCPKIT_DAEMON_DIR to a writable directory)`;
    case "EACCES":
    case "EPERM":
      return `no permission to write ${path} (set MCPKIT_DAEMON_DIR to a directory of yours)`;
    case "EDQUOT":
      return `the disk quota is exhausted for ${path}`;
    default:
      return `${path}: ${(error as Error).message}`;
  }
}
