import { INITIALIZE, LinePeer, NO_VENDOR_KEYS, runTool, type ToolScript, toolCommand } from "./helpers.ts";

export type CrowdKind = "inspect" | "proxy" | "host" | "stateful";

export interface CrowdResult {
  kind: CrowdKind;
  ok: boolean;
  /** What went wrong, for the assertion's message. */
  detail: string;
}

/** How many of each kind, e.g. {inspect: 4, proxy: 3, host: 3, stateful: 2}. */
export type CrowdCounts = Record<CrowdKind, number>;

/** Splits `total` processes over the four kinds as evenly as it goes. */
export function crowdOf(total: number): CrowdCounts {
  const kinds: CrowdKind[] = ["inspect", "proxy", "host", "stateful"];
  const counts = { inspect: 0, proxy: 0, host: 0, stateful: 0 };
  for (let i = 0; i < total; i++) counts[kinds[i % kinds.length]!]++;
  return counts;
}

/** Starts every process at once, calling `tool` on `url`; settles when all have ended. */
export function crowd(url: string, tool: string, env: Record<string, string>, counts: CrowdCounts): Promise<CrowdResult[]> {
  const runs: Promise<CrowdResult>[] = [];
  const withEnv = { ...NO_VENDOR_KEYS, ...env };
  const oneShot = async (kind: CrowdKind, script: ToolScript, args: string[]): Promise<CrowdResult> => {
    const run = await runTool(script, args, { env: withEnv });
    return { kind, ok: run.code === 0, detail: `exit ${run.code}: ${(run.stdout + run.stderr).slice(-400)}` };
  };
  for (let i = 0; i < counts.inspect; i++) runs.push(oneShot("inspect", "mcp-inspect.ts", ["call-tool", tool, "--url", url]));
  for (let i = 0; i < counts.stateful; i++)
    runs.push(oneShot("stateful", "mcp-inspect.ts", ["call-tool", tool, "--stateful", "--url", url]));
  for (let i = 0; i < counts.host; i++) runs.push(oneShot("host", "mcp-host.ts", ["--server", url, "-p", tool]));
  for (let i = 0; i < counts.proxy; i++) runs.push(bridge(url, tool, withEnv));
  return Promise.all(runs);
}

/** A client behind mcp-proxy --url: initialize, then the tool. */
async function bridge(url: string, tool: string, env: Record<string, string>): Promise<CrowdResult> {
  const peer = new LinePeer([...toolCommand("mcp-proxy.ts"), "--url", url], { env });
  try {
    const hello = await peer.request(0, "initialize", INITIALIZE());
    if (!hello.result) return { kind: "proxy", ok: false, detail: JSON.stringify(hello.error) };
    peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const called = await peer.request(1, "tools/call", { name: tool, arguments: {} });
    const ok = called.result !== undefined && called.result.isError !== true;
    return { kind: "proxy", ok, detail: JSON.stringify(called).slice(0, 400) };
  } finally {
    await peer.close();
  }
}
