// One logger for every tool. stdout is the protocol stream in the proxy, the daemon and
// `mcp-inspect mcp`, so every line goes to stderr. consola's core is used with our own reporter:
// its default entry loads a fancy reporter and environment probes that cost ~8 ms of start-up in
// a compiled binary, most of mcp-inspect's own budget.
import { appendFileSync } from "node:fs";
import { createConsola, type ConsolaInstance, type LogObject } from "consola/core";

export const LOG_LEVELS = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;

export function isLogLevelName(value: string): value is LogLevelName {
  return Object.hasOwn(LOG_LEVELS, value);
}

export interface LoggerOptions {
  level?: LogLevelName;
  /** Also append every line, with a timestamp, to this file. */
  file?: string;
  tag?: string;
  /** Where lines go (tests pass their own); stderr by default. */
  stream?: { write(text: string): unknown };
}

export function createLogger(options: LoggerOptions = {}): ConsolaInstance {
  const stream = options.stream ?? process.stderr;
  const file = options.file;
  const logger = createConsola({
    level: LOG_LEVELS[options.level ?? "info"],
    reporters: [
      {
        log(entry: LogObject) {
          const text = entry.args.map((arg) => (typeof arg === "string" ? arg : safeJson(arg))).join(" ");
          const tag = entry.tag ? `[${entry.tag}] ` : "";
          const type = entry.type === "log" || entry.type === "info" ? "" : `${entry.type}: `;
          stream.write(`${tag}${type}${text}\n`);
          if (!file) return;
          try {
            appendFileSync(file, `${entry.date.toISOString()} ${entry.type} ${tag}${text}\n`, { mode: 0o600 });
          } catch {
            // A log file we cannot write must not take the tool down.
          }
        },
      },
    ],
  });
  return options.tag ? logger.withTag(options.tag) : logger;
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Strips ANSI escape sequences and other control characters from server-supplied text before
 * it reaches a terminal (a server must not be able to rewrite the user's screen). */
export function stripControl(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, "")
    .replace(/\u001b[@-_]/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}
