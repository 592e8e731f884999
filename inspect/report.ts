// How every mcp-inspect command ends, one way: off a terminal (or with --json) one envelope on
// stdout, success or failure, with the same metadata; on a terminal, the result as text on stdout
// and a failure as one `error:` line on stderr. The exit code is the failure's.
import { errorLine } from "../lib/cli/fail.ts";
import { isTerminal, writeStdout } from "../lib/io/runtime.ts";
import { type CommandError, EXIT, errorEnvelope, type Metadata, successEnvelope } from "./output.ts";

export interface Report {
  /** Named once known (the target resolves after the reporter exists). */
  target: string;
  protocolVersion?: string;
  metadata(): Metadata;
  /** The result: its envelope, or `text` (the result as people read it). */
  succeed(data: unknown, text: (data: unknown) => string): void;
  /** The failure: its envelope (with `data` when some came), or its line on stderr after `text` of the data. */
  fail(error: CommandError, data?: unknown, text?: (data: unknown) => string): void;
}

export function reporter(command: string, json: boolean, target = ""): Report {
  const started = performance.now();
  const report: Report = {
    target,
    metadata: () => ({
      command,
      target: report.target,
      ...(report.protocolVersion ? { protocolVersion: report.protocolVersion } : {}),
      timestamp: new Date().toISOString(),
      durationMs: Math.round(performance.now() - started),
    }),
    succeed(data, text) {
      writeStdout(json ? `${successEnvelope(data, report.metadata())}\n` : text(data));
      process.exitCode = EXIT.ok;
    },
    fail(error, data, text) {
      if (json) writeStdout(`${errorEnvelope(error, report.metadata(), data)}\n`);
      else {
        if (data !== undefined && text) writeStdout(text(data));
        process.stderr.write(errorLine(error.message));
      }
      process.exitCode = error.exitCode;
    },
  };
  return report;
}

/** Ends the run before any command parsed its flags: the envelope off a terminal, a line on one. */
export function endBeforeCommand(error: CommandError, command: string): void {
  reporter(command, !isTerminal(1)).fail(error);
}
