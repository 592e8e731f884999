#!/usr/bin/env bun
// How much does mcp-inspect add on top of the server it inspects? Everything below is measured in
// this one run, interleaved, on compiled binaries:
//   - the compiled reference fixture's own start-to-exit: idle (stdin closed at once), and fed
//     the very requests mcp-inspect sends (server/discover + tools/list) from a file;
//   - `mcp-inspect list-tools -- <fixture>`: wall time, and its own peak RSS (children excluded);
//   - `mcp-inspect --version` and a trivial compiled script: the bare start-up floor;
//   - the floor of a client: `list-tools` against bench/raw-server.mjs (plain node, no SDK) beside that
//     server's own runs fed the same requests from a file (one just before the call, one just after), in
//     the environment mcp-inspect gives it; the row is the median of each call's time over those runs.
//     mcp-inspect spawns such a server before it loads the rest of itself, so the two start-ups overlap.
//   - with --against DIR, another checkout's mcp-inspect (main, say) in the same turns, on the
//     fixture and on the raw server: an A/B free of the machine's drift.
// Usage: bun bench/inspect.ts [--runs N] [--against DIR]
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serverEnvironment } from "../lib/transport/environment.ts";
import { compile, compileFloors, median, percentile, printTable, ROOT, runsFlag, scratchDir, timeRun } from "./common.ts";

const RUNS_DEFAULT = 30;
const GOAL_OVERHEAD_RATIO = 0.5;
const GOAL_PEAK_RSS_MB = 60;
/**
 * list-tools against a raw node server, over that server's own run fed the same requests, is what
 * the client itself adds: at most this many times a trivial compiled script's whole run (issue 23).
 */
const GOAL_RAW_OVER_TRIVIAL = 1.5;

const runs = runsFlag(RUNS_DEFAULT, 3);
const againstFlag = process.argv.indexOf("--against");
const against = againstFlag === -1 ? undefined : process.argv[againstFlag + 1];
if (against !== undefined && !existsSync(join(against, "mcp-inspect.ts"))) {
  process.stderr.write(`error: --against takes a checkout of mcpkit (no mcp-inspect.ts in ${against})\n`);
  process.exit(1);
}

