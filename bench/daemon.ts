#!/usr/bin/env bun
// What does mcp-daemon buy? One run, side by side, on compiled binaries:
//   - `mcp-inspect call-tool echo` cold (a direct spawn every call) vs warm (--stateful, the
//     daemon already holding the session), against the reference fixture with a 300 ms start-up
//     and with none; the warm call also through the release binary (mcpkit run as mcp-inspect);
//   - the bare start-up of `mcp-inspect --version` and of a trivial compiled bun script, the floor
//     any call pays;
//   - a warm list-tools against bench/raw-server.mjs (node, no SDK), five of them at once
//     on five sessions (five processes), and `mcp-inspect grep` over those five servers (one process);
//   - at scale: the daemon's own peak RSS holding 100 warm raw-server sessions (their server
//     processes not counted), a warm list-tools among them, and grep over 50 of them.
//     Each server holds 3 pipes in the daemon, so 100 sessions need about 300 descriptors beyond its
//     own: the usual `ulimit -n` of 1024 is enough.
//   - with --against DIR, the warm call also through another checkout's mcp-inspect (main, say),
//     in the same turns and on the same daemon: an A/B free of the machine's drift.
//   - the goal's ratios (warm call, release binary and --against's, each to the trivial script) are
//     taken side by side: the runs adjacent, their order alternating, the median of each round's ratio.
// Usage: bun bench/daemon.ts [--runs N] [--against DIR]
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile, compileFloors, median, percentile, printTable, ROOT, runsFlag, scratchDir, timeRun } from "./common.ts";

const RUNS_DEFAULT = 15;
const SESSIONS_AT_SCALE = 100;
const GREP_AT_SCALE = 50;
/**
 * Issue 23: a warm call at most 2x a trivial compiled script; among 100 sessions at most 1.1x one
 * among few; grep over 50 warm sessions at most 2x one warm call; the daemon's own peak RSS with
 * 100 sessions at most 120 MB.
 */
const GOALS = { warmSpeedup300: 10, warmVsTrivial: 2, fiveVsOne: 2, scaleRssMb: 120, warmAtScale: 1.1, grepAtScale: 2 };
const PARALLEL_SESSIONS = 5;

