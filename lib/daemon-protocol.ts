// What mcp-daemon and its clients agree on: where the daemon lives, and the socket protocol.
//
// The socket speaks newline-delimited JSON. A connection opens with one control frame:
//   {"type":"hello","protocol":1}                    -> {"type":"hello","protocol":1,"pid":N,"version":"x.y.z"}
//   {"type":"status","protocol":1}                   -> {"type":"status",...}
//   {"type":"stop","protocol":1}                     -> {"type":"stopping","pid":N}
//   {"type":"attach","protocol":1,"server":{...}}    -> {"type":"attached","session":"<key>","pid":N|null}
// After "attached" the connection carries raw JSON-RPC lines of that session, both ways.
// A refused frame gets {"type":"error","message":"..."} and the connection is closed.
//
// Extensions: an attach frame may ask for them, "extensions":{"<name>":<version>}, and "attached"
// names those granted, in the version the daemon speaks (at most the one asked for). A peer that
// knows none ignores the field, so old clients and old daemons go on as before. One so far:
//   "session" (1): right after "attached", before any other line, the daemon sends
//     {"jsonrpc":"2.0","method":"notifications/mcpkit/session","params":{"version":1,
//      "identity":{"era","protocolVersion","capabilities","serverInfo"?,"instructions"?}?,"tools":[...]?}}
//   identity: the session's handshake, when it is done; a client may take it instead of
//   negotiating. tools: the cached tools/list (one page), only while the server promises
//   notifications/tools/list_changed; it describes the session as it was at the attach, so a
//   client uses it only until any other line comes (a list_changed among them). Issue 13: a warm
//   call is then one round trip to the daemon plus the call itself.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ServerIdentity } from "./client/raw-client.ts";
import type { JsonObject } from "./wire/jsonrpc.ts";
import { ensurePrivateDir } from "./io/private-dir.ts";
import type { Target } from "./targets/target.ts";

export { MAX_CONTROL_FRAME_BYTES } from "./wire/limits.ts";

export const DAEMON_PROTOCOL = 1;
export const SESSION_EXTENSION = "session";
export const SESSION_EXTENSION_VERSION = 1;
export const SESSION_NOTIFICATION = "notifications/mcpkit/session";

/** The params of SESSION_NOTIFICATION: what the daemon already knows of the session. */
export interface SessionInfo {
  version: number;
  identity?: ServerIdentity;
  tools?: JsonObject[];
}

/** The session extension's version both sides speak, or 0 when one of them does not (old peer, or not asked). */
export function sessionExtension(extensions: unknown): number {
  const asked = (extensions as Record<string, unknown> | null | undefined)?.[SESSION_EXTENSION];
  return typeof extensions === "object" && typeof asked === "number" && asked >= 1 ? Math.min(asked, SESSION_EXTENSION_VERSION) : 0;
}
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

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * The per-user runtime directory: MCPKIT_DAEMON_DIR if set, else $XDG_RUNTIME_DIR/mcpkit when that
 * directory is ours, else ~/.mcpkit/run. Created 0700; one that exists with looser permissions or
 * another owner is refused, never "fixed".
 */
export function daemonPaths(env: Record<string, string | undefined> = process.env): Checked<DaemonPaths> {
  if (process.platform === "win32") return { ok: false, error: "mcp-daemon needs Unix domain sockets and does not run on Windows yet (use one-shot commands there)" };
  const runtime = env.XDG_RUNTIME_DIR;
  const dir = env.MCPKIT_DAEMON_DIR ?? (runtime && ownedByUs(runtime) ? join(runtime, "mcpkit") : join(env.HOME ?? homedir(), ".mcpkit", "run"));
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return checked;
  const paths: DaemonPaths = {
    dir,
    socket: join(dir, "daemon.sock"),
    pidFile: join(dir, "daemon.pid"),
    lockFile: join(dir, "daemon.lock"),
    logFile: join(dir, "daemon.log"),
    childrenFile: join(dir, "children.json"),
  };
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH_BYTES) {
    return { ok: false, error: `the daemon socket path ${paths.socket} is ${Buffer.byteLength(paths.socket)} bytes, over this system's limit of ${MAX_SOCKET_PATH_BYTES} (set MCPKIT_DAEMON_DIR to a shorter directory)` };
  }
  return { ok: true, value: paths };
}

function ownedByUs(path: string): boolean {
  try {
    return statSync(path).uid === process.getuid?.();
  } catch {
    return false;
  }
}

/** A session is one exact server definition: an edited config gets a new session, never a stale one. */
export function sessionKey(target: Target): string {
  const definition =
    target.kind === "stdio"
      ? { kind: "stdio", command: target.command, args: target.args, env: sortedEntries(target.env), cwd: target.cwd ?? null }
      : { kind: "http", url: target.url, headers: sortedEntries(target.headers), transport: target.transport };
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex").slice(0, 16);
}

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
