import { describe, expect, test } from "bun:test";
import { pairsToArguments, readParams, validate } from "../inspect/arguments.ts";

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

  test("each problem names its field", () => {
    const problems = validate({ count: -1, ratio: "fast", nested: {}, extra: 1, mode: "medium", tags: ["a", 2] }, schema);
    expect(problems).toEqual(expect.arrayContaining([
      "arguments.code: required, missing",
      "arguments.count: must be >= 0",
      'arguments.ratio: expected number, got the string "fast"',
      "arguments.nested.x: required, missing",
      "arguments.extra: not an allowed field",
      'arguments.mode: must be one of "fast", "slow"',
      "arguments.tags[1]: expected string, got the integer 2",
    ]));
  });
});

describe("--params", () => {
  test("inline JSON, stdin, and the errors for bad JSON, non-objects and missing files", async () => {
    expect(await readParams('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(await readParams("-", undefined, async () => ({ ok: true, text: '{"b":2}' }))).toEqual({ ok: true, value: { b: 2 } });
    expect(await readParams("{a")).toMatchObject({ ok: false, error: expect.stringContaining("not valid JSON") });
    expect(await readParams("[1]")).toMatchObject({ ok: false, error: expect.stringContaining("must be a JSON object") });
    expect(await readParams("@/nonexistent/params.json")).toMatchObject({ ok: false, error: expect.stringContaining("cannot read /nonexistent/params.json (ENOENT)") });
  });
});