const dir = scratchDir();
try {
  process.stderr.write("compiling the fixture, mcp-inspect and a trivial script...\n");
  const fixture = await compile("host/reference/main.ts", join(dir, "reference-server"));
  const inspect = await compile("mcp-inspect.ts", join(dir, "mcp-inspect"));
  const { released, trivial } = await compileFloors(dir);
  const base = against === undefined ? undefined : await compile("mcp-inspect.ts", join(dir, "base-inspect"), [], against);

  // Exactly what mcp-inspect sends, so the fixture does the same work without any client.
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const requests = join(dir, "requests.jsonl");
  writeFileSync(
    requests,
    `${[
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } }),
    ].join("\n")}\n`,
  );
  const idle = join(dir, "empty");
  writeFileSync(idle, "");
  const node = Bun.which("node");
  if (!node) throw new Error("no node on PATH: the raw server runs on node");
  const raw = [node, join(ROOT, "bench/raw-server.mjs")];

  const samples: Record<string, number[]> = {
    idle: [],
    fed: [],
    inspect: [],
    version: [],
    trivial: [],
    rss: [],
    released: [],
    releasedVersion: [],
    rawFed: [],
    rawInspect: [],
    rawOverFed: [],
    rawReleased: [],
    rawReleasedOverFed: [],
    baseInspect: [],
    baseRawInspect: [],
    baseRawInspectOverFed: [],
  };
  /** A client's list-tools on the raw server, and its time over the server's own fed runs just before and after it. */
  const rawOverFed = async (key: string, client: string) => {
    const before = await timeRun(raw, { stdinFile: requests, env: serverEnvironment() });
    const listed = await timeRun([client, "list-tools", "--", ...raw]);
    const after = await timeRun(raw, { stdinFile: requests, env: serverEnvironment() });
    return { [key]: listed.ms, [`${key}OverFed`]: listed.ms - (before.ms + after.ms) / 2 };
  };
  const once = async () => {
    const fed = await timeRun([fixture], { stdinFile: requests });
    if (fed.stdout.trim().split("\n").length !== 2) throw new Error("the fixture did not answer both requests");
    const listed = await timeRun([inspect, "list-tools", "--", fixture], { watchRss: true });
    if (listed.code !== 0 || !JSON.parse(listed.stdout).success) throw new Error(`mcp-inspect failed: ${listed.stdout.slice(0, 300)}`);
    const viaRelease = await timeRun([released, "list-tools", "--", fixture]);
    if (viaRelease.code !== 0) throw new Error(`the release binary failed: ${viaRelease.stdout.slice(0, 300)}`);
    // The raw server gets what mcp-inspect would give it: the allow-listed environment.
    const rawFed = await timeRun(raw, { stdinFile: requests, env: serverEnvironment() });
    if (rawFed.stdout.trim().split("\n").length !== 2) throw new Error("the raw server did not answer both requests");
    const rawInspect = await timeRun([inspect, "list-tools", "--", ...raw]);
    if (rawInspect.code !== 0) throw new Error(`mcp-inspect failed on the raw server: ${rawInspect.stdout.slice(0, 300)}`);
    // The server's run again, so that each call is set against the server's runs on either side of it.
    const rawFedAfter = await timeRun(raw, { stdinFile: requests, env: serverEnvironment() });
    return {
      idle: (await timeRun([fixture], { stdinFile: idle })).ms,
      fed: fed.ms,
      inspect: listed.ms,
      rss: listed.peakRssKb! / 1024,
      version: (await timeRun([inspect, "--version"])).ms,
      trivial: (await timeRun([trivial])).ms,
      released: viaRelease.ms,
      releasedVersion: (await timeRun([released, "--version"])).ms,
      rawFed: rawFed.ms,
      rawInspect: rawInspect.ms,
      rawOverFed: rawInspect.ms - (rawFed.ms + rawFedAfter.ms) / 2,
      ...(await rawOverFed("rawReleased", released)),
      ...(base
        ? {
            baseInspect: (await timeRun([base, "list-tools", "--", fixture])).ms,
            ...(await rawOverFed("baseRawInspect", base)),
          }
        : {}),
    };
  };
  await once(); // warm the page cache
  for (let i = 0; i < runs; i++) {
    const sample = await once();
    for (const [key, value] of Object.entries(sample)) samples[key]!.push(value);
  }

  const row = (name: string, key: string, unit = "ms") => [
    name,
    median(samples[key]!).toFixed(1),
    percentile(samples[key]!, 90).toFixed(1),
    unit,
  ];
  printTable(
    `mcp-inspect list-tools vs the compiled reference fixture, ${runs} interleaved runs`,
    ["what", "median", "p90", "unit"],
    [
      row("fixture start-to-exit, idle", "idle"),
      row("fixture start-to-exit, fed discover+tools/list", "fed"),
      row("mcp-inspect list-tools -- fixture", "inspect"),
      row("mcp-inspect --version", "version"),
      row("trivial compiled bun script", "trivial"),
      row("release binary (mcpkit via link) list-tools -- fixture", "released"),
      row("release binary (mcpkit via link) --version", "releasedVersion"),
      row("mcp-inspect peak RSS (own, VmHWM)", "rss", "MB"),
      row("raw node server start-to-exit, fed discover+tools/list", "rawFed"),
      row("mcp-inspect list-tools -- node raw-server.mjs", "rawInspect"),
      row("release binary (mcpkit via link) list-tools -- node raw-server.mjs", "rawReleased"),
      ...(base
        ? [
            row("--against's mcp-inspect list-tools -- fixture", "baseInspect"),
            row("--against's mcp-inspect list-tools -- node raw-server.mjs", "baseRawInspect"),
          ]
        : []),
    ],
  );
  const overheadFed = median(samples.inspect!) - median(samples.fed!);
  const overheadIdle = median(samples.inspect!) - median(samples.idle!);
  const peak = Math.max(...samples.rss!);
  console.log(
    `\nclient-side overhead = inspect - fixture fed the same requests = ${overheadFed.toFixed(1)} ms = ` +
      `${(overheadFed / median(samples.fed!)).toFixed(2)}x the fixture's start-to-exit (goal <= ${GOAL_OVERHEAD_RATIO}x)`,
  );
  console.log(
    `stricter: inspect - idle fixture = ${overheadIdle.toFixed(1)} ms = ${(overheadIdle / median(samples.idle!)).toFixed(2)}x (this ` +
      `also counts the fixture's own request handling)`,
  );
  console.log(
    `bare start-up: mcp-inspect --version is ${(median(samples.version!) / median(samples.trivial!)).toFixed(2)}x a trivial compiled ` +
      `script; the release binary's is ${(median(samples.releasedVersion!) / median(samples.trivial!)).toFixed(2)}x`,
  );
  console.log(`peak RSS of mcp-inspect: max ${peak.toFixed(1)} MB over ${runs} runs (goal < ${GOAL_PEAK_RSS_MB} MB)`);
  // Each call against the server's fed runs on either side of it, then the median of those differences: a
  // difference of two medians swings by several ms run to run, with a ~45 ms server start-up in both.
  const rawOver = (key: string) => median(samples[`${key}OverFed`]!);
  const overTrivial = (key: string) => (rawOver(key) / median(samples.trivial!)).toFixed(2);
  console.log(
    `raw node server: mcp-inspect list-tools takes ${rawOver("raw").toFixed(1)} ms over the server's own fed runs beside it = ` +
      `${overTrivial("raw")}x a trivial compiled script (goal <= ${GOAL_RAW_OVER_TRIVIAL}x); the release binary's ` +
      `(mcpkit.ts spawns the server early too) ${rawOver("rawReleased").toFixed(1)} ms = ${overTrivial("rawReleased")}x`,
  );
  if (base)
    console.log(
      `--against's mcp-inspect on the raw server: ${rawOver("baseRawInspect").toFixed(1)} ms over the server's own fed runs = ` +
        `${overTrivial("baseRawInspect")}x a trivial compiled script; on the fixture ${median(samples.baseInspect!).toFixed(1)} ms ` +
        `vs ours ${median(samples.inspect!).toFixed(1)} ms`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
