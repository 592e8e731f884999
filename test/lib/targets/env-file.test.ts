// An entry's envFile: the plain dotenv forms read as VS Code and Cursor read them, nothing
// expanded or executed, and only a regular file, capped, ever opened.
import { afterAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnvText, readEnvFile } from "../../../lib/targets/env-file.ts";
import { MAX_CONFIG_BYTES } from "../../../lib/wire/limits.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

test("KEY=value, export, both quotes, escapes in double quotes only, and # as a comment outside quotes", () => {
  const text = [
    "# a comment",
    "",
    "PLAIN=value",
    "  SPACED  =  padded value  ",
    "export EXPORTED=yes",
    'DOUBLE="two\\nlines \\"quoted\\" back\\\\slash"',
    "SINGLE='kept \\n as # written'",
    "TRAILING=value # said after",
    "HASH=a#b",
    "EMPTY=",
    "dotted.name-x=1",
    "SEPARATOR=a=b=c",
  ].join("\r\n");
  expect(parseEnvText(text)).toEqual({
    PLAIN: "value",
    SPACED: "padded value",
    EXPORTED: "yes",
    DOUBLE: 'two\nlines "quoted" back\\slash',
    SINGLE: "kept \\n as # written",
    TRAILING: "value",
    HASH: "a#b",
    EMPTY: "",
    "dotted.name-x": "1",
    SEPARATOR: "a=b=c",
  });
});

test("lines that are not assignments are skipped, $VAR and $(command) stay as written, a later line wins", () => {
  const text = ["not an assignment", "1BAD=x", "=nothing", "export", "REF=$HOME/${USER}", "RUN=$(touch /tmp/x)", "K=1", "K=2"].join("\n");
  expect(parseEnvText(text)).toEqual({ REF: "$HOME/${USER}", RUN: "$(touch /tmp/x)", K: "2" });
  // A quote that never closes is not a quoted value: the text is kept, up to a comment.
  expect(parseEnvText('OPEN="no end # here\nLONE="')).toEqual({ OPEN: '"no end', LONE: '"' });
});

test("a file is read and parsed; a missing one, a directory, a FIFO and a link to /dev/stdin are refused unread", () => {
  const dir = tempDir("mcpkit-envfile-");
  const file = join(dir, ".env");
  writeFileSync(file, "TOKEN=abc\n");
  expect(readEnvFile(file)).toEqual({ ok: true, value: { TOKEN: "abc" } });
  expect(readEnvFile(join(dir, "none.env"))).toEqual({ ok: false, error: `cannot read ${join(dir, "none.env")} (ENOENT)` });
  const folder = join(dir, "folder.env");
  mkdirSync(folder);
  const fifo = join(dir, "fifo.env");
  execFileSync("mkfifo", [fifo]);
  const stdin = join(dir, "stdin.env");
  symlinkSync("/dev/stdin", stdin);
  for (const refused of [folder, fifo, stdin, "/dev/zero"])
    expect(readEnvFile(refused)).toEqual({ ok: false, error: `cannot read ${refused} (not a regular file)` });
});

test("a file over the config limit is refused by its size, without being read", () => {
  const file = join(tempDir("mcpkit-envfile-"), "huge.env");
  writeFileSync(file, "");
  // Sparse: the size says too large before a byte is read.
  truncateSync(file, MAX_CONFIG_BYTES + 1);
  expect(readEnvFile(file)).toEqual({ ok: false, error: `${file} is over the ${MAX_CONFIG_BYTES}-byte limit` });
});
