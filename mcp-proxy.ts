#!/usr/bin/env bun
// mcp-proxy: sits between an MCP client and your server, forwards every message untouched, and
// restarts the server (on the restart_server tool, a watched file, or a crash) without the client
// ever noticing more than a list_changed notification. stdout carries protocol bytes only.
import { defineCommand, runMain } from "citty";
import { splitAtDoubleDash, splitServerCommand, takeRepeatable, unknownFlagsProblem, type Invocation } from "./lib/cli/argv.ts";
import { AUTH_ARGS, authFlags, LOG_ARGS, REPEATABLE_TARGET_FLAGS, TARGET_ARGS } from "./lib/cli/args.ts";
import { EXIT } from "./lib/cli/exit-codes.ts";
import { showHelp, withExamples } from "./lib/cli/help.ts";
import { runConfigCommand } from "./lib/cli/config-command.ts";
import type { ArgsDef } from "citty";
import { readChunks } from "./lib/io/reading.ts";
import { DRAIN_TIMEOUT_MS } from "./lib/wire/limits.ts";
import { LineWriter } from "./lib/wire/line-writer.ts";
import { ByteLineSplitter, MAX_LINE_BYTES } from "./lib/wire/lines.ts";
import { createLogger, isLogLevelName, ownStderr, type LogLevelName } from "./lib/io/log.ts";
import { openChannel, type ChannelAuth } from "./lib/open.ts";
import { printingAuthUi } from "./lib/terminal/auth-ui.ts";
import { onExitSignals } from "./lib/io/signals.ts";
import { describeTarget, resolveTargetDiscovering, type Target } from "./lib/targets/target.ts";
import { McpProxy } from "./proxy/core.ts";
import { Builder, startWatching } from "./proxy/watch.ts";
import pkg from "./package.json" with { type: "json" };

/** A change, and at most one more round for what changed while it was built. */
const WATCH_ROUNDS = 2;
/** After the proxy is done, how long a lingering handle may keep the process alive. */
const EXIT_GRACE_MS = 200;
const DEFAULTS = { logLevel: "info", maxRestarts: 3, restartDelayMs: 1_000, restartTimeoutMs: 30_000, debounceMs: 300, drainTimeoutMs: DRAIN_TIMEOUT_MS } as const;

/** This run's argv: our flags, the server command after `--`, the repeatable flags' values. */
let invocation: Invocation = { rawArgs: [], command: [], repeated: {} };

const ARGS = {
  ...TARGET_ARGS,
  watch: { type: "string", description: "restart when a file under this path or glob changes; repeatable", valueHint: "path|glob", alias: ["w"] },
  debounce: { type: "string", description: `wait this long after the last change (default ${DEFAULTS.debounceMs})`, valueHint: "ms" },
  build: { type: "string", description: "run this shell command before each watched restart; a failed build keeps the old server", valueHint: "cmd" },
  "log-level": { ...LOG_ARGS["log-level"], description: `${LOG_ARGS["log-level"].description} (default info) [MCPDEV_PROXY_LOG_LEVEL; MCPDEV_PROXY_DEBUG_MODE=true is debug]` },
  "log-file": { ...LOG_ARGS["log-file"], description: `${LOG_ARGS["log-file"].description} [MCPDEV_PROXY_LOG_FILE]` },
  "max-restarts": { type: "string", description: `crash restarts allowed within 60 s before giving up (default ${DEFAULTS.maxRestarts}) [MCPDEV_PROXY_RESTART_LIMIT]`, valueHint: "n" },
  "restart-delay": { type: "string", description: `first crash-restart delay, doubled each time (default ${DEFAULTS.restartDelayMs}) [MCPDEV_PROXY_RESTART_DELAY]`, valueHint: "ms" },
  "restart-timeout": { type: "string", description: `how long a new server may take to answer its handshake (default ${DEFAULTS.restartTimeoutMs}) [MCPDEV_PROXY_TIMEOUT]`, valueHint: "ms" },
  "auto-restart": { type: "boolean", description: "restart a crashed server (--no-auto-restart to stop) [MCPDEV_PROXY_AUTO_RESTART]" },
  "drain-timeout": { type: "string", description: `at the end of input, wait this long for the answers still owed (default ${DEFAULTS.drainTimeoutMs})`, valueHint: "ms" },
  browser: AUTH_ARGS.browser,
  "callback-port": AUTH_ARGS["callback-port"],
  "callback-timeout": AUTH_ARGS["callback-timeout"],
  "client-id": AUTH_ARGS["client-id"],
  "client-secret-env": AUTH_ARGS["client-secret-env"],
} as const satisfies ArgsDef;

