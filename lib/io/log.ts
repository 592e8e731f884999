// One logger for every tool. stdout is the protocol stream in the proxy, the daemon and
// `mcp-inspect mcp`, so every line goes to stderr. consola's core is used with our own reporter:
// its default entry loads a fancy reporter and environment probes that cost ~8 ms of start-up in
// a compiled binary, most of mcp-inspect's own budget. The bounded stderr it writes to is lib/io/stderr.ts.
import { appendFileSync } from "node:fs";
import { type ConsolaInstance, createConsola, type LogObject } from "consola/core";
import { LOG_LEVELS, type LogLevelName } from "./log-levels.ts";
import { ownStderr } from "./stderr.ts";

export interface LoggerOptions {
  level?: LogLevelName;
  /** Also append every line, with a timestamp, to this file (or these files). */
  file?: string | string[];
  tag?: string;
  /** Where lines go (tests pass their own); stderr by default. */
  stream?: { write(text: string): unknown };
}

export function createLogger(options: LoggerOptions = {}): ConsolaInstance {
  const stream = options.stream ?? ownStderr();
  const files = typeof options.file === "string" ? [options.file] : (options.file ?? []);
  const logger = createConsola({
    level: LOG_LEVELS[options.level ?? "info"],
    reporters: [
      {
        log(entry: LogObject) {
          const text = entry.args.map((arg) => (typeof arg === "string" ? arg : safeJson(arg))).join(" ");
          const tag = entry.tag ? `[${entry.tag}] ` : "";
          const type = entry.type === "log" || entry.type === "info" ? "" : `${entry.type}: `;
          stream.write(`${tag}${type}${text}\n`);
          for (const file of files) {
            try {
              appendFileSync(file, `${entry.date.toISOString()} ${entry.type} ${tag}${text}\n`, { mode: 0o600 });
            } catch {
              // A log file we cannot write must not take the tool down.
            }
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
