#!/usr/bin/env bun
// mcp-daemon: keeps MCP sessions alive between command-line calls. It starts on demand (the first
// `mcp-inspect --stateful` call starts it), listens on a private Unix socket, keeps one server
// process per server definition, and ends sessions (and itself) when they sit idle.
import { defineCommand, runMain, type ArgsDef } from "citty";
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { prepareArgv, unknownCommandProblem, unknownFlagsProblem, valueFlags } from "./lib/cli/argv.ts";
import { LOG_ARGS } from "./lib/cli/args.ts";
import { showHelp, withExamples } from "./lib/cli/help.ts";
import { DETACHED_ENV, daemonRequest, ensureDaemon, probeDaemon } from "./lib/daemon/start.ts";
import { daemonPaths, type DaemonPaths } from "./lib/daemon/paths.ts";
import { processAlive } from "./lib/io/process.ts";
import { createLogger, isLogLevelName } from "./lib/io/log.ts";
import { stripControl } from "./lib/io/text.ts";
import { EXIT } from "./lib/cli/exit-codes.ts";
import { onExitSignals } from "./lib/io/signals.ts";
import pkg from "./package.json" with { type: "json" };

const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;
const STOP_WAIT_MS = 10_000;
const DEFAULT_LOG_LINES = 100;
/** `logs` reads at most this much of the end of the log file. */
const LOG_TAIL_BYTES = 1024 * 1024;
/** Recent notifications shown per session by plain `status` (--json has the whole ring tail). */
const STATUS_NOTIFICATIONS = 3;

const RUN_ARGS = {
  "idle-timeout": { type: "string", description: `close a session nobody used for this long (default ${DEFAULT_IDLE_TIMEOUT_MS})`, valueHint: "ms" },
  "exit-after": { type: "string", description: "exit when there have been no sessions for this long (default: the idle timeout)", valueHint: "ms" },
  "log-level": { ...LOG_ARGS["log-level"], description: `${LOG_ARGS["log-level"].description} (default info)` },
  "log-file": { ...LOG_ARGS["log-file"], description: "also append every log line to this file (they always go to daemon.log too)" },
} as const satisfies ArgsDef;

/** Resolves the daemon's paths or reports why it cannot have any. */
function pathsOrFail(): DaemonPaths | undefined {
  const paths = daemonPaths();
  if (paths.ok) return paths.value;
  process.stderr.write(`error: ${paths.error}\n`);
  process.exitCode = EXIT.usage;
  return undefined;
}

function refuseUnknown(args: Record<string, unknown>, defs: ArgsDef): boolean {
  const problem = unknownFlagsProblem(args, defs);
  if (!problem) return false;
  process.stderr.write(`error: ${problem}\n`);
  process.exitCode = EXIT.usage;
  return true;
}

function milliseconds(value: unknown, flag: string, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value === "string" && /^\d+$/.test(value) && Number(value) > 0) return Number(value);
  process.stderr.write(`error: --${flag} takes a positive number of milliseconds, not ${JSON.stringify(value)}\n`);
  process.exitCode = EXIT.usage;
  return undefined;
}

