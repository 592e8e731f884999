// The one way a command line ends with an error: one line on stderr, `error: <what went wrong>
// (<what to do>)`, and the exit code of the one table. The process exits on its own afterwards, so
// stdout is flushed.
import { oneLine } from "../io/text.ts";
import { EXIT } from "./exit-codes.ts";

/** The error line, text from a server made safe for a terminal and kept to one line (a server's "\nerror: ..." forges none of ours). */
export function errorLine(message: string): string {
  return `error: ${oneLine(message)}\n`;
}

/** Writes the error line and sets the exit code; returns it, for `return fail(...)`. */
export function fail(message: string, exitCode: number = EXIT.usage): number {
  process.stderr.write(errorLine(message));
  process.exitCode = exitCode;
  return exitCode;
}
