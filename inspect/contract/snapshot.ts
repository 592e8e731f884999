// A server's contract, as `mcp-inspect snapshot` writes it and `diff` compares it: the tools with
// their schemas and annotations, resources, templates, prompts, capabilities and instructions,
// keyed by name (or URI) and with every object's keys sorted, so the same server always gives
// the same bytes and a change shows as a small diff in review.
import { McpError } from "../../lib/client/raw-client.ts";
import type { Target } from "../../lib/targets/target.ts";
import type { JsonObject } from "../../lib/wire/jsonrpc.ts";
import type { Result } from "../../lib/wire/result.ts";
import { listEverything } from "../checks/listing.ts";
import { openSession, type SessionOptions } from "../session.ts";

/** The shape's version: a later change to it is told apart by this. */
export const CONTRACT_VERSION = 1;

export interface Contract {
  contract: number;
  server?: { name?: string };
  capabilities: JsonObject;
  instructions?: string;
  tools: Record<string, JsonObject>;
  resources: Record<string, JsonObject>;
  resourceTemplates: Record<string, JsonObject>;
  prompts: Record<string, JsonObject>;
}

/** Keys sorted all the way down (arrays keep their order: it can mean something). */
export function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as JsonObject)[key])]),
  );
}

function keyed(items: JsonObject[] | undefined, key: string): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const item of items ?? []) {
    const { [key]: name, ...rest } = item;
    out[String(name)] = rest;
  }
  return out;
}

/** The contract of a live server. */
export async function snapshotOf(target: Target, options: SessionOptions): Promise<Contract> {
  const session = await openSession(target, options);
  try {
    const identity = await session.connect();
    const lists = await listEverything(session.client, identity.capabilities, options.timeoutMs);
    for (const [key, listing] of Object.entries(lists)) {
      const problem = listing.error ?? listing.problem;
      if (problem) throw new McpError("protocol", `${key}: ${problem}`);
    }
    return sorted({
      contract: CONTRACT_VERSION,
      ...(typeof identity.serverInfo?.name === "string" ? { server: { name: identity.serverInfo.name } } : {}),
      capabilities: identity.capabilities,
      ...(identity.instructions !== undefined ? { instructions: identity.instructions } : {}),
      tools: keyed(lists.tools?.items, "name"),
      resources: keyed(lists.resources?.items, "uri"),
      resourceTemplates: keyed(lists.resourceTemplates?.items, "uriTemplate"),
      prompts: keyed(lists.prompts?.items, "name"),
    }) as Contract;
  } finally {
    await session.close();
  }
}

/** A contract read back from its JSON. */
export function parseContract(text: string, source: string): Result<Contract> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${source} is not JSON (${(error as Error).message})` };
  }
  const contract = value as Partial<Contract>;
  if (typeof value !== "object" || value === null || contract.contract !== CONTRACT_VERSION)
    return { ok: false, error: `${source} is not a contract written by mcp-inspect snapshot (no "contract": ${CONTRACT_VERSION})` };
  return {
    ok: true,
    value: { capabilities: {}, tools: {}, resources: {}, resourceTemplates: {}, prompts: {}, ...contract } as Contract,
  };
}

export const contractText = (contract: Contract) => `${JSON.stringify(contract, null, 2)}\n`;
