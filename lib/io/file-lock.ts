// A lock that several processes contend for, as a file: written in full to a draft of our own and
// linked into place (link fails when the lock exists), so it is never seen half-written. One left
// behind is replaced: empty or unreadable (a full disk), its holder gone, its pid now another
// process's (where /proc tells a process's start time, a lock of ours always carries it), or
// older than any holder may keep it. A full or read-only disk is a clear error.
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { processAlive, processStartTime } from "./process.ts";
import { pollUntil } from "./reading.ts";

export interface LockOptions {
  /** A lock older than this is stale whoever holds it. */
  maxAgeMs: number;
  /** The variable that moves the directory elsewhere, named in errors (e.g. MCPKIT_DAEMON_DIR). */
  dirVariable: string;
}

/** Takes the lock once: true when it is ours now (a stale one is removed, for the next try). */
export function tryLock(lockFile: string, options: LockOptions): boolean {
  const content = `${process.pid} ${processStartTime(process.pid) ?? ""}\n`;
  const draft = `${lockFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(draft, content, { mode: 0o600, flag: "wx" });
  } catch (error) {
    removeQuietly(draft);
    throw new Error(describeFsError(error, dirname(lockFile), options.dirVariable));
  }
  try {
    linkSync(draft, lockFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      // A file system without hard links: an exclusive create of the lock itself.
      try {
        writeFileSync(lockFile, content, { mode: 0o600, flag: "wx" });
        return true;
      } catch (fallback) {
        if ((fallback as NodeJS.ErrnoException).code !== "EEXIST")
          throw new Error(describeFsError(fallback, lockFile, options.dirVariable));
      }
    }
  } finally {
    removeQuietly(draft);
  }
  const held = lockHolder(lockFile);
  if (lockIsStale(lockFile, held, options.maxAgeMs) && lockHolder(lockFile) === held) removeQuietly(lockFile);
  return false;
}

export function releaseLock(lockFile: string): void {
  if (lockHolder(lockFile).split(" ")[0] === String(process.pid)) removeQuietly(lockFile);
}

/** What the lock says about its holder ("pid starttime"), or "" when there is none. */
export function lockHolder(lockFile: string): string {
  try {
    return readFileSync(lockFile, "utf8").trim();
  } catch {
    return "";
  }
}

export interface WithLockOptions extends LockOptions {
  waitMs: number;
  pollMs?: number;
  /** While working, touch the lock this often, so that a long holder never looks stale. */
  heartbeatMs?: number;
  /** Aborting stops the wait (the error is the signal's reason). */
  signal?: AbortSignal;
  /** Told when the lock is found held (true) and when the wait for it ends (false); not called when it is free at once. */
  onwait?: (waiting: boolean) => void;
}

/** Runs `work` holding the lock, waiting (polling) for it up to `waitMs`. */
export async function withLock<T>(lockFile: string, options: WithLockOptions, work: () => Promise<T>): Promise<T> {
  options.signal?.throwIfAborted();
  let taken: boolean | undefined = tryLock(lockFile, options);
  if (!taken) {
    options.onwait?.(true);
    try {
      taken = await pollUntil(() => tryLock(lockFile, options), {
        everyMs: options.pollMs ?? 50,
        withinMs: options.waitMs,
        signal: options.signal,
      });
    } finally {
      options.onwait?.(false);
    }
  }
  if (!taken) throw new Error(`${lockFile} is still held by pid ${lockHolder(lockFile).split(" ")[0] || "?"}`);
  const heartbeat = options.heartbeatMs ? setInterval(() => touch(lockFile), options.heartbeatMs) : undefined;
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    releaseLock(lockFile);
  }
}

function touch(lockFile: string): void {
  try {
    const now = new Date();
    utimesSync(lockFile, now, now);
  } catch {
    // Taken from us as stale after all, or removed: the release will not remove another's lock.
  }
}

function lockIsStale(lockFile: string, content: string, maxAgeMs: number): boolean {
  const [pidText, startTime] = content.split(" ");
  const pid = Number(pidText);
  if (!/^\d+$/.test(pidText ?? "") || pid <= 0) return true;
  if (!processAlive(pid)) return true;
  const holderStarted = processStartTime(pid);
  if (holderStarted !== undefined && holderStarted !== startTime) return true;
  try {
    return Date.now() - statSync(lockFile).mtimeMs > maxAgeMs;
  } catch {
    return false;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

/** ENOSPC, EROFS and friends in words a user acts on. */
export function describeFsError(error: unknown, path: string, dirVariable: string): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case "ENOSPC":
      return `no space left on the device holding ${path} (free some space, or set ${dirVariable} elsewhere)`;
    case "EROFS":
      return `${path} is on a read-only file system (set ${dirVariable} to a writable directory)`;
    case "EACCES":
    case "EPERM":
      return `no permission to write ${path} (set ${dirVariable} to a directory of yours)`;
    case "EDQUOT":
      return `the disk quota is exhausted for ${path}`;
    default:
      return `${path}: ${(error as Error).message}`;
  }
}
