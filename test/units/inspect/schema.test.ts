// How `mcp-inspect test` judges JSON Schemas (inspect/checks/schema.ts): one engine per dialect for
// the run, yet each schema judged alone (two servers' schemas with the same $id do not clash, and a
// schema judged before leaves nothing behind), draft-07 and 2020-12 by their $schema, and the
// reasons a schema or a value fails.
import { describe, expect, test } from "bun:test";
import { mismatch, schemaProblem } from "../../../inspect/checks/schema.ts";

const withId = (type: string) => ({
  $id: "https://example.com/tool.json",
  type: "object",
  properties: { a: { type } },
  required: ["a"],
});

describe("schemaProblem", () => {
  test("two schemas with the same $id are each judged, the second not refused as a duplicate", async () => {
    expect(await schemaProblem(withId("string"))).toBeUndefined();
    expect(await schemaProblem(withId("number"))).toBeUndefined();
  });

  test("judged side by side, each keeps its own reason", async () => {
    const judged = await Promise.all([
      schemaProblem({ type: "object", properties: { a: { type: 5 } } }),
      schemaProblem({ type: "object" }),
      schemaProblem({ type: "object", properties: { b: { minimum: "x" } } }),
    ]);
    expect(judged[0]).toStartWith("fails the meta-schema: ");
    expect(judged[0]).toContain("/properties/a/type");
    expect(judged[1]).toBeUndefined();
    expect(judged[2]).toContain("/properties/b/minimum");
  });

  test("an unresolvable $ref cannot be compiled; an unknown dialect is named; a non-object is refused", async () => {
    expect(await schemaProblem({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })).toStartWith("cannot be compiled: ");
    expect(await schemaProblem({ $schema: "https://example.com/my-dialect", type: "object" })).toContain("declares a dialect");
    expect(await schemaProblem([])).toBe("is not a JSON object");
  });

  test("draft-07 by its $schema: its own keywords (definitions) resolve", async () => {
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { n: { type: "number" } },
      properties: { a: { $ref: "#/definitions/n" } },
    };
    expect(await schemaProblem(draft7)).toBeUndefined();
    expect(await mismatch(draft7, { a: "text" })).toContain("must be number");
  });
});

describe("mismatch", () => {
  test("a value against a schema: undefined when it matches, the reasons when it does not, whatever was judged before", async () => {
    expect(await mismatch(withId("string"), { a: "yes" })).toBeUndefined();
    // Same $id, another schema: judged by its own rules, not by the one compiled before.
    expect(await mismatch(withId("number"), { a: "yes" })).toContain("/a must be number");
    expect(await mismatch(withId("number"), {})).toContain("must have required property 'a'");
  });
});
