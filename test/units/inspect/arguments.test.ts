import { describe, expect, test } from "bun:test";
import { pairsToArguments, readParams, validate } from "../../../inspect/arguments.ts";

const schema = {
  type: "object",
  properties: {
    code: { type: "string" },
    count: { type: "integer", minimum: 0 },
    ratio: { type: "number" },
    flag: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    nested: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] },
    mode: { enum: ["fast", "slow"] },
  },
  required: ["code"],
  additionalProperties: false,
};

describe("key=value pairs", () => {
  test("each value takes its field's type", () => {
    const built = pairsToArguments(["code=012", "count=3", "ratio=-1.5e2", "flag=false", 'tags=["a"]', "nested.x=7"], schema);
    expect(built).toEqual({ ok: true, value: { code: "012", count: 3, ratio: -150, flag: false, tags: ["a"], nested: { x: 7 } } });
  });

  test("values that do not fit stay text for validation to name", () => {
    const built = pairsToArguments(["count=3.5", "ratio=0x10", "flag=yes"], schema);
    expect(built.ok && built.value).toEqual({ count: "3.5", ratio: "0x10", flag: "yes" });
  });

  test("without a schema, JSON literals are JSON and the rest is text", () => {
    const built = pairsToArguments(["a=1", "b=true", "c=012", "d=hello", 'e={"k":1}'], undefined);
    expect(built.ok && built.value).toEqual({ a: 1, b: true, c: "012", d: "hello", e: { k: 1 } });
  });

  test.each(["__proto__.isError=true", "constructor.x=1", "a..b=1", "=x", "novalue"])("%s is refused", (pair) => {
    const built = pairsToArguments([pair], schema);
    expect(built.ok).toBe(false);
    expect(({} as Record<string, unknown>).isError).toBeUndefined();
  });
});

describe("validation", () => {
  test("a valid value has no problems", () => {
    expect(validate({ code: "x", count: 1, nested: { x: 1 }, mode: "fast" }, schema)).toEqual([]);
  });

  test("null for an optional field is 'not given' and passes; for a required one it is still wrong", () => {
    const schema = { type: "object", properties: { verbose: { type: "boolean" }, region: { type: "string" } }, required: ["region"] };
    expect(validate({ region: "eu", verbose: null }, schema)).toEqual([]);
    expect(validate({ region: null }, schema)).toEqual(["arguments.region: expected string, got null"]);
  });

  test("each problem names its field", () => {
    const problems = validate({ count: -1, ratio: "fast", nested: {}, extra: 1, mode: "medium", tags: ["a", 2] }, schema);
    expect(problems).toEqual(
      expect.arrayContaining([
        "arguments.code: required, missing",
        "arguments.count: must be >= 0",
        'arguments.ratio: expected number, got the string "fast"',
        "arguments.nested.x: required, missing",
        "arguments.extra: not an allowed field",
        'arguments.mode: must be one of "fast", "slow"',
        "arguments.tags[1]: expected string, got the integer 2",
      ]),
    );
  });
});

describe("validation of enum, const, anyOf and oneOf", () => {
  test("enum and const compare JSON values whatever the order of their keys", () => {
    const schema = { type: "object", properties: { pick: { enum: [{ a: 1, b: [1, { c: 2, d: 3 }] }] }, fixed: { const: { x: 1, y: 2 } } } };
    expect(validate({ pick: { b: [1, { d: 3, c: 2 }], a: 1 }, fixed: { y: 2, x: 1 } }, schema)).toEqual([]);
    expect(validate({ pick: { a: 1, b: [{ c: 2, d: 3 }, 1] }, fixed: { x: 1, y: 2, z: 3 } }, schema)).toEqual([
      'arguments.pick: must be one of {"a":1,"b":[1,{"c":2,"d":3}]}',
      'arguments.fixed: must be {"x":1,"y":2}',
    ]);
  });

  test("oneOf means exactly one shape; anyOf at least one", () => {
    const both = { oneOf: [{ type: "number" }, { type: "integer" }] };
    expect(validate(1.5, both)).toEqual([]);
    expect(validate(2, both)).toEqual(["arguments: matches 2 of the shapes where exactly one is allowed (oneOf)"]);
    expect(validate("x", both)).toEqual(["arguments: matches none of the allowed shapes"]);
    expect(validate(2, { anyOf: [{ type: "number" }, { type: "integer" }] })).toEqual([]);
  });
});

describe("--params", () => {
  test("inline JSON, stdin, and the errors for bad JSON, non-objects and missing files", async () => {
    expect(await readParams('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(await readParams("-", undefined, async () => ({ ok: true, value: '{"b":2}' }))).toEqual({ ok: true, value: { b: 2 } });
    expect(await readParams("{a")).toMatchObject({ ok: false, error: expect.stringContaining("not valid JSON") });
    expect(await readParams("[1]")).toMatchObject({ ok: false, error: expect.stringContaining("must be a JSON object") });
    expect(await readParams("@/nonexistent/params.json")).toMatchObject({
      ok: false,
      error: expect.stringContaining("cannot read /nonexistent/params.json (ENOENT)"),
    });
  });
});
