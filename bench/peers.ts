#!/usr/bin/env bun
// mcp-inspect beside the other one-shot MCP clients of the command line, on one raw node server
// (bench/raw-server.mjs), in one run, interleaved: the MCP Inspector CLI
// (`@modelcontextprotocol/inspector --cli`) and mcporter, installed from the npm registry into a
// temporary folder at bench time (never project dependencies). Each peer runs on a node its
// package.json's engines accept: this machine's when it does, else one from the npm registry
// (the node-<os>-<arch> package, which ships the binary). A peer that cannot be installed or run
// is named with the reason, and the others go on.
// Every process gets the same minimal environment (what mcp-inspect passes a server) and an empty
// HOME, so no client pays for a setting (NODE_EXTRA_CA_CERTS costs node ~90 ms) or a config file
// that another does not.
// Usage: bun bench/peers.ts [--runs N]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serverEnvironment } from "../lib/transport/environment.ts";
import { compile, median, percentile, printTable, ROOT, runsFlag, scratchDir, timeRun } from "./common.ts";

const RUNS_DEFAULT = 15;
const PEERS = [
  { name: "MCP Inspector CLI", pkg: "@modelcontextprotocol/inspector", bin: "mcp-inspector" },
  { name: "mcporter", pkg: "mcporter", bin: "mcporter" },
] as const;
/** What each client is asked: the tool list, then one echo call. */
const OPERATIONS = ["list-tools", "call-tool echo"] as const;
type Operation = (typeof OPERATIONS)[number];

const runs = runsFlag(RUNS_DEFAULT, 3);
const machineNode = Bun.which("node");
if (!machineNode) {
  process.stderr.write("error: no node on PATH (the raw server and the peers run on node)\n");
  process.exit(1);
}

interface Peer {
  name: string;
  version: string;
  node: string;
  nodeVersion: string;
  command: (operation: Operation) => string[];
}

const dir = scratchDir();
const home = join(dir, "home");
mkdirSync(home);
const env = { ...serverEnvironment(), HOME: home };
const say = (line: string) => process.stderr.write(`${line}\n`);