const runs = runsFlag(RUNS_DEFAULT, 3);
const againstFlag = process.argv.indexOf("--against");
const against = againstFlag === -1 ? undefined : process.argv[againstFlag + 1];
if (against !== undefined && !existsSync(join(against, "mcp-inspect.ts"))) {
  process.stderr.write(`error: --against takes a checkout of mcpkit (no mcp-inspect.ts in ${against})\n`);
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
  const fixture = await compile("host/reference/main.ts", join(dir, "reference-server"));
  const { released, trivial } = await compileFloors(dir);
  const base = against === undefined ? undefined : await compile("mcp-inspect.ts", join(dir, "base-inspect"), [], against);

  const call = (delayMs: number, stateful: boolean, binary = inspect) => [
    binary,
    "call-tool",
    "echo",
    "message=bench",
    ...(stateful ? ["--stateful"] : []),
    "--env",
    `FIXTURE_STARTUP_DELAY_MS=${delayMs}`,
    "--",
    fixture,
  ];
  const check = (stdout: string) => {
    if (!JSON.parse(stdout).success) throw new Error(`call failed: ${stdout.slice(0, 300)}`);
  };
  const node = Bun.which("node");
  if (!node) throw new Error("no node on PATH: the raw server runs on node");
  const rawList = (session: number, binary = inspect) => [
    binary,
    "list-tools",
    "--stateful",
    "--env",
    `SESSION=${session}`,
    "--",
    node,
    join(ROOT, "bench/raw-server.mjs"),
  ];
  // The same sessions as config entries, for grep.
  const entry = (session: number) => ({ command: node, args: [join(ROOT, "bench/raw-server.mjs")], env: { SESSION: String(session) } });
  const grepOver = (count: number) => {
    const config = join(dir, `raw-${count}.json`);
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: Object.fromEntries(Array.from({ length: count }, (_, session) => [`raw${session}`, entry(session)])) }),
    );
    return [inspect, "grep", "echo", "--config", config, "--stateful"];
  };
  const grep = grepOver(PARALLEL_SESSIONS);
  const grepWorks = await timeRun(grep).then(
    (run) => run.code === 0 && JSON.parse(run.stdout).data?.matches?.length === PARALLEL_SESSIONS,
    () => false,
  );
  // Warm up the page cache and let the daemon open every session.
  for (const delay of [0, 300]) {
    check((await timeRun(call(delay, false))).stdout);
    check((await timeRun(call(delay, true))).stdout);
  }
  check((await timeRun(call(0, true, released))).stdout);
  if (base) check((await timeRun(call(0, true, base))).stdout);
  for (let session = 0; session < PARALLEL_SESSIONS; session++) check((await timeRun(rawList(session))).stdout);

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
    const releasedWarm = await timeRun(call(0, true, released));
    check(releasedWarm.stdout);
    add("released warm", releasedWarm.ms);
    if (base) {
      const baseWarm = await timeRun(call(0, true, base));
      check(baseWarm.stdout);
      add("base warm", baseWarm.ms);
    }
    add("version", (await timeRun([inspect, "--version"])).ms);
    add("trivial", (await timeRun([trivial])).ms);
    const one = await timeRun(rawList(0));
    check(one.stdout);
    add("raw warm", one.ms);
    const started = performance.now();
    const fiveRuns = await Promise.all(Array.from({ length: PARALLEL_SESSIONS }, (_, session) => timeRun(rawList(session))));
    add("raw five", performance.now() - started);
    for (const run of fiveRuns) check(run.stdout);
    if (grepWorks) add("grep five", (await timeRun(grep)).ms);
    // Side by side, in an order that alternates: each ratio below is the median of the rounds' own
    // ratios, which the load of a shared machine moves far less than any one median.
    const sideBySide: [string, string[]][] = [
      ["side warm", call(0, true)],
      ["side trivial", [trivial]],
      ["side released", call(0, true, released)],
      ...(base ? [["side base", call(0, true, base)] as [string, string[]]] : []),
    ];
    for (const [key, command] of i % 2 ? sideBySide.reverse() : sideBySide) {
      const run = await timeRun(command);
      if (key !== "side trivial") check(run.stdout);
      add(key, run.ms);
    }
  }
  /** The median over rounds of each round's a/b. */
  const roundRatio = (a: string, b: string) => median(samples[a]!.map((ms, round) => ms / samples[b]![round]!));
  const row = (name: string, key: string) => [name, median(samples[key]!).toFixed(1), percentile(samples[key]!, 90).toFixed(1)];
  printTable(
    `mcp-inspect call-tool echo, ${runs} interleaved runs`,
    ["what", "median ms", "p90 ms"],
    [
      row("cold, server with 300 ms start-up", "300 cold"),
      row("warm (--stateful), same server", "300 warm"),
      row("cold, server with no start-up delay", "0 cold"),
      row("warm (--stateful), same server", "0 warm"),
      row("warm (--stateful), same server, release binary (mcpkit via link)", "released warm"),
      ...(base ? [row("warm (--stateful), same server, --against's mcp-inspect", "base warm")] : []),
      row("mcp-inspect --version", "version"),
      row("trivial compiled bun script", "trivial"),
      row("warm list-tools, raw node server", "raw warm"),
      row(`${PARALLEL_SESSIONS} warm list-tools at once, ${PARALLEL_SESSIONS} raw-server sessions`, "raw five"),
      ...(grepWorks ? [row(`mcp-inspect grep --stateful over the same ${PARALLEL_SESSIONS} servers`, "grep five")] : []),
    ],
  );
  const m = (key: string) => median(samples[key]!);
  console.log(`\nwarm vs cold, 300 ms server: ${(m("300 cold") / m("300 warm")).toFixed(1)}x faster (goal >= ${GOALS.warmSpeedup300}x)`);
  console.log(`warm vs cold, no-delay server: ${(m("0 cold") / m("0 warm")).toFixed(1)}x faster`);
  console.log(
    `warm call vs a trivial compiled script: ${roundRatio("side warm", "side trivial").toFixed(2)}x round by round ` +
      `(goal <= ${GOALS.warmVsTrivial}x), ${(m("0 warm") / m("trivial")).toFixed(2)}x of the medians; the ` +
      `release binary's ${roundRatio("side released", "side trivial").toFixed(2)}x round by round; ` +
      `vs mcp-inspect --version ${(m("0 warm") / m("version")).toFixed(2)}x; ` +
      `warm list-tools on the raw server: ${(m("raw warm") / m("trivial")).toFixed(2)}x the trivial script`,
  );
  if (base)
    console.log(
      `A/B: the warm call ${m("0 warm").toFixed(1)} ms, --against's ${m("base warm").toFixed(1)} ms ` +
        `(${(m("base warm") / m("trivial")).toFixed(2)}x the trivial script); side by side, round by round: ours ` +
        `${roundRatio("side warm", "side base").toFixed(3)}x --against's, which is ` +
        `${roundRatio("side base", "side trivial").toFixed(2)}x the trivial script`,
    );
  console.log(
    `${PARALLEL_SESSIONS} warm list-tools at once vs one: ${(m("raw five") / m("raw warm")).toFixed(2)}x (${PARALLEL_SESSIONS} ` +
      `processes on this machine's cores)`,
  );
  if (grepWorks)
    console.log(
      `grep over ${PARALLEL_SESSIONS} stateful servers vs one warm list-tools: ${(m("grep five") / m("raw warm")).toFixed(2)}x (goal < ` +
        `${GOALS.fiveVsOne}x)`,
    );
  else console.log("grep over five stateful servers: not measured (mcp-inspect grep did not answer as expected)");

  // At scale: 100 distinct definitions (the env differs), each with its own raw server process.
  const before = await timeRun(grepOver(SESSIONS_AT_SCALE));
  if (before.code !== 0) throw new Error(`grep over ${SESSIONS_AT_SCALE} sessions failed: ${before.stdout.slice(0, 300)}`);
  const status = JSON.parse((await timeRun([daemon, "status", "--json"])).stdout);
  const grepScale = grepOver(GREP_AT_SCALE);
  const scale: Record<string, number[]> = { one: [], grep: [] };
  for (let i = 0; i < runs; i++) {
    const one = await timeRun(rawList(i % SESSIONS_AT_SCALE));
    check(one.stdout);
    scale.one!.push(one.ms);
    const grepped = await timeRun(grepScale);
    if (JSON.parse(grepped.stdout).data?.matches?.length !== GREP_AT_SCALE)
      throw new Error(`grep over ${GREP_AT_SCALE}: ${grepped.stdout.slice(0, 300)}`);
    scale.grep!.push(grepped.ms);
  }
  const scaleRss = procMb(status.pid, "VmHWM");
  printTable(
    `at scale: the daemon holding ${status.sessions.length} sessions, ${runs} runs`,
    ["what", "median ms", "p90 ms"],
    [
      ["warm list-tools, raw node server, among them", median(scale.one!).toFixed(1), percentile(scale.one!, 90).toFixed(1)],
      [`mcp-inspect grep --stateful over ${GREP_AT_SCALE} of them`, median(scale.grep!).toFixed(1), percentile(scale.grep!, 90).toFixed(1)],
    ],
  );
  console.log(
    `\ndaemon with ${status.sessions.length} sessions: RSS ${procMb(status.pid, "VmRSS").toFixed(1)} MB now, ` +
      `${scaleRss.toFixed(1)} MB peak (goal <= ${GOALS.scaleRssMb} MB; servers not counted)`,
  );
  console.log(
    `warm list-tools among ${status.sessions.length} sessions vs among ${PARALLEL_SESSIONS + 2}: ` +
      `${(median(scale.one!) / m("raw warm")).toFixed(2)}x ` +
      `(goal <= ${GOALS.warmAtScale}x); grep over ${GREP_AT_SCALE} vs one warm list-tools: ` +
      `${(median(scale.grep!) / m("raw warm")).toFixed(2)}x (goal <= ${GOALS.grepAtScale}x)`,
  );
} finally {
  await timeRun([join(dir, "mcp-daemon"), "stop"]).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
