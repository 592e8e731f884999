// README.md and ARCHITECTURE.md name the suites and files that prove what they say: every such path
// must exist (the suites moved into tiers once, and the README kept naming the old files).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/helpers.ts";

const DOCUMENTS = ["README.md", "ARCHITECTURE.md"];
/** A repository path: one of the product's top folders, not inside a URL or another path. */
const REPO_PATH = /(?<![\w/.:-])((?:test|lib|bench|proxy|inspect|host|daemon|oauth)\/[\w./-]*[\w/])/g;

test("every repository path README.md and ARCHITECTURE.md name exists", () => {
  const missing: string[] = [];
  for (const document of DOCUMENTS) {
    const text = readFileSync(join(ROOT, document), "utf8");
    for (const [, path] of text.matchAll(REPO_PATH)) if (!existsSync(join(ROOT, path!))) missing.push(`${document}: ${path}`);
  }
  expect(missing).toEqual([]);
});