export const main = defineCommand({
  meta: {
    name: "mcp-proxy",
    version: pkg.version,
    description:
      "A transparent, hot-reloading proxy between an MCP client and your server. Every message passes as the bytes that came; the server gains a restart_server tool; the client's session survives every restart. The server comes after `--`, or as --server, --url or --config. `mcp-proxy config --client <name> ... -- <server>` prints (or --writes) the entry a client needs.",
  },
  args: ARGS,
  async run({ args }) {
    const settings = await readSettings(args as Record<string, unknown>);
    if (!settings.ok) {
      process.stderr.write(`error: ${settings.error}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    process.exitCode = await serve(settings.value);
    // Whatever handle is still open (a keep-alive socket) must not hold the exit up.
    setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  },
});

interface Settings {
  target: Target;
  /** A URL server that wants OAuth is signed in to as mcp-remote does: the URL on stderr, the browser opened. */
  auth: ChannelAuth;
  /** A server given as `-- cmd` gets our whole environment: it is what the client configured for it. */
  inheritEnvironment: boolean;
  logLevel: LogLevelName;
  logFile?: string;
  maxRestarts: number;
  restartDelayMs: number;
  restartTimeoutMs: number;
  drainTimeoutMs: number;
  autoRestart: boolean;
  watch: string[];
  debounceMs: number;
  build?: string;
}

/** Flags win over the environment variables reloaderoo users already set, which win over defaults. */
async function readSettings(args: Record<string, unknown>): Promise<{ ok: true; value: Settings } | { ok: false; error: string }> {
  const env = process.env;
  if (invocation.missing) return { ok: false, error: `${invocation.missing} needs a value` };
  const unknown = unknownFlagsProblem(args, ARGS);
  if (unknown) return { ok: false, error: unknown };
  const stray = (args._ as string[] | undefined) ?? [];
  if (stray.length > 0) return { ok: false, error: `unexpected ${JSON.stringify(stray[0])} (put the server command after --, e.g. mcp-proxy --watch src -- node server.js)` };

  let command = invocation.command;
  if (command.length === 0 && env.MCPDEV_PROXY_CHILD_CMD && !args.url && !args.config) {
    command = [env.MCPDEV_PROXY_CHILD_CMD, ...splitArgs(env.MCPDEV_PROXY_CHILD_ARGS ?? "")];
  }
  // A --server name may be a configured server's; nobody is asked (stdin is the client's protocol stream).
  const target = await resolveTargetDiscovering(
    {
      url: args.url as string | undefined,
      header: invocation.repeated.header,
      config: args.config as string | undefined,
      server: args.server as string | undefined,
      env: invocation.repeated.env,
      cwd: (args.cwd as string | undefined) ?? (command.length > 0 ? env.MCPDEV_PROXY_CWD : undefined),
      transport: args.transport as string | undefined,
    },
    command,
  );
  if (!target.ok) return target;

  const debugMode = /^(true|1|yes|on)$/i.test(env.MCPDEV_PROXY_DEBUG_MODE ?? "") ? "debug" : undefined;
  const logLevel = String(args["log-level"] ?? env.MCPDEV_PROXY_LOG_LEVEL ?? debugMode ?? DEFAULTS.logLevel);
  const auth = authFlags(args);
  if (!auth.ok) return auth;
  if (!isLogLevelName(logLevel)) return { ok: false, error: `unknown log level ${JSON.stringify(logLevel)} (use error, warn, info, debug, trace or silent)` };
  const numbers: Record<string, number> = {};
  const numeric: [string, string | undefined, number][] = [
    ["max-restarts", env.MCPDEV_PROXY_RESTART_LIMIT, DEFAULTS.maxRestarts],
    ["restart-delay", env.MCPDEV_PROXY_RESTART_DELAY, DEFAULTS.restartDelayMs],
    ["restart-timeout", env.MCPDEV_PROXY_TIMEOUT, DEFAULTS.restartTimeoutMs],
    ["debounce", undefined, DEFAULTS.debounceMs],
    ["drain-timeout", undefined, DEFAULTS.drainTimeoutMs],
  ];
  for (const [flag, fromEnv, fallback] of numeric) {
    const text = (args[flag] as string | undefined) ?? fromEnv;
    if (text === undefined) {
      numbers[flag] = fallback;
      continue;
    }
    if (!/^\d+$/.test(text)) return { ok: false, error: `--${flag} takes a whole number, not ${JSON.stringify(text)}` };
    numbers[flag] = Number(text);
  }
  if (numbers["restart-timeout"]! <= 0) return { ok: false, error: "--restart-timeout must be above 0" };
  const autoRestartEnv = env.MCPDEV_PROXY_AUTO_RESTART;
  const autoRestart = typeof args["auto-restart"] === "boolean" ? args["auto-restart"] : autoRestartEnv === undefined ? true : !/^(false|0|no|off)$/i.test(autoRestartEnv);
  const logFile = (args["log-file"] as string | undefined) ?? env.MCPDEV_PROXY_LOG_FILE;
  const build = args.build as string | undefined;
  return {
    ok: true,
    value: {
      target: target.value,
      auth: { signIn: "yes", ui: printingAuthUi(), browser: args.browser !== false, ...auth.value },
      // A config entry (from --config, or a configured server's name) carries its name and is a target definition; a command line is not.
      inheritEnvironment: !args.config && target.value.name === undefined,
      logLevel,
      ...(logFile ? { logFile } : {}),
      maxRestarts: numbers["max-restarts"]!,
      restartDelayMs: numbers["restart-delay"]!,
      restartTimeoutMs: numbers["restart-timeout"]!,
      drainTimeoutMs: numbers["drain-timeout"]!,
      autoRestart,
      watch: invocation.repeated.watch ?? [],
      debounceMs: numbers.debounce!,
      ...(build ? { build } : {}),
    },
  };
}

/** MCPDEV_PROXY_CHILD_ARGS: a JSON array, or words separated by spaces. */
function splitArgs(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      const parsed = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // Fall through to words.
    }
  }
  return trimmed === "" ? [] : trimmed.split(/\s+/);
}

/**
 * Runs the proxy until the client goes away; resolves with the exit code. At the end of its input
 * every answer still owed is awaited and written first; a signal ends it at once.
 */
async function serve(settings: Settings): Promise<number> {
  const log = createLogger({ level: settings.logLevel, file: settings.logFile, tag: "mcp-proxy" });
  const target = settings.target;
  const toClient = new LineWriter(process.stdout);
  const stderr = ownStderr();
  const inputEnded = Promise.withResolvers<void>();
  const clientGone = Promise.withResolvers<void>();
  const signalled = Promise.withResolvers<number>();
  let signalCode: number | undefined;
  onExitSignals((_signal, code) => {
    signalCode ??= code;
    signalled.resolve(code);
  });

  // The client's lines, as the bytes that arrived (UTF-8 or not: the server answers what it gets).
  const splitter = new ByteLineSplitter((line) => proxy.fromClient(line), {
    chunksAreOwned: true,
    validateUtf8: false,
    onerror: (error) => {
      log.warn(`dropped a ${error.bytes}-byte line from the client (${error.kind})`);
      if (error.kind === "oversize") proxy.refuseOversize(error.head, error.tail, error.bytes, MAX_LINE_BYTES);
    },
  });
  const input = readChunks(process.stdin, {
    onchunk: (chunk) => splitter.push(chunk),
    onend: () => {
      splitter.end();
      inputEnded.resolve();
    },
  });

  const proxy = new McpProxy({
    connect: () => openChannel(target, { forwarding: true, listen: true, inheritEnvironment: settings.inheritEnvironment, auth: settings.auth, onstderr: (line) => stderr.write(`[server] ${line}\n`) }),
    toClient,
    clientInput: input,
    log,
    restartTimeoutMs: settings.restartTimeoutMs,
    autoRestart: settings.autoRestart,
    maxRestarts: settings.maxRestarts,
    restartDelayMs: settings.restartDelayMs,
    resendsUnseen: target.kind === "http",
  });
  log.info(`proxying ${describeTarget(target)}`);

  const stopWatching =
    settings.watch.length > 0
      ? startWatching({
          patterns: settings.watch,
          cwd: process.cwd(),
          debounceMs: settings.debounceMs,
          onerror: (message) => log.warn(message),
          onchange: (paths) => void onFilesChanged(paths),
        })
      : () => {};

  const builder = settings.build ? new Builder(settings.build, target.kind === "stdio" ? (target.cwd ?? process.cwd()) : process.cwd()) : undefined;

  // A change starts a build and a restart. Changes seen meanwhile (the build may write inside the
  // watched tree, and those events arrive up to a debounce later) make at most one more round;
  // changes during that round are its own output and start nothing, so a build never loops.
  let changedMeanwhile: string[] | undefined;
  let rebuilding = false;
  async function onFilesChanged(paths: string[]): Promise<void> {
    if (rebuilding) {
      changedMeanwhile = [...(changedMeanwhile ?? []), ...paths];
      return;
    }
    rebuilding = true;
    try {
      let batch: string[] | undefined = paths;
      for (let round = 0; batch && round < WATCH_ROUNDS; round++) {
        changedMeanwhile = undefined;
        if (!(await rebuild(batch))) break;
        await new Promise((resolve) => setTimeout(resolve, settings.debounceMs));
        batch = changedMeanwhile;
      }
    } finally {
      rebuilding = false;
      changedMeanwhile = undefined;
    }
  }

  /** Builds (when asked to) and restarts; false when the build failed and the old server stays. */
  async function rebuild(paths: string[]): Promise<boolean> {
    const shown = paths.slice(0, 3).join(", ") + (paths.length > 3 ? ` and ${paths.length - 3} more` : "");
    if (builder) {
      log.info(`building: ${builder.command}`);
      const build = await builder.build();
      if (!build.ok) {
        const text = `build failed (exit ${build.code}); the server keeps running the previous build:\n${build.output}`;
        log.error(text);
        await proxy.notifyClient("error", text);
        return false;
      }
    }
    await proxy.restart(`changed: ${shown}`, { again: true, resetsBreaker: true });
    return true;
  }

  // A client that stops reading for good (EPIPE) is a client that left: no answer can reach it.
  process.stdout.on("error", () => clientGone.resolve());

  void proxy.start();
  const interrupted = Promise.race([signalled.promise, clientGone.promise]);
  const ending = await Promise.race([inputEnded.promise.then(() => "end of input" as const), interrupted]);
  input.pause("ended");
  stopWatching();
  builder?.stop();
  if (ending === "end of input") {
    // Every answer still owed is written before the server stops; a signal cuts this short.
    await Promise.race([proxy.drain(settings.drainTimeoutMs).then(() => toClient.flushed()), interrupted]);
  }
  await proxy.close({ quick: signalCode !== undefined });
  process.stdin.destroy();
  return signalCode ?? 0;
}

withExamples(main, [
  "mcp-proxy -- node server.js",
  'mcp-proxy --watch src --build "npm run build" -- node dist/server.js',
  'mcp-proxy --watch "src/**/*.py" -- uv run server.py',
  'mcp-proxy --url https://example.com/mcp -H "Authorization: Bearer $TOKEN"',
  'mcp-proxy --server "npx -y @modelcontextprotocol/server-everything"',
  "mcp-proxy config --client claude-desktop --watch src -- node server.js",
  `in a client config: { "command": "mcp-proxy", "args": ["--watch", "src", "--", "node", "server.js"] }`,
]);

/** Runs mcp-proxy with these arguments (what follows the program name). */
export async function run(argv: string[]): Promise<void> {
  if (argv[0] === "config") {
    const { own, command } = splitAtDoubleDash(argv.slice(1));
    process.exitCode = await runConfigCommand("mcp-proxy", own, command, { example: "--watch src -- node server.js", entryScript: new URL(import.meta.url).pathname });
    return;
  }
  // `bun mcp-proxy.ts -- cmd`: bun takes that first `--` for its own, so a leading word starts the command.
  const { own, command } = splitServerCommand(argv);
  const taken = takeRepeatable(own, { ...REPEATABLE_TARGET_FLAGS, watch: ["w"] });
  invocation = { rawArgs: taken.rest, command, repeated: taken.values, ...(taken.missing ? { missing: taken.missing } : {}) };
  await runMain(main, { rawArgs: invocation.rawArgs, showUsage: showHelp });
}

if (import.meta.main) await run(process.argv.slice(2));
