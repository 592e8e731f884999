#!/usr/bin/env bun
// Is reading the client configs linear in their entries? `mcp-inspect servers` (compiled) on a
// ~/.claude.json of 20,000 entries and of 200,000, interleaved in one run, each name also in a
// Gemini file (so every name is compared across clients): the time per entry should hold, a
// ratio of 10x for 10x the entries, where quadratic work would show 100x.
// Usage: bun bench/config-scale.ts [--runs N]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile, median, printTable, runsFlag, scratchDir, timeRun } from "./common.ts";

const RUNS_DEFAULT = 3;
const SIZES = [20_000, 200_000];
/** 10x the entries in at most this many times the time. */
const GOAL_RATIO = 15;

const runs = runsFlag(RUNS_DEFAULT, 1);

const dir = scratchDir();
process.stderr.write("compiling mcp-inspect...\n");
const inspect = await compile("mcp-inspect.ts", join(dir, "mcp-inspect"));
const homes = SIZES.map((size) => {
  const home = join(dir, `home-${size}`);
  mkdirSync(join(home, "project", ".git"), { recursive: true });
  mkdirSync(join(home, ".gemini"));
  const servers = (client: string) =>
    Object.fromEntries(Array.from({ length: size / 2 }, (_, i) => [`server-${i}`, { command: "run", args: [client, String(i)] }]));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: servers("claude") }));
  writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ mcpServers: servers("gemini") }));
  return home;
});
const times: number[][] = SIZES.map(() => []);
for (let run = 0; run < runs; run++)
  for (const [index, home] of homes.entries()) {
    const done = await timeRun([inspect, "servers", "--json"], { env: { HOME: home, PATH: process.env.PATH ?? "" } });
    if (done.code !== 0) throw new Error(`servers exited ${done.code} on ${SIZES[index]} entries`);
    times[index]!.push(done.ms);
  }
const medians = times.map(median);
printTable(
  `mcp-inspect servers, median of ${runs}`,
  ["entries", "ms", "µs per entry"],
  SIZES.map((size, i) => [size.toLocaleString("en"), medians[i]!.toFixed(0), ((medians[i]! * 1000) / size).toFixed(1)]),
);
const ratio = medians[1]! / medians[0]!;
console.log(`\n10x the entries: ${ratio.toFixed(1)}x the time (goal: at most ${GOAL_RATIO}x)`);
