// The breaking-change rules of `mcp-inspect diff`, one contract change at a time, in process.
import { describe, expect, test } from "bun:test";
import { changesMarkdown, diffContracts } from "../../../inspect/contract/diff.ts";
import { type Contract, parseContract, sorted } from "../../../inspect/contract/snapshot.ts";

const contract = (tools: Contract["tools"], extra: Partial<Contract> = {}): Contract => ({
  contract: 1,
  capabilities: { tools: {} },
  tools,
  resources: {},
  resourceTemplates: {},
  prompts: {},
  ...extra,
});
const tool = (properties: Record<string, unknown>, required: string[] = [], output?: Record<string, unknown>) => ({
  inputSchema: { type: "object", properties, required },
  ...(output ? { outputSchema: { type: "object", properties: output } } : {}),
});
const changes = (before: Contract, after: Contract) => diffContracts(before, after).map((c) => [c.impact, c.where, c.what]);

describe("diffContracts", () => {
  const cases: [string, Contract, Contract, string[][]][] = [
    ["a tool removed", contract({ a: tool({}) }), contract({}), [["breaking", "tool a", "removed"]]],
    ["a tool added", contract({}), contract({ a: tool({}) }), [["compatible", "tool a", "added"]]],
    [
      "a required input removed",
      contract({ a: tool({ q: { type: "string" } }, ["q"]) }),
      contract({ a: tool({}) }),
      [["breaking", "tool a, input q", "required input removed"]],
    ],
    [
      "a parameter made required",
      contract({ a: tool({ q: { type: "string" } }) }),
      contract({ a: tool({ q: { type: "string" } }, ["q"]) }),
      [["breaking", "tool a, input q", "made required"]],
    ],
    [
      "a new optional input",
      contract({ a: tool({}) }),
      contract({ a: tool({ q: { type: "string" } }) }),
      [["compatible", "tool a, input q", "added"]],
    ],
    [
      "a type narrowed (number to integer)",
      contract({ a: tool({ n: { type: "number" } }) }),
      contract({ a: tool({ n: { type: "integer" } }) }),
      [["breaking", "tool a, input n", "type narrowed: number -> integer"]],
    ],
    [
      "a type widened (integer to number)",
      contract({ a: tool({ n: { type: "integer" } }) }),
      contract({ a: tool({ n: { type: "number" } }) }),
      [["compatible", "tool a, input n", "type widened: integer -> number"]],
    ],
    [
      "an enum value removed, one added",
      contract({ a: tool({ m: { type: "string", enum: ["x", "y"] } }) }),
      contract({ a: tool({ m: { type: "string", enum: ["x", "z"] } }) }),
      [
        ["breaking", "tool a, input m", 'enum value removed: "y"'],
        ["compatible", "tool a, input m", 'enum value added: "z"'],
      ],
    ],
    [
      "a nested field's type narrowed inside an array of objects",
      contract({ a: tool({ rows: { type: "array", items: { type: "object", properties: { id: { type: ["string", "integer"] } } } } }) }),
      contract({ a: tool({ rows: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } } }) }),
      [["breaking", "tool a, input rows[].id", "type narrowed: string|integer -> string"]],
    ],
    [
      "an output field removed, another added",
      contract({ a: tool({}, [], { sum: { type: "number" } }) }),
      contract({ a: tool({}, [], { total: { type: "number" } }) }),
      [
        ["breaking", "tool a, output sum", "output field removed"],
        ["compatible", "tool a, output total", "added"],
      ],
    ],
    [
      "described differently",
      contract({ a: { ...tool({}), description: "old" } }),
      contract({ a: { ...tool({}), description: "new" } }),
      [["compatible", "tool a", "description changed"]],
    ],
    [
      "a prompt removed, a capability removed",
      contract({}, { prompts: { p: {} }, capabilities: { tools: {}, prompts: {} } }),
      contract({}),
      [
        ["breaking", "prompt p", "removed"],
        ["breaking", "capability prompts", "removed"],
      ],
    ],
    [
      "a prompt argument made required",
      contract({}, { prompts: { p: { arguments: [{ name: "who" }] } } }),
      contract({}, { prompts: { p: { arguments: [{ name: "who", required: true }] } } }),
      [["breaking", "prompt p", "argument who made required"]],
    ],
  ];
  for (const [name, before, after, expected] of cases) test(name, () => expect(changes(before, after)).toEqual(expected));

  test("breaking changes come first, and the Markdown table escapes a pipe", () => {
    const found = diffContracts(contract({ b: tool({}) }), contract({ a: tool({ n: { type: ["string", "null"] } }) }));
    expect(found.map((c) => c.impact)).toEqual(["breaking", "compatible"]);
    const md = changesMarkdown(
      diffContracts(contract({ a: tool({ n: { type: ["string", "null"] } }) }), contract({ a: tool({ n: { type: "string" } }) })),
    );
    expect(md).toContain("| ⚠️ breaking | tool a, input n | type narrowed: string\\|null -> string |");
    expect(md).toContain("**1 breaking**, 0 compatible changes.");
  });
});

describe("contracts as files", () => {
  test("sorted puts every object's keys in order and keeps arrays' order", () => {
    expect(JSON.stringify(sorted({ b: 1, a: { d: [3, 1], c: 2 } }))).toBe('{"a":{"c":2,"d":[3,1]},"b":1}');
  });
  test("a file that is not JSON, or not a contract, is refused with its name", () => {
    expect(parseContract("{", "x.json")).toMatchObject({ ok: false, error: expect.stringMatching(/^x\.json is not JSON/) });
    expect(parseContract("{}", "x.json")).toMatchObject({ ok: false, error: expect.stringContaining('no "contract": 1') });
  });
});
