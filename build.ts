#!/usr/bin/env bun
// Compiles the tools into standalone binaries. Today: every entry script for this machine, into
// dist/. The release matrix (all OS targets, archives, SHA256SUMS) is the distribution issue's.
// The version needs no define: each tool imports package.json, which the bundler inlines.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const TOOLS = ["mcp-inspect", "mcp-proxy", "mcp-daemon"] as const;

/**
 * Release flags: bytecode for start-up, ESM, minified; and no .env or bunfig.toml autoloading,
 * so a stray file in the user's working directory can never run code inside our binary.
 */
export const COMPILE_FLAGS = [
  "--bytecode",
  "--format=esm",
  "--minify",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
];

async function main(): Promise<void> {
  const outdir = join(import.meta.dir, "dist");
  mkdirSync(outdir, { recursive: true });
  for (const tool of TOOLS) {
    const outfile = join(outdir, tool);
    const child = Bun.spawn([process.execPath, "build", "--compile", ...COMPILE_FLAGS, join(import.meta.dir, `${tool}.ts`), "--outfile", outfile], {
      stdout: "ignore",
      stderr: "inherit",
    });
    if ((await child.exited) !== 0) {
      process.stderr.write(`error: compiling ${tool} failed\n`);
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`built ${outfile} (${(Bun.file(outfile).size / 1024 / 1024).toFixed(1)} MB)\n`);
  }
}

if (import.meta.main) await main();
