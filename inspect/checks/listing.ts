// What a server lists (tools, resources, templates, prompts), page by page, and the checks that
// read only the lists: pagination terminates, tool names follow the rules, schemas are valid.
import type { RawClient } from "../../lib/client/raw-client.ts";
import type { JsonObject } from "../../lib/wire/jsonrpc.ts";
import { type CheckResult, listed, MAX_CHECKED_PAGES, result, TOOL_NAME } from "./model.ts";
import { schemaProblem } from "./schema.ts";

export const LISTS = [
  { method: "tools/list", key: "tools", capability: "tools" },
  { method: "resources/list", key: "resources", capability: "resources" },
  { method: "resources/templates/list", key: "resourceTemplates", capability: "resources" },
  { method: "prompts/list", key: "prompts", capability: "prompts" },
] as const;
export type ListKey = (typeof LISTS)[number]["key"];

export interface Listing {
  items: JsonObject[];
  pages: number;
  /** Why paging stopped early: a repeated cursor, too many pages, an error. */
  problem?: string;
  /** The list failed outright (the server does not offer it, or errs). */
  error?: string;
}

/** Every page of one list, stopping at a cursor seen before or past MAX_CHECKED_PAGES pages. */
export async function listPages(client: RawClient, method: string, key: string, timeoutMs: number): Promise<Listing> {
  const items: JsonObject[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_CHECKED_PAGES; page++) {
    let answer: JsonObject;
    try {
      answer = await client.request(method, cursor ? { cursor } : {}, { timeoutMs });
    } catch (error) {
      const said = (error as Error).message;
      return page === 1 ? { items, pages: 0, error: said } : { items, pages: page - 1, problem: `page ${page} failed: ${said}` };
    }
    const got = answer[key];
    if (Array.isArray(got)) items.push(...got.filter((item): item is JsonObject => typeof item === "object" && item !== null));
    const next = typeof answer.nextCursor === "string" && answer.nextCursor !== "" ? answer.nextCursor : undefined;
    if (!next) return { items, pages: page };
    if (cursors.has(next)) return { items, pages: page, problem: `page ${page} repeats the cursor ${JSON.stringify(next).slice(0, 80)}` };
    cursors.add(next);
    cursor = next;
  }
  return { items, pages: MAX_CHECKED_PAGES, problem: `still a next page after ${MAX_CHECKED_PAGES} pages` };
}

/** Every list the server's capabilities offer; a list it does not offer is absent. */
export async function listEverything(
  client: RawClient,
  capabilities: JsonObject,
  timeoutMs: number,
): Promise<Partial<Record<ListKey, Listing>>> {
  const lists: Partial<Record<ListKey, Listing>> = {};
  for (const { method, key, capability } of LISTS) {
    if (capabilities[capability] === undefined) continue;
    lists[key] = await listPages(client, method, key, timeoutMs);
  }
  return lists;
}

export function checkPagination(lists: Partial<Record<ListKey, Listing>>): CheckResult {
  const entries = Object.entries(lists) as [ListKey, Listing][];
  if (entries.length === 0) return result("pagination", "not-applicable", "the server offers no lists");
  const problems = entries.filter(([, l]) => l.problem).map(([key, l]) => `${key}: ${l.problem}`);
  if (problems.length > 0) return result("pagination", "fail", listed(problems));
  const paged = entries.map(([key, l]) => (l.error ? `${key}: failed (${l.error})` : `${key}: ${l.items.length} in ${l.pages} page(s)`));
  return result("pagination", "pass", paged.join("; "));
}

export function checkToolNames(tools: JsonObject[] | undefined): CheckResult {
  if (!tools) return result("tool-names", "not-applicable", "the server offers no tools");
  const names = tools.map((tool) => tool.name);
  const bad = names.filter((name) => typeof name !== "string" || !TOOL_NAME.test(name)).map((name) => JSON.stringify(name).slice(0, 140));
  const seen = new Set<unknown>();
  const twice = names.filter((name) => (seen.has(name) ? true : (seen.add(name), false))).map((name) => `${JSON.stringify(name)} twice`);
  const problems = [...bad.map((name) => `${name} breaks the rules`), ...twice];
  if (problems.length > 0) return result("tool-names", "fail", listed(problems));
  return result("tool-names", "pass", `${names.length} names`);
}

export async function checkSchemas(tools: JsonObject[] | undefined): Promise<CheckResult> {
  if (!tools || tools.length === 0) return result("schemas-valid", "not-applicable", "the server lists no tools");
  const problems: string[] = [];
  let count = 0;
  for (const tool of tools) {
    for (const field of ["inputSchema", "outputSchema"] as const) {
      const schema = tool[field];
      if (schema === undefined && field === "outputSchema") continue;
      count++;
      const problem =
        schema === undefined
          ? "is missing"
          : ((await schemaProblem(schema)) ?? ((schema as JsonObject).type !== "object" ? 'has no "type": "object"' : undefined));
      if (problem) problems.push(`${String(tool.name)}.${field} ${problem}`);
    }
  }
  if (problems.length > 0) return result("schemas-valid", "fail", listed(problems));
  return result("schemas-valid", "pass", `${count} schemas of ${tools.length} tools`);
}
