// mcp-proxy's flags, declared once, and the settings a run takes from them: flags win over the
// environment variables reloaderoo's users already set (MCPDEV_PROXY_*), which win over defaults.
import { AUTH_ARGS, authFlags, LOG_ARGS, TARGET_ARGS } from "../lib/cli/args.ts";
import { type Invocation, unknownFlagsProblem } from "../lib/cli/argv.ts";
import { checkValue, type FlagDef } from "../lib/cli/values.ts";
import type { LogLevelName } from "../lib/io/log-levels.ts";
import type { ChannelAuth } from "../lib/open.ts";
import { resolveTargetDiscovering } from "../lib/targets/resolve.ts";
import type { Target } from "../lib/targets/target.ts";
import { printingAsker } from "../lib/terminal/asker.ts";
import { DRAIN_TIMEOUT_MS, MAX_RECORDING_BYTES } from "../lib/wire/limits.ts";
import type { Result } from "../lib/wire/result.ts";

export const DEFAULTS = {
  logLevel: "info",
  maxRestarts: 3,
  restartDelayMs: 1_000,
  restartTimeoutMs: 30_000,
  debounceMs: 300,
  drainTimeoutMs: DRAIN_TIMEOUT_MS,
} as const;

export const ARGS = {
  ...TARGET_ARGS,
  watch: {
    type: "string",
    description: "restart when a file under this path or glob changes; repeatable",
    valueHint: "path|glob",
    alias: "w",
  },
  debounce: {
    type: "string",
    description: `wait this long after the last change (default ${DEFAULTS.debounceMs})`,
    valueHint: "ms",
    value: "duration",
  },
  build: {
    type: "string",
    description: "run this shell command before each watched restart; a failed build keeps the old server",
    valueHint: "cmd",
  },
  record: {
    type: "string",
    description: "write the session to this file as JSON Lines (0600, never through a link; header values redacted), for mcp-inspect mock",
    valueHint: "file",
  },
  "record-max": {
    type: "string",
    description: `stop recording past this many bytes, and say so (default ${MAX_RECORDING_BYTES})`,
    valueHint: "bytes",
    value: "positive-count",
  },
  "log-level": {
    ...LOG_ARGS["log-level"],
    description: `${LOG_ARGS["log-level"].description} (default info) [MCPDEV_PROXY_LOG_LEVEL; MCPDEV_PROXY_DEBUG_MODE=true is debug]`,
  },
  "log-file": { ...LOG_ARGS["log-file"], description: `${LOG_ARGS["log-file"].description} [MCPDEV_PROXY_LOG_FILE]` },
  "max-restarts": {
    type: "string",
    description: `crash restarts allowed within 60 s before giving up (default ${DEFAULTS.maxRestarts}) [MCPDEV_PROXY_RESTART_LIMIT]`,
    valueHint: "n",
    value: "count",
  },
  "restart-delay": {
    type: "string",
    description: `first crash-restart delay, doubled each time (default ${DEFAULTS.restartDelayMs}) [MCPDEV_PROXY_RESTART_DELAY]`,
    valueHint: "ms",
    value: "duration",
  },
  "restart-timeout": {
    type: "string",
    description: `how long a new server may take to answer its handshake (default ${DEFAULTS.restartTimeoutMs}) [MCPDEV_PROXY_TIMEOUT]`,
    valueHint: "ms",
    value: "positive-duration",
  },
  "auto-restart": { type: "boolean", description: "restart a crashed server (--no-auto-restart to stop) [MCPDEV_PROXY_AUTO_RESTART]" },
  "drain-timeout": {
    type: "string",
    description: `at the end of input, wait this long for the answers still owed (default ${DEFAULTS.drainTimeoutMs})`,
    valueHint: "ms",
    value: "duration",
  },
  browser: AUTH_ARGS.browser,
  "callback-port": AUTH_ARGS["callback-port"],
  "callback-timeout": AUTH_ARGS["callback-timeout"],
  "client-id": AUTH_ARGS["client-id"],
  "client-secret-env": AUTH_ARGS["client-secret-env"],
  registration: AUTH_ARGS.registration,
  grant: AUTH_ARGS.grant,
  "client-key-file": AUTH_ARGS["client-key-file"],
} as const satisfies Record<string, FlagDef>;

