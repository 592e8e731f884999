// What /proc (or kill 0) tells about another process: whether it runs, and when it started (a
// reused pid has another start time). Lock files and the daemon's records of its children use it.
import { readFileSync } from "node:fs";

/** Whether pid runs (EPERM: it does, as someone else); a zombie awaiting its reaper does not. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch {
    return true; // No /proc (macOS): kill(0) is all we know.
  }
}

/** When a process started (field 22 of /proc/<pid>/stat): a reused pid has another. Undefined without /proc. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
