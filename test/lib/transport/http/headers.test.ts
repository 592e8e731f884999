import { expect, test } from "bun:test";
import { encodeHeaderValue, paramHeaderSpecs, paramHeaders } from "../../../../lib/transport/http/headers.ts";

test("annotated parameters reachable through properties become Mcp-Param headers", () => {
  const schema = {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      limits: {
        type: "object",
        properties: { max: { type: "integer", "x-mcp-header": "Max" }, dry: { type: "boolean", "x-mcp-header": "Dry" } },
      },
    },
  };
  const specs = paramHeaderSpecs(schema);
  expect(specs.ok).toBe(true);
  if (!specs.ok) return;
  expect(paramHeaders(specs.value, { region: "Hello, 世界", limits: { max: 42, dry: false } }, encodeHeaderValue)).toEqual({
    "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
    "Mcp-Param-Max": "42",
    "Mcp-Param-Dry": "false",
  });
  expect(paramHeaders(specs.value, { region: null }, encodeHeaderValue)).toEqual({});
});

test.each([
  [{ type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } }, "only string, integer, boolean"],
  [{ type: "object", properties: { a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } } }, "not reachable"],
  [{ type: "object", anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }, "not reachable"],
  [{ type: "object", properties: { a: { type: "string", "x-mcp-header": "Bad Name" } } }, "not a header token"],
  [
    { type: "object", properties: { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } } },
    "used twice",
  ],
])("a broken annotation rules the tool out: %j", (schema, fragment) => {
  const specs = paramHeaderSpecs(schema);
  expect(specs.ok).toBe(false);
  if (!specs.ok) expect(specs.error).toContain(fragment);
});

test("header values: plain ASCII as is; other text, edge spaces and the sentinel itself in base64", () => {
  expect(encodeHeaderValue("us-west1")).toBe("us-west1");
  expect(encodeHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=");
  expect(encodeHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=");
  expect(encodeHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
});
