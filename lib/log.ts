// One logger for every tool. consola sends info/log/success to stdout by default, and stdout is
// the protocol stream in the proxy, the daemon and `mcp-inspect mcp`: so both streams are stderr.
import { appendFileSync } from "node:fs";
import { createConsola, type ConsolaInstance, type LogObject } from "consola";

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
}

export function createLogger(options: LoggerOptions = {}): ConsolaInstance {
  const logger = createConsola({
    stdout: process.stderr,
    stderr: process.stderr,
    level: LOG_LEVELS[options.level ?? "info"],
    formatOptions: { date: false, colors: !process.env.NO_COLOR && Boolean(process.stderr.isTTY) },
  });
  const file = options.file;
  if (file) {
    logger.addReporter({
      log(entry: LogObject) {
        const text = entry.args.map((arg) => (typeof arg === "string" ? arg : safeJson(arg))).join(" ");
        try {
          appendFileSync(file, `${entry.date.toISOString()} ${entry.type} ${text}\n`);
        } catch {
          // A log file we cannot write must not take the tool down.
        }
      },
    });
  }
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
