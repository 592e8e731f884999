// What mcp-daemon's commands do: run it in the foreground, start it in the background, stop or
// restart it, show its status and the end of its log. The daemon itself is daemon/server.ts.

import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { unknownFlagsProblem } from "../lib/cli/argv.ts";
import { EXIT } from "../lib/cli/exit-codes.ts";
import { fail } from "../lib/cli/fail.ts";
import { checkFlagValues, type FlagDef } from "../lib/cli/values.ts";
import { type DaemonPaths, daemonPaths } from "../lib/daemon/paths.ts";
import { DETACHED_ENV, daemonRequest, ensureDaemon, probeDaemon } from "../lib/daemon/start.ts";
import { createLogger } from "../lib/io/log.ts";
import type { LogLevelName } from "../lib/io/log-levels.ts";
import { processAlive } from "../lib/io/process.ts";
import { pollUntil } from "../lib/io/reading.ts";
import { onExitSignals } from "../lib/io/signals.ts";
import { stripControl } from "../lib/io/text.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_LOG_LINES, LOGS_ARGS, RUN_ARGS } from "./flags.ts";

const STOP_WAIT_MS = 10_000;
/** How often `stop` looks whether the daemon is gone (no event says so: it is not our child). */
const STOP_POLL_MS = 20;
/** `logs` reads at most this much of the end of the log file. */
const LOG_TAIL_BYTES = 1024 * 1024;
/** Recent notifications shown per session by plain `status` (--json has the whole ring tail). */
const STATUS_NOTIFICATIONS = 3;

/** Resolves the daemon's paths or reports why it cannot have any. */
function pathsOrFail(): DaemonPaths | undefined {
  const paths = daemonPaths();
  if (paths.ok) return paths.value;
  fail(paths.error);
  return undefined;
}

/** The command's flags checked (unknown ones, and every value by its kind); undefined after a usage error. */
function checkedFlags(args: Record<string, unknown>, defs: Record<string, FlagDef>): Record<string, number | string> | undefined {
  const problem = unknownFlagsProblem(args, defs);
  if (problem) return void fail(problem);
  const values = checkFlagValues(args, defs);
  if (!values.ok) return void fail(values.error);
  return values.value;
}

/** `run`: the daemon in the foreground, until it stops (idle, asked to, or a signal). */
export async function runForeground(args: Record<string, unknown>, version: string): Promise<void> {
  const values = checkedFlags(args, RUN_ARGS);
  if (!values) return;
  const paths = pathsOrFail();
  if (!paths) return;
  const idleTimeoutMs = (values["idle-timeout"] as number | undefined) ?? DEFAULT_IDLE_TIMEOUT_MS;
  const exitWhenIdleMs = (values["exit-after"] as number | undefined) ?? idleTimeoutMs;
  const level = (values["log-level"] as LogLevelName | undefined) ?? "info";
  // Started in the background, our stderr is the log file already: write each line there once.
  const detached = process.env[DETACHED_ENV] === "1";
  const files = [paths.logFile, ...(typeof args["log-file"] === "string" ? [args["log-file"]] : [])];
  const log = createLogger({ level, file: files, tag: "mcp-daemon", ...(detached ? { stream: { write: () => true } } : {}) });
  // A bug in one connection's handling must not end every session: log it and keep serving.
  process.on("unhandledRejection", (reason) => log.error(`unexpected: ${reason instanceof Error ? reason.message : String(reason)}`));
  const { Daemon } = await import("./server.ts");
  const daemon = new Daemon({ paths, log, version, idleTimeoutMs, exitWhenIdleMs });
  // Handlers first: a signal that comes while the socket is being bound still ends us with 128+N.
  let exitCode = 0;
  onExitSignals((signal, code) => {
    exitCode = code;
    void daemon.stop(signal, { quick: true });
  });
  try {
    await daemon.listen();
  } catch (error) {
    fail((error as Error).message);
    process.exit(exitCode || EXIT.connection);
  }
  await daemon.stopped.promise;
  process.exit(exitCode);
}

