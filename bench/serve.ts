#!/usr/bin/env bun
// `mcp-proxy serve` beside the reference server's own Streamable HTTP (`--http`), in one run,
// interleaved round by round: calls/s of a 1 KB tools/call at 1 and 16 in flight, over 2025-11-25
// sessions and 2026-07-28 stateless requests; then serve's own peak RSS (VmHWM: its server
// processes not counted) with 50 connected 2025 clients, each with its own server process.
// Each round's client warms up before the clock starts (--warmup S, both sides alike): a 2025
// session through serve is a fresh server process, whose JIT needs its first thousand calls or so,
// and a session lives for minutes, so what counts is the rate it settles at.
// Usage: bun bench/serve.ts [--seconds S] [--rounds N] [--warmup S]
import { join } from "node:path";
import { BUN, median, printTable, ROOT, readHwm } from "./common.ts";

/** Goals (issue 24): at least this share of the reference server's own calls/s in every cell. */
const GOAL_CALLS_RATIO = 0.9;
/** serve's own peak RSS with RSS_CLIENTS clients connected, in MB. */
const GOAL_RSS_MB = 150;
const RSS_CLIENTS = 50;
const PAYLOAD_BYTES = 1024;
const IN_FLIGHT = [1, 16] as const;
const ERAS = ["2025-11-25", "2026-07-28"] as const;
type Era = (typeof ERAS)[number];

if (process.argv.includes("--help")) {
  console.log("usage: bun bench/serve.ts [--seconds S (2)] [--rounds N (3)] [--warmup S (1)]");
  process.exit(0);
}
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!(value > 0)) {
    process.stderr.write(`error: ${name} takes a positive number\n`);
    process.exit(1);
  }
  return value;
};
const seconds = flag("--seconds", 2);
const rounds = flag("--rounds", 3);
const warmup = flag("--warmup", 1);
const REFERENCE = join(ROOT, "host/reference/main.ts");

interface Listening {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a command that prints `listening <url>` on stderr. */
async function start(command: string[]): Promise<Listening> {
  const child = Bun.spawn(command, {
    cwd: ROOT,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const reader = child.stderr.getReader();
  let seen = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${command.join(" ")} exited before listening:\n${seen}`);
    seen += new TextDecoder().decode(value);
    const match = /listening (http:\/\/\S+)/.exec(seen);
    if (!match) continue;
    void (async () => {
      while (!(await reader.read()).done);
    })().catch(() => {});
    return {
      url: match[1]!,
      pid: child.pid,
      async stop() {
        child.kill("SIGTERM");
        await child.exited;
      },
    };
  }
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

/** The headers each call of this era carries: a 2025 session's, or 2026-07-28's per-request ones. */
async function callHeaders(url: string, era: Era): Promise<Record<string, string>> {
  if (era === "2026-07-28") return { "mcp-protocol-version": era, "mcp-method": "tools/call", "mcp-name": "echo" };
  const params = { protocolVersion: era, capabilities: {}, clientInfo: { name: "bench", version: "0" } };
  const opened = await post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params }, {});
  await opened.text();
  const session = opened.headers.get("mcp-session-id");
  if (!session) throw new Error(`no session from ${url}: HTTP ${opened.status}`);
  const headers = { "mcp-session-id": session, "mcp-protocol-version": era };
  await (await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).text();
  return headers;
}

const message = "x".repeat(PAYLOAD_BYTES);

/** Calls made in `seconds` with `inFlight` callers on one client. */
async function callsPerSecond(url: string, era: Era, inFlight: number): Promise<number> {
  const headers = await callHeaders(url, era);
  const params = { name: "echo", arguments: { message }, ...(era === "2026-07-28" ? { _meta: META } : {}) };
  let calls = 0;
  let id = 1;
  const callFor = async (until: number) => {
    while (performance.now() < until) {
      const response = await post(url, { jsonrpc: "2.0", id: id++, method: "tools/call", params }, headers);
      const text = await response.text();
      if (!response.ok || !text.includes(message)) throw new Error(`a call failed (HTTP ${response.status}): ${text.slice(0, 200)}`);
      calls++;
    }
  };
  const warm = performance.now() + warmup * 1000;
  await Promise.all(Array.from({ length: inFlight }, () => callFor(warm)));
  calls = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(Array.from({ length: inFlight }, () => callFor(until)));
  const elapsed = (performance.now() - started) / 1000;
  if (headers["mcp-session-id"]) await fetch(url, { method: "DELETE", headers }).catch(() => {});
  return calls / elapsed;
}

const reference = await start([BUN, REFERENCE, "--http", "0"]);
const served = await start([BUN, join(ROOT, "mcp-proxy.ts"), "serve", "--max-sessions", "64", "--log-level", "warn", "--", BUN, REFERENCE]);
const rows: (string | number)[][] = [];
let met = true;
try {
  for (const era of ERAS) {
    for (const inFlight of IN_FLIGHT) {
      const own: number[] = [];
      const through: number[] = [];
      for (let round = 0; round < rounds; round++) {
        own.push(await callsPerSecond(reference.url, era, inFlight));
        through.push(await callsPerSecond(served.url, era, inFlight));
      }
      const ratio = median(through) / median(own);
      met &&= ratio >= GOAL_CALLS_RATIO;
      rows.push([
        `${era}, ${inFlight} in flight`,
        median(own).toFixed(0),
        median(through).toFixed(0),
        ratio.toFixed(2),
        `>= ${GOAL_CALLS_RATIO}`,
      ]);
    }
  }
  printTable(
    `1 KB tools/call, calls/s (median of ${rounds} interleaved ${seconds}s rounds, each after a ${warmup}s warm-up)`,
    ["cell", "reference --http", "serve", "ratio", "goal"],
    rows,
  );

  const before = readHwm(served.pid);
  await Promise.all(
    Array.from({ length: RSS_CLIENTS }, async () => {
      const headers = await callHeaders(served.url, "2025-11-25");
      const params = { name: "echo", arguments: { message } };
      await (await post(served.url, { jsonrpc: "2.0", id: 1, method: "tools/call", params }, headers)).text();
    }),
  );
  const peakMb = readHwm(served.pid) / 1024;
  met &&= peakMb <= GOAL_RSS_MB;
  printTable(
    `serve's own peak RSS (its ${RSS_CLIENTS} server processes not counted)`,
    ["clients", "before, MB", "peak, MB", "goal"],
    [[RSS_CLIENTS, (before / 1024).toFixed(1), peakMb.toFixed(1), `<= ${GOAL_RSS_MB}`]],
  );
} finally {
  await Promise.all([reference.stop(), served.stop()]);
}
console.log(`\n${met ? "every goal met" : "a goal was missed"}`);
process.exitCode = met ? 0 : 1;
