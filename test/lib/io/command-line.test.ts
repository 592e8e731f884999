// A command line given as one string, split into words as a POSIX shell quotes them, without a
// shell (lib/io/command-line.ts): no variables, globs or substitutions ever happen.
import { describe, expect, test } from "bun:test";
import { splitCommandLine } from "../../../lib/io/command-line.ts";

describe("command lines split without a shell", () => {
  test("quotes and escapes as a POSIX shell reads them", () => {
    expect(splitCommandLine(`node "my server.js" --name 'a b' x\\ y`)).toEqual({
      ok: true,
      value: ["node", "my server.js", "--name", "a b", "x y"],
    });
    expect(splitCommandLine(`echo "$HOME" '*'`)).toEqual({ ok: true, value: ["echo", "$HOME", "*"] });
    expect(splitCommandLine(`a "" b`)).toEqual({ ok: true, value: ["a", "", "b"] });
  });

  test("an open quote or an empty line is an error", () => {
    expect(splitCommandLine(`node "x`).ok).toBe(false);
    expect(splitCommandLine("   ").ok).toBe(false);
  });

  test.each([
    ["tabs and newlines separate words, and runs of them count once", "a\t b\n\nc ", ["a", "b", "c"]],
    ["quoted parts next to each other make one word", `a"b c"'d e'f`, ["ab cd ef"]],
    ["'' alone is an empty word; '' inside a word adds nothing", `'' x''y`, ["", "xy"]],
    ['inside double quotes a backslash escapes only " \\ $ and `', `"a\\"b\\\\c\\$d\\\`e\\nf"`, ['a"b\\c$d`e\\nf']],
    ["inside single quotes a backslash is itself", `'a\\b'`, ["a\\b"]],
    ["a double quote inside single quotes and the reverse are literal", `'say "hi"' "it's"`, ['say "hi"', "it's"]],
    ["outside quotes a backslash makes any next character literal, a space or a quote", `a\\ b \\'c \\"d`, ["a b", "'c", '"d']],
    ["a trailing backslash stays as it is", "a b\\", ["a", "b\\"]],
    [
      "shell syntax is plain text: no substitution, globs, pipes, redirections or separators",
      "$(id) `id` *.ts | > ; &&",
      ["$(id)", "`id`", "*.ts", "|", ">", ";", "&&"],
    ],
    ["multi-byte text survives", "nöde 'sérver 日本.js'", ["nöde", "sérver 日本.js"]],
  ])("%s", (_name, line, words) => {
    expect(splitCommandLine(line)).toEqual({ ok: true, value: words });
  });

  test.each([
    ["an unterminated double quote", `node "x y`, `unterminated " quote in "node \\"x y"`],
    ["an unterminated single quote", "node 'x", `unterminated ' quote in "node 'x"`],
    ["a quote opened after an escaped one", `a \\"b "c`, `unterminated " quote in "a \\\\\\"b \\"c"`],
    ["the empty string", "", "empty command line"],
    ["only whitespace", " \t\n", "empty command line"],
  ])("%s is refused, and the error says which", (_name, line, error) => {
    expect(splitCommandLine(line)).toEqual({ ok: false, error });
  });
});
