// Where mcp-daemon lives, checked: the directory lib/daemon/location.ts names, created 0700 if
// missing; one that exists with looser permissions, another owner, or as a link is refused, never
// "fixed". The daemon itself and anyone starting it come here; a client attaching to a daemon that
// runs goes through location.ts's locateDaemon, which comes here only when it must.
import { statSync } from "node:fs";
import { ensurePrivateDir } from "../io/private-dir.ts";
import type { Result } from "../wire/result.ts";
import { chooseDaemonDir, type DaemonPaths, pathsIn } from "./location.ts";

export { type DaemonPaths, MAX_SOCKET_PATH_BYTES } from "./location.ts";

/**
 * The per-user runtime directory: MCPKIT_DAEMON_DIR if set, else $XDG_RUNTIME_DIR/mcpkit when that
 * directory is ours, else ~/.mcpkit/run. Created 0700; one that exists with looser permissions or
 * another owner is refused, never "fixed".
 */
export function daemonPaths(env: Record<string, string | undefined> = process.env): Result<DaemonPaths> {
  if (process.platform === "win32")
    return { ok: false, error: "mcp-daemon needs Unix domain sockets and does not run on Windows yet (use one-shot commands there)" };
  const dir = chooseDaemonDir(env, ownedByUs);
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return checked;
  return pathsIn(dir);
}

/** The paths given, else the environment's; throws the environment's refusal. */
export function resolvePaths(options: { paths?: DaemonPaths; env?: Record<string, string | undefined> }): DaemonPaths {
  if (options.paths) return options.paths;
  const paths = daemonPaths(options.env ?? process.env);
  if (!paths.ok) throw new Error(paths.error);
  return paths.value;
}

function ownedByUs(path: string): boolean {
  try {
    return statSync(path).uid === process.getuid?.();
  } catch {
    return false;
  }
}
