// mcp-daemon's flags, declared once: the entry script builds its commands from them before any
// command's code loads.

import { LOG_ARGS } from "../lib/cli/args.ts";
import type { FlagDef } from "../lib/cli/values.ts";

export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_LOG_LINES = 100;

export const RUN_ARGS = {
  "idle-timeout": {
    type: "string",
    description: `close a session nobody used for this long (default ${DEFAULT_IDLE_TIMEOUT_MS})`,
    valueHint: "ms",
    value: "positive-duration",
  },
  "exit-after": {
    type: "string",
    description: "exit when there have been no sessions for this long (default: the idle timeout)",
    valueHint: "ms",
    value: "positive-duration",
  },
  "log-level": { ...LOG_ARGS["log-level"], description: `${LOG_ARGS["log-level"].description} (default info)` },
  "log-file": { ...LOG_ARGS["log-file"], description: "also append every log line to this file (they always go to daemon.log too)" },
} as const satisfies Record<string, FlagDef>;

export const STATUS_ARGS = { json: { type: "boolean", description: "print JSON" } } as const satisfies Record<string, FlagDef>;
export const LOGS_ARGS = {
  lines: { type: "string", description: `how many lines (default ${DEFAULT_LOG_LINES})`, valueHint: "n", value: "positive-count" },
} as const satisfies Record<string, FlagDef>;
