// lib/io/replace-file: a file replaced whole through a draft and a rename, never written through
// what someone planted at its name.
import { afterAll, expect, test } from "bun:test";
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replaceFile } from "../../../lib/io/replace-file.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

test("a new file is written with the mode asked; an existing one is replaced whole; no draft is left behind", () => {
  const dir = tempDir();
  const file = join(dir, "SKILL.md");
  expect(replaceFile(file, "one", 0o600)).toEqual({ ok: true, value: file });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  writeFileSync(file, "a much longer old text");
  expect(replaceFile(file, "two").ok).toBe(true);
  expect(readFileSync(file, "utf8")).toBe("two");
  expect(readdirSync(dir)).toEqual(["SKILL.md"]);
});

test.each([
  ["a symbolic link", (path: string, dir: string) => symlinkSync(join(dir, "elsewhere"), path), "is a symbolic link"],
  ["a directory", (path: string) => mkdirSync(path), "is a directory"],
  ["a named pipe", (path: string) => void Bun.spawnSync(["mkfifo", path]), "is not a regular file"],
])("%s at the name is refused in one line, and left as it was", (_what, plant, said) => {
  const dir = tempDir();
  writeFileSync(join(dir, "elsewhere"), "keep me");
  const file = join(dir, "target");
  plant(file, dir);
  const result = replaceFile(file, "evil");
  expect(result).toEqual({ ok: false, error: `${file} ${said}: not writing through it (remove it, or write elsewhere)` });
  expect(readFileSync(join(dir, "elsewhere"), "utf8")).toBe("keep me");
  expect(lstatSync(file).isFile()).toBe(false);
});

test("a folder that cannot be written in: a one-line error naming the file, and no draft left", () => {
  const file = join(tempDir(), "missing-folder", "file");
  const result = replaceFile(file, "x");
  expect(result).toEqual({ ok: false, error: `cannot write ${file} (ENOENT)` });
});
