// The release binary (mcpkit.ts, every tool inside), compiled once per change of the sources and
// shared by every suite and every run that needs it: compiling costs ~20 s of a 2-core box.
// It lives in the checkout's node_modules/.cache/, named by a hash of what goes into it, and appears
// there only whole: compiled to a temporary name and renamed, under a lock so that parallel
// suites compile it once between them.

import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { COMPILE_FLAGS, compile, packArchive, TOOLS, writeChecksums } from "../../build.ts";
import { withLock } from "../../lib/io/file-lock.ts";
import { ROOT, WAIT_GUARD_MS } from "./helpers.ts";

const CACHE = join(ROOT, "node_modules", ".cache", "mcpkit-binary");
/** What does not go into the binary: the tests, benches, notes and what git ignores. */
const NOT_SOURCES = new Set(["node_modules", "test", "bench", "dist", ".git", ".ci"]);
/** A compile on a loaded box can take minutes; a holder older than this is gone, not slow. */
const LOCK_MAX_AGE_MS = 10 * 60_000;

/** A digest of every source file, the dependencies' lock, bun's version and the compile flags. */
export function sourcesHash(): string {
  const hash = createHash("sha256").update(`${Bun.version}\n${COMPILE_FLAGS.join(" ")}\n`);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (NOT_SOURCES.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && /\.(ts|json)$/.test(entry.name)) hash.update(`${relative(ROOT, path)}\n`).update(readFileSync(path));
    }
  };
  walk(ROOT);
  return hash.digest("hex").slice(0, 16);
}

/**
 * The folder holding the compiled `mcpkit` and a link named after each tool (the binary runs the tool
 * it is invoked as, as install.sh sets it up). Compiles only when this hash has no binary yet.
 */
export async function compiledTools(): Promise<string> {
  const dir = join(CACHE, sourcesHash());
  const binary = join(dir, "mcpkit");
  if (existsSync(join(dir, "ready"))) return dir;
  mkdirSync(dir, { recursive: true });
  await withLock(
    join(CACHE, `${relative(CACHE, dir)}.lock`),
    { maxAgeMs: LOCK_MAX_AGE_MS, dirVariable: "the test cache", waitMs: 2 * WAIT_GUARD_MS, heartbeatMs: 10_000 },
    async () => {
      if (existsSync(join(dir, "ready"))) return;
      const draft = `${binary}.${process.pid}.partial`;
      try {
        await compile("mcpkit.ts", draft);
        renameSync(draft, binary);
      } finally {
        rmSync(draft, { force: true });
      }
      for (const tool of TOOLS) {
        rmSync(join(dir, tool), { force: true });
        symlinkSync("mcpkit", join(dir, tool));
      }
      // The marker comes last: a folder without it is one a killed run left half made.
      const marker = `${join(dir, "ready")}.${process.pid}`;
      writeFileSync(marker, "");
      renameSync(marker, join(dir, "ready"));
      pruneOthers(dir);
    },
  );
  return dir;
}

/** Each binary is ~100 MB: the ones of earlier sources go once nothing could still be running them. */
function pruneOthers(kept: string): void {
  for (const entry of readdirSync(CACHE, { withFileTypes: true })) {
    const path = join(CACHE, entry.name);
    if (!entry.isDirectory() || path === kept) continue;
    const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > LOCK_MAX_AGE_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** The release build.ts makes for this machine, from the shared binary: its archive and SHA256SUMS in `dir`. */
export async function packRelease(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeChecksums(dir, [packArchive(join(await compiledTools(), "mcpkit"), "linux-x64", dir, true)]);
}

/** Serves the files under `root` on loopback HTTP, as a release host would (install.sh's MCPKIT_DOWNLOAD_URL). */
export function serveFiles(root: string): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = join(root, new URL(request.url).pathname);
      return existsSync(path) && lstatSync(path).isFile() ? new Response(Bun.file(path)) : new Response("not found", { status: 404 });
    },
  });
}

// `bun test/support/binary.ts` (npm test, before the suites): compiles this checkout's tools if no run has yet, and
// prints their folder for MCPKIT_TEST_BINARIES.
if (import.meta.main) process.stdout.write(`${await compiledTools()}\n`);