/** Runs a command to its end, for set-up steps: its exit code and the end of what it said. */
async function setUp(command: string[], cwd = dir): Promise<{ code: number; out: string }> {
  const child = Bun.spawn(command, { cwd, env: { ...process.env, npm_config_loglevel: "error" }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, out: `${out}${err}`.trim().slice(-600) };
}

async function nodeVersion(node: string): Promise<string> {
  return (await setUp([node, "--version"])).out.replace(/^v/, "");
}

/** A node that satisfies `range`: this machine's, else the registry's node-<os>-<arch> of the range's major version. */
async function nodeFor(range: string, machineVersion: string): Promise<{ node: string; version: string } | string> {
  if (Bun.semver.satisfies(machineVersion, range)) return { node: machineNode!, version: machineVersion };
  const major = range.match(/\d+/)?.[0];
  if (!major) return `its engines say node ${range}, which this bench cannot read`;
  const prefix = join(dir, `node-${major}`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const installed = await setUp(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", `${pkg}@${major}`]);
  const node = join(prefix, "node_modules", pkg, "bin", "node");
  if (installed.code !== 0)
    return `it needs node ${range} (this machine has ${machineVersion}), and ${pkg}@${major} did not install: ${installed.out}`;
  const version = await nodeVersion(node);
  if (!Bun.semver.satisfies(version, range)) return `it needs node ${range}; the registry's ${pkg}@${major} is ${version}`;
  return { node, version };
}

/** Installs a peer and finds a node for it; a string says why it cannot take part. */
async function installPeer(peer: (typeof PEERS)[number], server: string[], machineVersion: string): Promise<Peer | string> {
  const prefix = join(dir, peer.bin);
  const installed = await setUp(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", `${peer.pkg}@latest`]);
  if (installed.code !== 0) return `npm install ${peer.pkg} failed: ${installed.out}`;
  const root = join(prefix, "node_modules", peer.pkg);
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    version: string;
    engines?: { node?: string };
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[peer.bin];
  if (!bin) return `${peer.pkg}@${manifest.version} has no "${peer.bin}" executable`;
  const chosen = await nodeFor(manifest.engines?.node ?? "*", machineVersion);
  if (typeof chosen === "string") return `${peer.pkg}@${manifest.version} cannot run here: ${chosen}`;
  const entry = join(root, bin);
  const [serverNode, ...serverArgs] = server;
  const command = (operation: Operation): string[] =>
    peer.bin === "mcporter"
      ? operation === "list-tools"
        ? [chosen.node, entry, "list", "--stdio", serverNode!, ...serverArgs.flatMap((arg) => ["--stdio-arg", arg]), "--json"]
        : [
            chosen.node,
            entry,
            "call",
            "--stdio",
            serverNode!,
            ...serverArgs.flatMap((arg) => ["--stdio-arg", arg]),
            "echo",
            "message=bench",
            "--output",
            "json",
          ]
      : operation === "list-tools"
        ? [chosen.node, entry, "--cli", ...server, "--method", "tools/list"]
        : [chosen.node, entry, "--cli", ...server, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=bench"];
  return { name: peer.name, version: manifest.version, node: chosen.node, nodeVersion: chosen.version, command };
}

/** The answer is there: the tool list names echo, the call echoes. */
function answered(operation: Operation, stdout: string): boolean {
  return operation === "list-tools" ? stdout.includes('"echo"') : stdout.includes('"bench"');
}

try {
  const machineVersion = await nodeVersion(machineNode);
  const server = [machineNode, join(ROOT, "bench/raw-server.mjs")];
  say("compiling mcp-inspect, installing the peers from the npm registry...");
  const inspect = await compile("mcp-inspect.ts", join(dir, "mcp-inspect"));
  const ours = (operation: Operation) =>
    operation === "list-tools"
      ? [inspect, "list-tools", "--", ...server]
      : [inspect, "call-tool", "echo", "message=bench", "--", ...server];
  const installed = await Promise.all(PEERS.map((peer) => installPeer(peer, server, machineVersion)));
  const peers: Peer[] = [];
  for (const [i, peer] of installed.entries()) {
    if (typeof peer === "string") {
      console.log(`skipped ${PEERS[i]!.name}: ${peer}`);
      continue;
    }
    // One trial run each: a peer that does not answer is named, not timed.
    const trial = await timeRun(peer.command("list-tools"), { env });
    if (trial.code !== 0 || !answered("list-tools", trial.stdout))
      console.log(
        `skipped ${peer.name} ${peer.version}: its list-tools exited ${trial.code} with ${JSON.stringify(trial.stdout.slice(0, 200))}`,
      );
    else peers.push(peer);
  }

  // The server alone, fed the requests a 2025 client sends (what the peers speak), from a file.
  const requests = join(dir, "requests.jsonl");
  const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } };
  writeFileSync(
    requests,
    `${[
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    ].join("\n")}\n`,
  );

  const samples: Record<string, number[]> = {};
  const add = (key: string, ms: number) => (samples[key] ??= []).push(ms);
  const timed = async (key: string, command: string[], operation: Operation) => {
    const run = await timeRun(command, { env });
    if (run.code !== 0 || !answered(operation, run.stdout))
      throw new Error(`${key} failed (exit ${run.code}): ${run.stdout.slice(0, 300)}`);
    add(key, run.ms);
  };
  for (let i = 0; i <= runs; i++) {
    const keep = i > 0; // the first round warms the page cache
    const fed = await timeRun(server, { stdinFile: requests, env });
    if (keep) add("server fed", fed.ms);
    for (const operation of OPERATIONS) {
      await timed(keep ? `mcp-inspect ${operation}` : "warm-up", ours(operation), operation);
      for (const peer of peers) await timed(keep ? `${peer.name} ${operation}` : "warm-up", peer.command(operation), operation);
    }
  }

  const m = (key: string) => median(samples[key]!);
  const rows: (string | number)[][] = [
    [
      "raw server alone, fed initialize + tools/list from a file",
      m("server fed").toFixed(1),
      percentile(samples["server fed"]!, 90).toFixed(1),
      "",
      "",
    ],
  ];
  for (const operation of OPERATIONS) {
    const base = m(`mcp-inspect ${operation}`);
    rows.push([
      `mcp-inspect ${operation}`,
      base.toFixed(1),
      percentile(samples[`mcp-inspect ${operation}`]!, 90).toFixed(1),
      "1.00x",
      `${(base / m("server fed")).toFixed(2)}x`,
    ]);
    for (const peer of peers) {
      const key = `${peer.name} ${operation}`;
      rows.push([
        `${peer.name} ${peer.version} ${operation}`,
        m(key).toFixed(1),
        percentile(samples[key]!, 90).toFixed(1),
        `${(m(key) / base).toFixed(2)}x`,
        `${(m(key) / m("server fed")).toFixed(2)}x`,
      ]);
    }
  }
  printTable(
    `one-shot clients against bench/raw-server.mjs (node ${machineVersion}), ${runs} interleaved runs`,
    ["what", "median ms", "p90 ms", "vs mcp-inspect", "vs server alone"],
    rows,
  );
  for (const peer of peers)
    console.log(
      `${peer.name} ${peer.version} ran on node ${peer.nodeVersion}` +
        (peer.node === machineNode ? " (this machine's)" : " (from the npm registry: its engines exclude this machine's)"),
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
