import { INITIALIZE, LinePeer, toolCommand } from "./helpers.ts";

/** The command line that starts mcp-proxy (its binary in a binaries run). */
export const PROXY = toolCommand("mcp-proxy.ts");
/** The peers closeProxies() will close: a test that closes one itself takes it out; one it starts otherwise goes in. */
export const peers: LinePeer[] = [];

export function proxy(args: string[], env: Record<string, string> = {}): LinePeer {
  const peer = new LinePeer([...PROXY, ...args], { env });
  peers.push(peer);
  return peer;
}

export async function closeProxies(): Promise<void> {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
}

/** initialize, then notifications/initialized: the answer to initialize. */
export async function initialized(peer: LinePeer, version = "2025-11-25"): Promise<any> {
  const answer = await peer.request(0, "initialize", INITIALIZE(version));
  peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return answer;
}

/** The pid of the server behind the proxy (the reference and faulty servers' whoami tool). */
export const pidOf = async (peer: LinePeer, id: string | number) =>
  Number((await peer.request(id, "tools/call", { name: "whoami", arguments: {} })).result.content[0].text);
