// The one way a command line ends with an error (lib/cli/fail.ts): one line on stderr, made safe for
// a terminal, and the exit code of the one table.
import { describe, expect, test } from "bun:test";
import { EXIT } from "../../../lib/cli/exit-codes.ts";
import { errorLine, fail } from "../../../lib/cli/fail.ts";
import { captured } from "../../support/captured.ts";

describe("errorLine", () => {
  test.each([
    ["a plain message", "no such tool (see list-tools)", "error: no such tool (see list-tools)\n"],
    ["a server's escape sequences stripped", "boom\u001b[2J\u001b]0;pwned\u0007!", "error: boom!\n"],
    ["a server's line breaks: still one line, so it cannot forge a line of ours", "bad\nerror: all fine", "error: bad error: all fine\n"],
    ["a carriage return that would overwrite the line", "real\rfake", "error: real fake\n"],
    ["Unicode line and paragraph separators", "a\u2028b\u2029c", "error: a b c\n"],
    ["a trailing newline of a message", "gone away\n", "error: gone away\n"],
  ])("%s", (_name, message, line) => {
    expect(errorLine(message)).toBe(line);
    expect(errorLine(message).slice(0, -1)).not.toMatch(/[\n\r\u2028\u2029]/);
  });
});

describe("fail", () => {
  test("writes the error line to stderr alone, sets the exit code and returns it", async () => {
    const run = await captured(() => fail("the server went away", EXIT.connection));
    expect(run).toEqual({ result: EXIT.connection, stdout: "", stderr: "error: the server went away\n", exitCode: EXIT.connection });
  });

  test("without a code it is a usage error", async () => {
    const run = await captured(() => fail("unknown option --bogus (see --help)"));
    expect([run.result, run.exitCode]).toEqual([EXIT.usage, EXIT.usage]);
  });
});
