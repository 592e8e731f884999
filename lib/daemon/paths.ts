// Where mcp-daemon lives: a private per-user directory with its socket, pid file, start lock,
// log and the records of the servers it started.
import { statSync } from "node:fs";
import { ensurePrivateDir } from "../io/private-dir.ts";
import type { Result } from "../wire/result.ts";

/** sun_path holds 108 bytes on Linux, 104 on macOS, including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = process.platform === "darwin" ? 103 : 107;

export interface DaemonPaths {
  dir: string;
  socket: string;
  pidFile: string;
  lockFile: string;
  logFile: string;
  /** Process groups of the servers the daemon started, for cleaning up after a daemon killed with SIGKILL. */
  childrenFile: string;
}

/**
 * The per-user runtime directory: MCPKIT_DAEMON_DIR if set, else $XDG_RUNTIME_DIR/mcpkit when that
 * directory is ours, else ~/.mcpkit/run. Created 0700; one that exists with looser permissions or
 * another owner is refused, never "fixed".
 */
export function daemonPaths(env: Record<string, string | undefined> = process.env): Result<DaemonPaths> {
  if (process.platform === "win32")
    return { ok: false, error: "mcp-daemon needs Unix domain sockets and does not run on Windows yet (use one-shot commands there)" };
  const runtime = env.XDG_RUNTIME_DIR;
  const dir =
    env.MCPKIT_DAEMON_DIR ?? (runtime && ownedByUs(runtime) ? inside(runtime, "mcpkit") : inside(env.HOME || homeDir(), ".mcpkit/run"));
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return checked;
  const paths: DaemonPaths = {
    dir,
    socket: inside(dir, "daemon.sock"),
    pidFile: inside(dir, "daemon.pid"),
    lockFile: inside(dir, "daemon.lock"),
    logFile: inside(dir, "daemon.log"),
    childrenFile: inside(dir, "children.json"),
  };
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH_BYTES) {
    return {
      ok: false,
      error:
        `the daemon socket path ${paths.socket} is ${Buffer.byteLength(paths.socket)} bytes, over this system's limit of ` +
        `${MAX_SOCKET_PATH_BYTES} (set MCPKIT_DAEMON_DIR to a shorter directory)`,
    };
  }
  return { ok: true, value: paths };
}

/** The paths given, else the environment's; throws the environment's refusal. */
export function resolvePaths(options: { paths?: DaemonPaths; env?: Record<string, string | undefined> }): DaemonPaths {
  if (options.paths) return options.paths;
  const paths = daemonPaths(options.env ?? process.env);
  if (!paths.ok) throw new Error(paths.error);
  return paths.value;
}

/**
 * A path under a directory (a trailing slash dropped, as node:path's join drops it). Paths are POSIX
 * here (Windows is refused above); node:path and node:os cost a warm call ~1 ms of start-up.
 */
function inside(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "")}/${name}`;
}

/**
 * The home directory when $HOME is unset or empty (a service manager's bare environment): node:os
 * loads only then. Node's homedir() gives an empty HOME back as it is; the password database does not.
 */
function homeDir(): string {
  const os = process.getBuiltinModule("node:os");
  return os.homedir() || os.userInfo().homedir;
}

function ownedByUs(path: string): boolean {
  try {
    return statSync(path).uid === process.getuid?.();
  } catch {
    return false;
  }
}
