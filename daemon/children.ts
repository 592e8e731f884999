// The records of the server processes the daemon started, kept in a file beside its socket: a
// daemon killed with SIGKILL cannot end its servers, so the next one ends what the records name
// (each checked first: pids are reused).
import { readFileSync, writeFileSync } from "node:fs";
import type { ConsolaInstance } from "consola/core";
import { processAlive, processStartTime } from "../lib/io/process.ts";
import type { DaemonSession } from "./session.ts";

interface ChildRecord {
  pid: number;
  session: string;
  command: string;
  /** When the process started (clock ticks since boot, from /proc): a reused pid has another. */
  startTime?: string;
}

export class ChildRecords {
  /**
   * Each running server's start time, read from /proc once: the records are rewritten at every
   * server start, and reading every server's again each time made a burst of cold starts quadratic.
   */
  readonly #startTimes = new Map<string, { pid: number; startTime: string }>();

  constructor(
    private readonly file: string,
    private readonly log: ConsolaInstance,
  ) {}

  /** A session's server started anew: its start time is read again, even under a pid it had before. */
  forget(session: string): void {
    this.#startTimes.delete(session);
  }

  /** Records the process groups of our servers, so a later daemon can end them if we are killed. */
  write(sessions: Iterable<DaemonSession>): void {
    const records: ChildRecord[] = [];
    const running = new Set<string>();
    for (const session of sessions) {
      if (session.pid && session.target.kind === "stdio") {
        running.add(session.key);
        // Kept only for the pid it was read for: a server restarted under another pid is read again.
        const known = this.#startTimes.get(session.key);
        const startTime = known?.pid === session.pid ? known.startTime : processStartTime(session.pid);
        // Unreadable once (a race with /proc) is read again at the next rewrite.
        if (startTime) this.#startTimes.set(session.key, { pid: session.pid, startTime });
        records.push({ pid: session.pid, session: session.key, command: session.target.command, ...(startTime ? { startTime } : {}) });
      }
    }
    for (const session of this.#startTimes.keys()) if (!running.has(session)) this.#startTimes.delete(session);
    try {
      writeFileSync(this.file, JSON.stringify(records), { mode: 0o600 });
    } catch (error) {
      this.log.warn(`could not write ${this.file}: ${(error as Error).message}`);
    }
  }

  /** Ends the server process groups a killed daemon left behind (each checked against its command). */
  cleanUpAfterKilledDaemon(): void {
    let records: ChildRecord[];
    try {
      records = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      return;
    }
    for (const record of Array.isArray(records) ? records : []) {
      if (!Number.isInteger(record.pid) || record.pid <= 1 || !stillOurs(record)) continue;
      this.log.info(`ending server ${record.command} (pid ${record.pid}) left by a previous daemon`);
      try {
        process.kill(-record.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    writeFileSync(this.file, "[]", { mode: 0o600 });
  }
}

/** Whether pid still runs the command we recorded (pids are reused). Without /proc, trust the record. */
function stillOurs(record: ChildRecord): boolean {
  if (!processAlive(record.pid)) return false;
  const startTime = processStartTime(record.pid);
  if (startTime && record.startTime) return startTime === record.startTime;
  try {
    const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, "utf8");
    return cmdline.includes(record.command.split("/").pop() ?? record.command);
  } catch {
    return process.platform !== "linux";
  }
}