/** Flags that may be given more than once, beside the target's own. */
export const REPEATABLE_PROXY_FLAGS = { watch: ["w"] };

export interface Settings {
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
  /** --record: the file the session is written to, and the size it stops at. */
  record?: { file: string; maxBytes: number };
}

/** What the flags (and the MCPDEV_PROXY_* variables) of this run say, checked. */
export async function readSettings(
  args: Record<string, unknown>,
  invocation: Invocation,
  env: Record<string, string | undefined> = process.env,
  defs: Record<string, FlagDef> = ARGS,
): Promise<Result<Settings>> {
  if (invocation.missing) return { ok: false, error: `${invocation.missing} needs a value` };
  const unknown = unknownFlagsProblem(args, defs);
  if (unknown) return { ok: false, error: unknown };
  const stray = (args._ as string[] | undefined) ?? [];
  if (stray.length > 0)
    return {
      ok: false,
      error: `unexpected ${JSON.stringify(stray[0])} (put the server command after --, e.g. mcp-proxy --watch src -- node server.js)`,
    };

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

  const auth = authFlags(args);
  if (!auth.ok) return auth;
  // Each value from its flag, else from the variable reloaderoo's users set, else the default; checked as the flag's kind.
  const debugMode = /^(true|1|yes|on)$/i.test(env.MCPDEV_PROXY_DEBUG_MODE ?? "") ? "debug" : undefined;
  const fromEnv: Record<string, [variable: string, text: string | undefined]> = {
    "log-level": ["MCPDEV_PROXY_LOG_LEVEL", env.MCPDEV_PROXY_LOG_LEVEL],
    "max-restarts": ["MCPDEV_PROXY_RESTART_LIMIT", env.MCPDEV_PROXY_RESTART_LIMIT],
    "restart-delay": ["MCPDEV_PROXY_RESTART_DELAY", env.MCPDEV_PROXY_RESTART_DELAY],
    "restart-timeout": ["MCPDEV_PROXY_TIMEOUT", env.MCPDEV_PROXY_TIMEOUT],
  };
  const values: Record<string, number | string> = {};
  for (const [flag, def] of Object.entries(defs)) {
    if (def.value === undefined) continue;
    const [variable, envText] = fromEnv[flag] ?? ["", undefined];
    const [source, text] = args[flag] !== undefined ? [`--${flag}`, args[flag]] : [variable, envText];
    if (text === undefined) continue;
    const checked = checkValue(source, def.value, text);
    if (!checked.ok) return checked;
    values[flag] = checked.value;
  }
  const number = (flag: string, fallback: number) => (values[flag] as number | undefined) ?? fallback;
  const logLevel = ((values["log-level"] as LogLevelName | undefined) ?? debugMode ?? DEFAULTS.logLevel) as LogLevelName;
  const autoRestartEnv = env.MCPDEV_PROXY_AUTO_RESTART;
  const autoRestart =
    typeof args["auto-restart"] === "boolean"
      ? args["auto-restart"]
      : autoRestartEnv === undefined
        ? true
        : !/^(false|0|no|off)$/i.test(autoRestartEnv);
  const logFile = (args["log-file"] as string | undefined) ?? env.MCPDEV_PROXY_LOG_FILE;
  const build = args.build as string | undefined;
  return {
    ok: true,
    value: {
      target: target.value,
      auth: { signIn: "yes", ui: printingAsker(), browser: args.browser !== false, ...auth.value },
      // A config entry (from --config, or a configured server's name) carries its name and is a target definition; a command line is not.
      inheritEnvironment: !args.config && target.value.name === undefined,
      logLevel,
      ...(logFile ? { logFile } : {}),
      maxRestarts: number("max-restarts", DEFAULTS.maxRestarts),
      restartDelayMs: number("restart-delay", DEFAULTS.restartDelayMs),
      restartTimeoutMs: number("restart-timeout", DEFAULTS.restartTimeoutMs),
      drainTimeoutMs: number("drain-timeout", DEFAULTS.drainTimeoutMs),
      autoRestart,
      watch: invocation.repeated.watch ?? [],
      debounceMs: number("debounce", DEFAULTS.debounceMs),
      ...(build ? { build } : {}),
      ...(typeof args.record === "string" ? { record: { file: args.record, maxBytes: number("record-max", MAX_RECORDING_BYTES) } } : {}),
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
