#!/usr/bin/env bun
// What does mcp-daemon buy? One run, side by side, on compiled binaries:
//   - `mcp-inspect call-tool echo` cold (a direct spawn every call) vs warm (--stateful, the
//     daemon already holding the session), against the reference fixture with a 300 ms start-up
//     and with none;
//   - the bare start-up of `mcp-inspect --version`, the floor any call pays;
//   - the daemon's RSS while it holds 20 sessions (their server processes not counted).
// Usage: bun bench/daemon.ts [--runs N]
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { compile, median, percentile, printTable, scratchDir, timeRun } from "./common.ts";

const RUNS_DEFAULT = 15;
const SESSIONS_FOR_RSS = 20;
const GOALS = { warmSpeedup300: 10, warmVsVersion: 2, rssMb: 80 };

const runsFlag = process.argv.indexOf("--runs");
const runs = runsFlag === -1 ? RUNS_DEFAULT : Number(process.argv[runsFlag + 1]);
if (!Number.isInteger(runs) || runs < 3) {
  process.stderr.write("error: --runs takes a whole number of at least 3\n");
  process.exit(1);
}

function procMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return match ? Number(match[1]) / 1024 : 0;
}

const dir = scratchDir();
const daemonDir = join(dir, "d");
process.env.MCPKIT_DAEMON_DIR = daemonDir;
try {
  process.stderr.write("compiling mcp-inspect, mcp-daemon and the fixture...\n");
  const inspect = await compile("mcp-inspect.ts", join(dir, "mcp-inspect"));
  const daemon = await compile("mcp-daemon.ts", join(dir, "mcp-daemon"));
  const fixture = await compile("host/reference-server.ts", join(dir, "reference-server"));

  const call = (delayMs: number, stateful: boolean) => [
    inspect, "call-tool", "echo", "message=bench", ...(stateful ? ["--stateful"] : []), "--env", `FIXTURE_STARTUP_DELAY_MS=${delayMs}`, "--", fixture,
  ];
  const check = (stdout: string) => {
    if (!JSON.parse(stdout).success) throw new Error(`call failed: ${stdout.slice(0, 300)}`);
  };
  // Warm up the page cache and let the daemon open both sessions.
  for (const delay of [0, 300]) {
    check((await timeRun(call(delay, false))).stdout);
    check((await timeRun(call(delay, true))).stdout);
  }

  const samples: Record<string, number[]> = {};
  const add = (key: string, ms: number) => (samples[key] ??= []).push(ms);
  for (let i = 0; i < runs; i++) {
    for (const delay of [0, 300]) {
      for (const stateful of [false, true]) {
        const run = await timeRun(call(delay, stateful));
        check(run.stdout);
        add(`${delay} ${stateful ? "warm" : "cold"}`, run.ms);
      }
    }
    add("version", (await timeRun([inspect, "--version"])).ms);
  }
  const row = (name: string, key: string) => [name, median(samples[key]!).toFixed(1), percentile(samples[key]!, 90).toFixed(1)];
  printTable(`mcp-inspect call-tool echo, ${runs} interleaved runs`, ["what", "median ms", "p90 ms"], [
    row("cold, server with 300 ms start-up", "300 cold"),
    row("warm (--stateful), same server", "300 warm"),
    row("cold, server with no start-up delay", "0 cold"),
    row("warm (--stateful), same server", "0 warm"),
    row("mcp-inspect --version", "version"),
  ]);
  const m = (key: string) => median(samples[key]!);
  console.log(`\nwarm vs cold, 300 ms server: ${(m("300 cold") / m("300 warm")).toFixed(1)}x faster (goal >= ${GOALS.warmSpeedup300}x)`);
  console.log(`warm vs cold, no-delay server: ${(m("0 cold") / m("0 warm")).toFixed(1)}x faster`);
  console.log(`warm call vs bare start-up: ${(m("0 warm") / m("version")).toFixed(2)}x mcp-inspect --version (goal < ${GOALS.warmVsVersion}x)`);

  // 20 sessions: 20 distinct definitions (the env differs), each with its own server process.
  await Promise.all(
    Array.from({ length: SESSIONS_FOR_RSS }, (_, i) =>
      timeRun([inspect, "ping", "--stateful", "--env", `SESSION=${i}`, "--", fixture]).then((r) => check(r.stdout)),
    ),
  );
  const status = JSON.parse((await timeRun([daemon, "status", "--json"])).stdout);
  console.log(`\ndaemon with ${status.sessions.length} sessions: RSS ${procMb(status.pid, "VmRSS").toFixed(1)} MB now, ${procMb(status.pid, "VmHWM").toFixed(1)} MB peak (goal < ${GOALS.rssMb} MB; servers not counted)`);
} finally {
  await timeRun([join(dir, "mcp-daemon"), "stop"]).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
