#!/usr/bin/env bun
// Builds the release: for each target, one executable with every tool inside (mcpkit.ts, which
// runs the tool it is invoked as), packed as one archive, and SHA256SUMS over all archives.
//   bun build.ts                          every target, into dist/release/
//   bun build.ts --target bun-linux-x64   just that one (repeatable)
//   bun build.ts --standalone             each tool's own binary for this machine, into dist/
// The target runtimes come from the npm registry (bun fetches them itself).
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tarGz, zip } from "./build/archive.ts";
import pkg from "./package.json" with { type: "json" };

export const TOOLS = ["mcp-inspect", "mcp-proxy", "mcp-daemon", "mcp-host"] as const;

/** Bun target -> the archive's platform name (what install.sh asks for). */
export const TARGETS: Record<string, string> = {
  "bun-linux-x64": "linux-x64",
  "bun-linux-x64-baseline": "linux-x64-baseline",
  "bun-linux-arm64": "linux-arm64",
  "bun-linux-x64-musl": "linux-x64-musl",
  "bun-darwin-x64": "darwin-x64",
  "bun-darwin-arm64": "darwin-arm64",
  "bun-windows-x64": "windows-x64",
};

/**
 * How many times JavaScriptCore's tier-up thresholds are scaled at start-up; lib/io/runtime.ts's
 * normalJitAfterStartUp puts them back for a process that lives on. Measured on the compiled mcpkit (CPU of one
 * run): list-tools against the reference server 256 ms at 1, 217 at 4, 200 at 20, 195 at 100; `mcp-inspect test`
 * 611, 392, 352; a 20 MB result the same at every scale.
 */
const STARTUP_JIT_POLICY = 100;

/**
 * Release flags: bytecode and a reluctant JIT for start-up, code splitting, ESM, minified; and no .env or bunfig.toml autoloading,
 * so a stray file in the user's working directory can never run code inside our binary. The
 * version needs no define: each tool imports package.json, which the bundler inlines.
 */
export const COMPILE_FLAGS = [
  "--bytecode",
  `--compile-jit-policy=${STARTUP_JIT_POLICY}`,
  // One chunk per lazily imported tool: without it every tool's code (the host's vendor SDKs
  // included) is loaded at every start, which cost mcp-inspect 4-5 ms of its ~15.
  "--splitting",
  "--format=esm",
  "--minify",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
];

/** Archives carry a fixed date, so the same sources give the same bytes. */
const ARCHIVE_MTIME = Date.UTC(2026, 0, 1);

export async function compile(entry: string, outfile: string, target?: string): Promise<void> {
  const args = [
    process.execPath,
    "build",
    "--compile",
    ...COMPILE_FLAGS,
    ...(target ? [`--target=${target}`] : []),
    join(import.meta.dir, entry),
    "--outfile",
    outfile,
  ];
  const child = Bun.spawn(args, { stdout: "ignore", stderr: "pipe" });
  if ((await child.exited) !== 0)
    throw new Error(`compiling ${entry}${target ? ` for ${target}` : ""} failed:\n${await new Response(child.stderr).text()}`);
}

const megabytes = (path: string) => `${(statSync(path).size / 1024 / 1024).toFixed(1)} MB`;

/** Builds one target's archive; returns its file name. */
export async function buildTarget(target: string, outdir: string): Promise<string> {
  const platform = TARGETS[target];
  if (!platform) throw new Error(`unknown target ${target} (known: ${Object.keys(TARGETS).join(", ")})`);
  const windows = platform.startsWith("windows");
  const work = join(outdir, `.work-${platform}`);
  mkdirSync(work, { recursive: true });
  const binary = join(work, windows ? "mcpkit.exe" : "mcpkit");
  await compile("mcpkit.ts", binary, target);
  const name = packArchive(binary, platform, outdir);
  rmSync(work, { recursive: true, force: true });
  return name;
}

/**
 * Packs a compiled mcpkit as the archive install.sh downloads for `platform`; returns its file name. `fast` trades
 * size for time (a test's archive: gzip -9 of the 120 MB binary takes seconds of CPU, and the bytes are checked the same).
 */
export function packArchive(binary: string, platform: string, outdir: string, fast = false): string {
  const windows = platform.startsWith("windows");
  const entries = [{ name: windows ? "mcpkit.exe" : "mcpkit", data: readFileSync(binary), executable: true }];
  const name = `mcpkit-${platform}${windows ? ".zip" : ".tar.gz"}`;
  writeFileSync(join(outdir, name), windows ? zip(entries, ARCHIVE_MTIME) : tarGz(entries, ARCHIVE_MTIME, fast ? 1 : 9));
  return name;
}

export function writeChecksums(outdir: string, names: string[]): void {
  const lines = names.sort().map(
    (name) =>
      `${createHash("sha256")
        .update(readFileSync(join(outdir, name)))
        .digest("hex")}  ${name}`,
  );
  writeFileSync(join(outdir, "SHA256SUMS"), `${lines.join("\n")}\n`);
}

async function main(argv: string[]): Promise<void> {
  const root = import.meta.dir;
  if (argv.includes("--standalone")) {
    const outdir = join(root, "dist");
    mkdirSync(outdir, { recursive: true });
    for (const tool of TOOLS) {
      const outfile = join(outdir, tool);
      await compile(`${tool}.ts`, outfile);
      process.stderr.write(`built ${outfile} (${megabytes(outfile)})\n`);
    }
    return;
  }
  const targets: string[] = [];
  let outdir = join(root, "dist", "release");
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--target") targets.push(argv[++i] ?? "");
    else if (argv[i] === "--outdir") outdir = argv[++i] ?? outdir;
    else throw new Error(`unknown option ${argv[i]} (use --target <t>, --outdir <dir>, --standalone)`);
  }
  mkdirSync(outdir, { recursive: true });
  const names: string[] = [];
  for (const target of targets.length > 0 ? targets : Object.keys(TARGETS)) {
    const name = await buildTarget(target, outdir);
    names.push(name);
    process.stderr.write(`${name}  ${megabytes(join(outdir, name))}\n`);
  }
  writeChecksums(outdir, names);
  chmodSync(join(outdir, "SHA256SUMS"), 0o644);
  process.stderr.write(`mcpkit ${pkg.version}: ${names.length} archive(s) and SHA256SUMS in ${outdir}\n`);
}

if (import.meta.main) {
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
