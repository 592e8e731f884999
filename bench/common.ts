// What the bench scripts share: compiling entry scripts the way releases are compiled, timing
// whole processes, reading a process's peak RSS, and printing one table.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../build.ts";

export const ROOT = join(import.meta.dir, "..");
export const BUN = process.execPath;

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), "mcpkit-bench-"));
}

/** Compiles an entry script into a standalone binary with the release flags (from another checkout with `root`). */
export async function compile(entry: string, outfile: string, extraFlags: string[] = [], root = ROOT): Promise<string> {
  const child = Bun.spawn([BUN, "build", "--compile", ...COMPILE_FLAGS, ...extraFlags, join(root, entry), "--outfile", outfile], {
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if ((await child.exited) !== 0) throw new Error(`compiling ${entry} failed: ${await new Response(child.stderr).text()}`);
  return outfile;
}

export interface Run {
  ms: number;
  peakRssKb?: number;
  stdout: string;
  code: number;
}

/**
 * Runs a command to its exit and times it. With `watchRss`, polls /proc for the process's own
 * high-water RSS (VmHWM), which, unlike wait4's maxrss, leaves its children out.
 */
export async function timeRun(
  command: string[],
  options: { stdinFile?: string; watchRss?: boolean; env?: Record<string, string> } = {},
): Promise<Run> {
  const started = performance.now();
  const child = Bun.spawn(command, {
    // Bun.spawn's default is the environment the process started with, not process.env as it is now:
    // bench/daemon.ts's MCPKIT_DAEMON_DIR would otherwise miss its children (and its last `stop`
    // would stop the user's own daemon).
    env: options.env ?? { ...process.env },
    stdin: options.stdinFile ? Bun.file(options.stdinFile) : "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  let peak = 0;
  const sample = () => {
    const hwm = readHwm(child.pid);
    if (hwm > peak) peak = hwm;
  };
  const poller = options.watchRss ? setInterval(sample, 1) : undefined;
  const stdout = new Response(child.stdout).text().then((text) => {
    // The result is out: the process is now only closing down, its peak already reached.
    if (options.watchRss) sample();
    return text;
  });
  const code = await child.exited;
  const ms = performance.now() - started;
  clearInterval(poller);
  return { ms, code, stdout: await stdout, ...(options.watchRss ? { peakRssKb: peak } : {}) };
}

export function readHwm(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = status.match(/VmHWM:\s+(\d+) kB/);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  console.log(`\n${title}\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of cells.slice(1)) console.log(line(row));
}

/** `--runs N` from argv, at least `least`, else `fallback`; a bad value ends the bench with one line. */
export function runsFlag(fallback: number, least: number): number {
  const at = process.argv.indexOf("--runs");
  const runs = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(runs) || runs < least) {
    process.stderr.write(`error: --runs takes a whole number of at least ${least}\n`);
    process.exit(1);
  }
  return runs;
}

/**
 * What a compiled tool's start-up is measured against: the release binary (every tool in one, run
 * through a link named mcp-inspect) and a script that only prints "ok", compiled as a user would.
 */
export async function compileFloors(dir: string): Promise<{ released: string; trivial: string }> {
  mkdirSync(join(dir, "release"));
  await compile("mcpkit.ts", join(dir, "release", "mcpkit"));
  symlinkSync("mcpkit", join(dir, "release", "mcp-inspect"));
  writeFileSync(join(dir, "trivial.ts"), 'console.log("ok");\n');
  const trivial = join(dir, "trivial");
  const child = Bun.spawn([BUN, "build", "--compile", "--bytecode", "--minify", join(dir, "trivial.ts"), "--outfile", trivial], {
    stdout: "ignore",
    stderr: "ignore",
  });
  if ((await child.exited) !== 0) throw new Error("compiling the trivial script failed");
  return { released: join(dir, "release", "mcp-inspect"), trivial };
}
