// Where mcp-daemon lives, by name: the per-user directory the environment chooses and the files in
// it. Proving that directory private (ours, 0700, not a link another user planted) is
// lib/daemon/paths.ts, with node:fs; locateDaemon first tries a proof made of Bun's own stat calls,
// which a warm call can afford (loading node:fs cost it ~1.5 ms of ~10), and loads paths.ts only when
// that proof cannot be made: no such directory yet, a parent others may write to (/tmp), or not Bun.
import { type PathFacts, statWithoutNodeFs } from "../io/runtime.ts";

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

type Env = Record<string, string | undefined>;

/**
 * The per-user runtime directory: MCPKIT_DAEMON_DIR if set, else $XDG_RUNTIME_DIR/mcpkit when that
 * directory is ours (`ours` says), else ~/.mcpkit/run.
 */
export function chooseDaemonDir(env: Env, ours: (dir: string) => boolean): string {
  const runtime = env.XDG_RUNTIME_DIR;
  const given = env.MCPKIT_DAEMON_DIR;
  // Without its trailing slashes: lstat of "link/" follows the link, and a link must be seen as one.
  if (given !== undefined) return given.replace(/\/+$/, "") || given.slice(0, 1);
  return runtime && ours(runtime) ? inside(runtime, "mcpkit") : inside(env.HOME || homeDir(), ".mcpkit/run");
}

/** The daemon's files in `dir`, or why its socket cannot live there. */
export function pathsIn(dir: string): { ok: true; value: DaemonPaths } | { ok: false; error: string } {
  const socket = inside(dir, "daemon.sock");
  const bytes = new TextEncoder().encode(socket).length;
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    return {
      ok: false,
      error:
        `the daemon socket path ${socket} is ${bytes} bytes, over this system's limit of ${MAX_SOCKET_PATH_BYTES} ` +
        "(set MCPKIT_DAEMON_DIR to a shorter directory)",
    };
  }
  return {
    ok: true,
    value: {
      dir,
      socket,
      pidFile: inside(dir, "daemon.pid"),
      lockFile: inside(dir, "daemon.lock"),
      logFile: inside(dir, "daemon.log"),
      childrenFile: inside(dir, "children.json"),
    },
  };
}

/** The paths given, else the environment's, proven private; throws the environment's refusal. */
export async function locateDaemon(options: { paths?: DaemonPaths; env?: Env }): Promise<DaemonPaths> {
  if (options.paths) return options.paths;
  const env = options.env ?? process.env;
  const quick = await provenWithoutNodeFs(env);
  if (quick) return quick;
  return (await import("./paths.ts")).resolvePaths({ env });
}

/**
 * The paths locateDaemon most likely proves, named without a stat (an XDG_RUNTIME_DIR is taken to be
 * ours): a client connects to its socket while the proof is made, and writes nothing before it.
 */
export function likelyPaths(env: Env = process.env): DaemonPaths | undefined {
  if (process.platform === "win32") return undefined;
  const paths = pathsIn(chooseDaemonDir(env, () => true));
  return paths.ok ? paths.value : undefined;
}

/** The environment's paths when Bun's stat proves their directory private, else undefined (paths.ts decides, and says why not). */
export async function provenWithoutNodeFs(env: Env): Promise<DaemonPaths | undefined> {
  if (process.platform === "win32") return undefined;
  // XDG_RUNTIME_DIR decides only without MCPKIT_DAEMON_DIR; one that cannot be read is paths.ts's to judge.
  const xdg = env.MCPKIT_DAEMON_DIR === undefined ? env.XDG_RUNTIME_DIR : undefined;
  const runtime = xdg ? await statWithoutNodeFs(xdg) : undefined;
  if (xdg && !runtime) return undefined;
  const dir = chooseDaemonDir(env, () => runtime?.uid === process.getuid?.());
  const paths = pathsIn(dir);
  return paths.ok && (await provablyPrivate(dir)) ? paths.value : undefined;
}

/**
 * Whether `dir` is a directory of ours that only we may enter, and that no other user can have put
 * there: what lib/io/private-dir.ts checks with lstat, here with stats that follow links. Following
 * is as good where nobody but us (or root) may add or swap entries in the parent, and `dir/..` is that
 * parent: then nobody else could have put a link there, and `dir` leads to a directory beside it.
 * What it cannot see is a link we made ourselves whose path runs through another user's directory:
 * lstat refused such a link as the last component, and let it through higher up the path, as this does
 * everywhere (the links in our own directories are ours to trust).
 */
async function provablyPrivate(dir: string): Promise<boolean> {
  const [own, parent, above] = await Promise.all([
    statWithoutNodeFs(dir),
    statWithoutNodeFs(parentOf(dir)),
    statWithoutNodeFs(inside(dir, "..")),
  ]);
  if (!own || !parent || !above) return false;
  const uid = process.getuid?.();
  return (
    own.directory &&
    own.uid === uid &&
    (own.mode & 0o077) === 0 &&
    (parent.uid === uid || parent.uid === 0) &&
    (parent.mode & 0o022) === 0 &&
    sameFile(parent, above)
  );
}

const sameFile = (a: PathFacts, b: PathFacts) => a.dev === b.dev && a.ino === b.ino;

/** The directory a path names its entry in: "." for a bare name, "/" at the root. */
function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const slash = trimmed.lastIndexOf("/");
  return slash === -1 ? "." : slash === 0 ? "/" : trimmed.slice(0, slash);
}

/**
 * A path under a directory (a trailing slash dropped, as node:path's join drops it). Paths are POSIX
 * here (Windows is refused by paths.ts); node:path and node:os cost a warm call ~1 ms of start-up.
 */
export function inside(dir: string, name: string): string {
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