/** Starts the daemon in the background unless one runs; prints where it is. */
export async function startInBackground(args: Record<string, unknown>): Promise<void> {
  if (!checkedFlags(args, RUN_ARGS)) return;
  const paths = pathsOrFail();
  if (!paths) return;
  const flags = Object.entries(args)
    .filter(([key, value]) => key in RUN_ARGS && typeof value === "string")
    .flatMap(([key, value]) => [`--${key}`, String(value)]);
  try {
    await ensureDaemon({ paths, startFlags: flags });
  } catch (error) {
    fail((error as Error).message, EXIT.connection);
    return;
  }
  const alive = await probeDaemon(paths.socket);
  process.stdout.write(`mcp-daemon is running (pid ${alive?.pid}, socket ${paths.socket})\n`);
}

async function stopDaemon(paths: DaemonPaths): Promise<boolean> {
  const alive = await probeDaemon(paths.socket);
  if (!alive) return false;
  await daemonRequest(paths.socket, { type: "stop" });
  if (await pollUntil(() => !processAlive(alive.pid), { everyMs: STOP_POLL_MS, withinMs: STOP_WAIT_MS })) return true;
  throw new Error(`mcp-daemon (pid ${alive.pid}) did not stop within ${STOP_WAIT_MS} ms`);
}

/** `stop`: the daemon and every server it keeps. */
export async function stop(): Promise<void> {
  const paths = pathsOrFail();
  if (!paths) return;
  try {
    process.stdout.write((await stopDaemon(paths)) ? "mcp-daemon stopped\n" : "mcp-daemon is not running\n");
  } catch (error) {
    fail((error as Error).message, EXIT.connection);
  }
}

/** `restart`: stop, then start a fresh one with these flags. */
export async function restart(args: Record<string, unknown>): Promise<void> {
  // Refuse bad flags before stopping anything.
  if (!checkedFlags(args, RUN_ARGS)) return;
  const paths = pathsOrFail();
  if (!paths) return;
  try {
    await stopDaemon(paths);
  } catch (error) {
    fail((error as Error).message, EXIT.connection);
    return;
  }
  await startInBackground(args);
}

/** `status`: the daemon and its sessions (exit 9 when none runs). */
export async function status(args: Record<string, unknown>): Promise<void> {
  const paths = pathsOrFail();
  if (!paths) return;
  const reply = await daemonRequest(paths.socket, { type: "status" });
  if (reply?.type !== "status") {
    if (args.json) process.stdout.write(`${JSON.stringify({ running: false, socket: paths.socket })}\n`);
    else process.stdout.write(`mcp-daemon is not running (socket ${paths.socket})\n`);
    process.exitCode = EXIT.nothingThere;
    return;
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ running: true, ...reply })}\n`);
    return;
  }
  const sessions = reply.sessions as Record<string, unknown>[];
  const lines = [
    `mcp-daemon ${reply.version} (pid ${reply.pid}), up ${seconds(reply.uptimeMs)}, ${sessions.length} session(s), socket ${reply.socket}`,
  ];
  for (const session of sessions) {
    lines.push(
      `  ${session.session}  ${session.state}  pid ${session.pid ?? "-"}  up ${seconds(session.uptimeMs)}  ${session.calls} calls  ` +
        `idle ${seconds(session.idleMs)}  ${session.clients} attached  ${session.server}`,
    );
    for (const note of ((session.notifications as { at: string; method: string; params: string }[] | undefined) ?? []).slice(
      -STATUS_NOTIFICATIONS,
    )) {
      lines.push(`      ${note.at}  ${note.method}  ${stripControl(note.params)}`);
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** `logs`: the end of the daemon's log file, escape sequences stripped. */
export function logs(args: Record<string, unknown>): void {
  const paths = pathsOrFail();
  if (!paths) return;
  const values = checkedFlags(args, LOGS_ARGS);
  if (!values) return;
  const count = (values.lines as number | undefined) ?? DEFAULT_LOG_LINES;
  if (!existsSync(paths.logFile)) {
    process.stdout.write(`no log yet (${paths.logFile})\n`);
    return;
  }
  // Server stderr lands in the log as it was written: escape sequences are stripped on the way out.
  const text = tailOf(paths.logFile, LOG_TAIL_BYTES).trimEnd().split("\n").slice(-count).map(stripControl).join("\n");
  process.stdout.write(`${text}\n`);
}

/** The last `bytes` of a file (a log can be large; only its end is shown). */
function tailOf(path: string, bytes: number): string {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function seconds(ms: unknown): string {
  return `${Math.round(Number(ms) / 1000)}s`;
}
