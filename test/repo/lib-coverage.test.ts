// The fast tier mirrors lib/ (DESIGN.md, "Testing"): every lib file is imported by a suite under
// test/lib/, so each has tests of its own that run in process, in seconds.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../support/helpers.ts";

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/** What a suite imports: the files its relative `from "..."` specifiers name. */
function importedBy(suite: string): string[] {
  const text = readFileSync(suite, "utf8");
  return [...text.matchAll(/from\s+"(\.[^"]+)"/g)].map((match) => resolve(dirname(suite), match[1]!));
}

test("every lib file is imported by a suite of the fast tier (test/lib/)", () => {
  const imported = new Set(filesUnder(join(ROOT, "test", "lib"), /\.test\.ts$/).flatMap(importedBy));
  const untested = filesUnder(join(ROOT, "lib"), /\.ts$/)
    .filter((file) => !imported.has(file))
    .map((file) => relative(ROOT, file));
  expect(untested).toEqual([]);
});
