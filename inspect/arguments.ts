// Tool arguments from the command line: `--params` as JSON, `@file` or `-` (stdin), and
// `key=value` pairs coerced by the tool's inputSchema, then checked against that schema so a
// bad field is named before the server ever sees the call.

import type { CappedRead } from "../lib/io/read-capped.ts";
import { MAX_PARAMS_BYTES } from "../lib/wire/limits.ts";
import type { Result } from "../lib/wire/result.ts";

type Schema = Record<string, unknown>;
/** Keys that would reach Object.prototype through a dotted path. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
/** Decimal numbers only: "0x10" or "1e3x" stay strings for validation to name. */
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
type Json = Record<string, unknown>;
/** The capped readers (and node:fs) load only for a --params that names a file or stdin: a call's start-up pays for neither otherwise. */
const readers = () => import("../lib/io/read-capped.ts");

/**
 * Reads `--params`: inline JSON, `@path` to a JSON file, or `-` for stdin; at most
 * MAX_PARAMS_BYTES, and given up when `signal` aborts (--timeout, a signal).
 */
export async function readParams(
  spec: string,
  signal?: AbortSignal,
  stdin: () => Promise<CappedRead> = async () => (await readers()).readStreamCapped(process.stdin, MAX_PARAMS_BYTES, signal),
): Promise<Result<Json>> {
  let text = spec;
  let source = "--params";
  if (spec === "-" || spec.startsWith("@")) {
    source = spec === "-" ? "--params - (stdin)" : `--params ${spec}`;
    const read = spec === "-" ? await stdin() : await (await readers()).readFileCapped(spec.slice(1), MAX_PARAMS_BYTES, signal);
    if (!read.ok) {
      if (read.error.reason === "too-large") return { ok: false, error: `${source} is over the ${MAX_PARAMS_BYTES}-byte limit` };
      if (read.error.reason === "aborted") return { ok: false, error: `${source} was not read to its end` };
      return {
        ok: false,
        error: spec === "-" ? `cannot read stdin (${read.error.detail})` : `cannot read ${spec.slice(1)} (${read.error.detail})`,
      };
    }
    text = read.value;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${source} is not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(value)) return { ok: false, error: `${source} must be a JSON object, like '{"key": "value"}'` };
  return { ok: true, value };
}

/**
 * Turns `key=value` pairs into arguments. A dotted key (`nested.x=1`) builds nested objects.
 * Each value takes the type its schema field declares: "012" stays a string for a string
 * field, "3" becomes 3 for an integer field, JSON is parsed for objects and arrays.
 */
export function pairsToArguments(
  pairs: string[],
  schema: Schema | undefined,
  into: Json = {},
  options: { strings?: boolean } = {},
): Result<Json> {
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) return { ok: false, error: `bad argument ${JSON.stringify(pair)} (write key=value)` };
    const path = pair.slice(0, equals).split(".");
    const raw = pair.slice(equals + 1);
    const forbidden = path.find((key) => FORBIDDEN_KEYS.has(key) || key === "");
    if (forbidden !== undefined)
      return {
        ok: false,
        error: `bad argument name ${JSON.stringify(pair.slice(0, equals))} (${forbidden ? `"${forbidden}" is not allowed` : "empty part"})`,
      };
    let target = into;
    let fieldSchema: Schema | undefined = schema;
    for (const [index, key] of path.entries()) {
      fieldSchema = propertySchema(fieldSchema, key);
      if (index === path.length - 1) {
        target[key] = options.strings ? raw : coerce(raw, fieldSchema);
      } else {
        if (!isObject(target[key])) target[key] = {};
        target = target[key] as Json;
      }
    }
  }
  return { ok: true, value: into };
}

function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  const properties = schema?.properties;
  if (!isObject(properties)) return undefined;
  const field = properties[key];
  return isObject(field) ? field : undefined;
}

function schemaTypes(schema: Schema | undefined): string[] {
  const type = schema?.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

function coerce(raw: string, schema: Schema | undefined): unknown {
  const types = schemaTypes(schema);
  if (types.length === 0) return guess(raw);
  if (types.includes("string")) return raw;
  if (types.includes("integer") && /^-?\d+$/.test(raw)) return Number(raw);
  if (types.includes("number") && DECIMAL.test(raw)) return Number(raw);
  if (types.includes("boolean") && (raw === "true" || raw === "false")) return raw === "true";
  if (types.includes("null") && raw === "null") return null;
  if (types.includes("object") || types.includes("array")) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  // Not coercible: keep the text and let validation name the field.
  return raw;
}

/** Without a schema: JSON literals are taken as JSON, anything else is a string. */
function guess(raw: string): unknown {
  if (raw === "true" || raw === "false" || raw === "null" || DECIMAL.test(raw) || /^[[{"]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** Checks a value against the JSON Schema subset tools use; returns the first problems, by path. */
export function validate(value: unknown, schema: Schema | undefined, path = "arguments"): string[] {
  if (!schema) return [];
  const problems: string[] = [];
  const types = schemaTypes(schema);
  if (types.length > 0 && !types.some((type) => hasType(value, type))) {
    return [`${path}: expected ${types.join(" or ")}, got ${describe(value)}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
    problems.push(`${path}: must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}`);
  }
  if ("const" in schema && !deepEqual(schema.const, value)) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.anyOf) && matchingShapes(value, schema.anyOf, path) === 0)
    problems.push(`${path}: matches none of the allowed shapes`);
  if (Array.isArray(schema.oneOf)) {
    // oneOf means exactly one (JSON Schema): a value that fits two shapes is as wrong as one that fits none.
    const matches = matchingShapes(value, schema.oneOf, path);
    if (matches === 0) problems.push(`${path}: matches none of the allowed shapes`);
    if (matches > 1) problems.push(`${path}: matches ${matches} of the shapes where exactly one is allowed (oneOf)`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${path}: must be >= ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${path}: must be <= ${schema.maximum}`);
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength)
      problems.push(`${path}: must have at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
      problems.push(`${path}: must have at most ${schema.maxLength} characters`);
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    for (const [index, item] of value.entries()) problems.push(...validate(item, schema.items as Schema, `${path}[${index}]`));
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const key of required) {
      if (typeof key === "string" && !(key in value)) problems.push(`${path}.${key}: required, missing`);
    }
    for (const [key, item] of Object.entries(value)) {
      const field = properties[key];
      // null for an optional field is how agents say "not given" (and the 2026-07-28 headers rule leaves it out): let it pass.
      if (item === null && !required.has(key)) continue;
      if (isObject(field)) problems.push(...validate(item, field, `${path}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${key}: not an allowed field`);
    }
  }
  return problems;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return true;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "number") return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

function matchingShapes(value: unknown, shapes: unknown[], path: string): number {
  return shapes.filter((shape) => validate(value, isObject(shape) ? shape : undefined, path).length === 0).length;
}

/** JSON equality: objects compare by their members whatever their order, arrays item by item. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
