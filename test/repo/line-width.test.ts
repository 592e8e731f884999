// Lines stay at most 140 columns (DESIGN.md, "Layout"): biome wraps code at that width but never
// splits a string or a comment, so this checks what it leaves.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "../support/helpers.ts";

export const MAX_LINE_COLUMNS = 140;
const SKIPPED = new Set(["node_modules", ".git", "dist"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

test(`no line of the product, its tests or its benches is over ${MAX_LINE_COLUMNS} columns`, () => {
  const long: string[] = [];
  for (const file of sourceFiles(ROOT)) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        if ([...line].length > MAX_LINE_COLUMNS) long.push(`${relative(ROOT, file)}:${index + 1} (${[...line].length} columns)`);
      });
  }
  expect(long).toEqual([]);
});
