// The import rule of DESIGN.md ("Layout"): a lib/ layer imports values only from the layers listed
// before it (type-only imports are free), lib/open.ts is the one loose file, and lib/ imports
// nothing from the tools' folders. Every import of every lib/ file is read and checked here.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../support/helpers.ts";

/** The layers in their order; lib/open.ts comes after all of them. */
export const LAYERS = ["wire", "io", "terminal", "targets", "auth", "client", "transport", "daemon", "cli"] as const;
const OPEN = "lib/open.ts";

export interface Import {
  /** The specifier as written. */
  specifier: string;
  /** Loaded at run time (a value, a re-export, a side effect, or `import()`), not only for its types. */
  value: boolean;
  line: number;
}

// The clause between the keyword and `from` holds names, braces, commas, `*` and `as`, never `=`, `;` or a quote.
const STATIC = /^[ \t]*(import|export)\s+(type\s+)?([\w$*\s{},]*?)\s*from\s*["']([^"']+)["']/gm;
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every import of a file's text, with whether it loads a value. */
export function importsOf(text: string): Import[] {
  const lineAt = (index: number) => text.slice(0, index).split("\n").length;
  const found: Import[] = [];
  for (const match of text.matchAll(STATIC)) {
    // Only `import type` is free: `import { type A }` still loads its module under verbatimModuleSyntax.
    found.push({ specifier: match[4]!, value: !match[2], line: lineAt(match.index!) });
  }
  for (const match of text.matchAll(SIDE_EFFECT)) found.push({ specifier: match[1]!, value: true, line: lineAt(match.index!) });
  for (const match of text.matchAll(DYNAMIC)) found.push({ specifier: match[1]!, value: true, line: lineAt(match.index!) });
  return found;
}

/** A lib/ path's place in the order: its layer's index, LAYERS.length for lib/open.ts, undefined outside lib/ or loose. */
export function layerOf(path: string): number | undefined {
  if (path === OPEN) return LAYERS.length;
  const match = /^lib\/([^/]+)\//.exec(path);
  const index = match ? LAYERS.indexOf(match[1] as (typeof LAYERS)[number]) : -1;
  return index === -1 ? undefined : index;
}

/** What is wrong with one lib/ file's imports, one line each ("file:line imports X from a later layer"). */
export function violations(file: string, text: string): string[] {
  const problems: string[] = [];
  const own = layerOf(file);
  if (own === undefined)
    return [`${file} is not in a layer folder (${LAYERS.map((layer) => `lib/${layer}/`).join(", ")}) and is not ${OPEN}`];
  for (const { specifier, value, line } of importsOf(text)) {
    if (!value || !specifier.startsWith(".")) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
    if (!target.startsWith("lib/")) {
      problems.push(`${file}:${line} imports ${target}, outside lib/ (lib/ serves the tools, never the other way)`);
      continue;
    }
    const theirs = layerOf(target);
    if (theirs === undefined) problems.push(`${file}:${line} imports ${target}, which is in no layer`);
    else if (theirs > own)
      problems.push(
        `${file}:${line} imports ${target}: ${LAYERS[own] ?? "open"} may not import values from the later layer ` +
          `${LAYERS[theirs] ?? "open"}`,
      );
  }
  return problems;
}

function libFiles(dir = join(ROOT, "lib")): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return libFiles(path);
    return name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

describe("the layers of lib/", () => {
  test("every value import of every lib/ file comes from its own layer or one listed before it", () => {
    const files = libFiles();
    expect(files.length).toBeGreaterThan(50);
    const problems = files.flatMap((file) => violations(file, readFileSync(join(ROOT, file), "utf8")));
    expect(problems).toEqual([]);
  });

  test("a value import from a later layer is named with its file and line; a type-only one is free", () => {
    const planted = `import type { Target } from "../targets/target.ts";\nimport { openChannel } from "../open.ts";\n`;
    expect(violations("lib/wire/planted.ts", planted)).toEqual([
      "lib/wire/planted.ts:2 imports lib/open.ts: wire may not import values from the later layer open",
    ]);
    expect(violations("lib/io/planted.ts", `const { AuthStore } = await import("../auth/store.ts");\n`)).toEqual([
      "lib/io/planted.ts:1 imports lib/auth/store.ts: io may not import values from the later layer auth",
    ]);
    expect(violations("lib/cli/planted.ts", `import { McpProxy } from "../../proxy/core.ts";\n`)[0]).toContain("outside lib/");
    expect(violations("lib/planted.ts", "")[0]).toContain("is not in a layer folder");
    expect(
      violations(
        "lib/transport/planted.ts",
        `import { isJsonObject } from "../wire/jsonrpc.ts";\nimport { McpError } from "../client/correlator.ts";\n`,
      ),
    ).toEqual([]);
  });
});