const foreground = defineCommand({
  meta: { name: "run", description: "Run the daemon in the foreground (what `start` runs in the background); logs go to stderr too." },
  args: RUN_ARGS,
  async run({ args }) {
    if (refuseUnknown(args, RUN_ARGS)) return;
    const paths = pathsOrFail();
    if (!paths) return;
    const idleTimeoutMs = milliseconds(args["idle-timeout"], "idle-timeout", DEFAULT_IDLE_TIMEOUT_MS);
    const exitWhenIdleMs = milliseconds(args["exit-after"], "exit-after", idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    const level = String(args["log-level"] ?? "info");
    if (idleTimeoutMs === undefined || exitWhenIdleMs === undefined) return;
    if (!isLogLevelName(level)) {
      process.stderr.write(`error: unknown log level ${JSON.stringify(level)}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    // Started in the background, our stderr is the log file already: write each line there once.
    const detached = process.env[DETACHED_ENV] === "1";
    const files = [paths.logFile, ...(typeof args["log-file"] === "string" ? [args["log-file"]] : [])];
    const log = createLogger({ level, file: files, tag: "mcp-daemon", ...(detached ? { stream: { write: () => true } } : {}) });
    // A bug in one connection's handling must not end every session: log it and keep serving.
    process.on("unhandledRejection", (reason) => log.error(`unexpected: ${reason instanceof Error ? reason.message : String(reason)}`));
    const { Daemon } = await import("./daemon/server.ts");
    const daemon = new Daemon({ paths, log, version: pkg.version, idleTimeoutMs, exitWhenIdleMs });
    // Handlers first: a signal that comes while the socket is being bound still ends us with 128+N.
    let exitCode = 0;
    onExitSignals((signal, code) => {
      exitCode = code;
      void daemon.stop(signal, { quick: true });
    });
    try {
      await daemon.listen();
    } catch (error) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exit(exitCode || EXIT.connection);
    }
    await daemon.stopped.promise;
    process.exit(exitCode);
  },
});

/** Starts the daemon in the background unless one runs; prints where it is. */
async function startInBackground(args: Record<string, unknown>): Promise<void> {
  if (refuseUnknown(args, RUN_ARGS)) return;
  const paths = pathsOrFail();
  if (!paths) return;
  const flags = Object.entries(args)
    .filter(([key, value]) => key in RUN_ARGS && typeof value === "string")
    .flatMap(([key, value]) => [`--${key}`, String(value)]);
  try {
    await ensureDaemon({ paths, startFlags: flags });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = EXIT.connection;
    return;
  }
  const alive = await probeDaemon(paths.socket);
  process.stdout.write(`mcp-daemon is running (pid ${alive?.pid}, socket ${paths.socket})\n`);
}

const start = defineCommand({
  meta: { name: "start", description: "Start the daemon in the background (a no-op when it already runs)." },
  args: RUN_ARGS,
  run: ({ args }) => startInBackground(args),
});

async function stopDaemon(paths: DaemonPaths): Promise<boolean> {
  const alive = await probeDaemon(paths.socket);
  if (!alive) return false;
  await daemonRequest(paths.socket, { type: "stop" });
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline) {
    if (!processAlive(alive.pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`mcp-daemon (pid ${alive.pid}) did not stop within ${STOP_WAIT_MS} ms`);
}

const stop = defineCommand({
  meta: { name: "stop", description: "Stop the daemon and every server it keeps." },
  async run() {
    const paths = pathsOrFail();
    if (!paths) return;
    try {
      process.stdout.write((await stopDaemon(paths)) ? "mcp-daemon stopped\n" : "mcp-daemon is not running\n");
    } catch (error) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exitCode = EXIT.connection;
    }
  },
});

const restart = defineCommand({
  meta: { name: "restart", description: "Stop the daemon (and its servers), then start a fresh one." },
  args: RUN_ARGS,
  async run({ args }) {
    // Refuse bad flags before stopping anything.
    if (refuseUnknown(args, RUN_ARGS)) return;
    const paths = pathsOrFail();
    if (!paths) return;
    try {
      await stopDaemon(paths);
    } catch (error) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exitCode = EXIT.connection;
      return;
    }
    await startInBackground(args);
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Show the daemon and its sessions: server, pid, uptime, calls, last use, state, recent notifications." },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const paths = pathsOrFail();
    if (!paths) return;
    const reply = await daemonRequest(paths.socket, { type: "status" });
    if (!reply || reply.type !== "status") {
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
    const lines = [`mcp-daemon ${reply.version} (pid ${reply.pid}), up ${seconds(reply.uptimeMs)}, ${sessions.length} session(s), socket ${reply.socket}`];
    for (const session of sessions) {
      lines.push(`  ${session.session}  ${session.state}  pid ${session.pid ?? "-"}  up ${seconds(session.uptimeMs)}  ${session.calls} calls  idle ${seconds(session.idleMs)}  ${session.clients} attached  ${session.server}`);
      for (const note of ((session.notifications as { at: string; method: string; params: string }[] | undefined) ?? []).slice(-STATUS_NOTIFICATIONS)) {
        lines.push(`      ${note.at}  ${note.method}  ${stripControl(note.params)}`);
      }
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  },
});

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

const logs = defineCommand({
  meta: { name: "logs", description: "Print the end of the daemon's log file." },
  args: { lines: { type: "string", description: `how many lines (default ${DEFAULT_LOG_LINES})`, valueHint: "n" } },
  run({ args }) {
    const paths = pathsOrFail();
    if (!paths) return;
    const count = milliseconds(args.lines, "lines", DEFAULT_LOG_LINES);
    if (count === undefined) return;
    if (!existsSync(paths.logFile)) {
      process.stdout.write(`no log yet (${paths.logFile})\n`);
      return;
    }
    // Server stderr lands in the log as it was written: escape sequences are stripped on the way out.
    const text = tailOf(paths.logFile, LOG_TAIL_BYTES).trimEnd().split("\n").slice(-count).map(stripControl).join("\n");
    process.stdout.write(`${text}\n`);
  },
});

const SUBCOMMANDS = { start, stop, status, restart, logs, run: foreground };

export const main = defineCommand({
  meta: {
    name: "mcp-daemon",
    version: pkg.version,
    description:
      "Keeps stateful MCP sessions alive across command-line calls, on a private Unix socket. It starts by itself on the first `mcp-inspect --stateful` call; you rarely need these commands. `status` exits 9 when no daemon runs.",
  },
  subCommands: SUBCOMMANDS,
});
withExamples(main, [
  "mcp-inspect --stateful call-tool begin_session -- node server.js   # starts it",
  "mcp-daemon status",
  "mcp-daemon logs --lines 50",
  "mcp-daemon stop",
  "mcp-daemon run --idle-timeout 60000 --log-level debug              # in the foreground, for debugging",
]);

/** Runs mcp-daemon with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  const commands = Object.keys(SUBCOMMANDS);
  const defs = [RUN_ARGS, status.args ?? {}, logs.args ?? {}] as ArgsDef[];
  const { rawArgs } = prepareArgv(argv, { commands, defs });
  const badCommand = unknownCommandProblem(rawArgs, commands, "mcp-daemon", valueFlags(defs));
  if (badCommand) {
    process.stderr.write(`error: ${badCommand}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  await runMain(main, { rawArgs, showUsage: showHelp });
}

if (import.meta.main) await run(process.argv.slice(2));
