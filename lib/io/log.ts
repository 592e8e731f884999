// One logger for every tool. stdout is the protocol stream in the proxy, the daemon and
// `mcp-inspect mcp`, so every line goes to stderr. consola's core is used with our own reporter:
// its default entry loads a fancy reporter and environment probes that cost ~8 ms of start-up in
// a compiled binary, most of mcp-inspect's own budget.
import { appendFileSync } from "node:fs";
import { type ConsolaInstance, createConsola, type LogObject } from "consola/core";
import { LOG_BUFFER_BYTES } from "../wire/limits.ts";
import type { LineSink } from "../wire/line-writer.ts";
import { LOG_LEVELS, type LogLevelName } from "./log-levels.ts";

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

/**
 * Lines for a stream nobody may be reading (our stderr, when the client that started us never
 * reads it): past LOG_BUFFER_BYTES queued, lines are dropped and counted, and once the stream
 * drains, one line says how many were lost. Memory stays bounded whoever is at the other end.
 */
export class DroppingLineWriter {
  readonly #sink: LineSink;
  readonly #bound: number;
  #queued = 0;
  #waiting = false;
  #dropped = 0;

  constructor(sink: LineSink, bufferBytes = LOG_BUFFER_BYTES) {
    this.#sink = sink;
    this.#bound = bufferBytes;
  }

  /** How many lines were dropped since the stream last drained. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Writes at once (a line logged just before exit is not lost), or drops when the bound is reached. */
  write(text: string): boolean {
    if (this.#queued >= this.#bound) {
      this.#dropped++;
      return false;
    }
    const accepted = this.#sink.write(text);
    if (accepted && !this.#waiting) return true;
    this.#queued += text.length;
    if (!this.#waiting) {
      this.#waiting = true;
      this.#sink.once("drain", () => this.#drained());
    }
    return true;
  }

  #drained(): void {
    this.#waiting = false;
    this.#queued = 0;
    if (this.#dropped === 0) return;
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.write(`[mcpkit] ${dropped} line(s) dropped while nothing read this stream\n`);
  }
}

let stderrLines: DroppingLineWriter | undefined;
/** Our stderr, bounded (see DroppingLineWriter); every log line and server stderr line goes here. */
export function ownStderr(): DroppingLineWriter {
  stderrLines ??= new DroppingLineWriter(stderrSink);
  return stderrLines;
}

/** process.stderr, reached only when a line is written: building its stream costs a few ms of start-up that a quiet run never needs. */
const stderrSink: LineSink = {
  write: (chunk) => process.stderr.write(chunk),
  once: (event, listener) => process.stderr.once(event, listener),
  off: (event, listener) => process.stderr.off(event, listener),
};
