// Tools as one line each, for an agent's context budget:
//   name(a: string, b?: integer, mode: "fast"|"slow") - First sentence of the description.
// Types come from the input schema (enums and consts as literals, arrays as T[], unions with |);
// everything that came from the server is stripped of control sequences.
import { stripControl } from "../lib/io/text.ts";

/** A description is cut to its first sentence, and to this many characters. */
export const MAX_SUMMARY_CHARS = 160;
/** Nested schemas deeper than this print as their outer type only. */
const MAX_TYPE_DEPTH = 3;
/** A union or enum longer than this is shown by its first members and "|...". */
const MAX_UNION_MEMBERS = 8;

type Schema = Record<string, unknown>;

export interface ToolLike {
  name?: unknown;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
}

/** `name(params) - summary` for one tool. */
export function signature(tool: ToolLike): string {
  const name = clean(String(tool.name ?? "?"));
  const summary = firstSentence(typeof tool.description === "string" ? tool.description : typeof tool.title === "string" ? tool.title : "");
  return `${name}(${parameters(tool.inputSchema)})${summary ? ` - ${summary}` : ""}`;
}

/** The parameter list of an input schema: required ones first as the schema orders them, `?` for optional. */
export function parameters(inputSchema: unknown): string {
  const schema = asSchema(inputSchema);
  const properties = asSchema(schema?.properties);
  if (!properties) return "";
  const required = new Set(Array.isArray(schema?.required) ? schema.required.map(String) : []);
  return Object.entries(properties)
    .map(([key, value]) => `${clean(key)}${required.has(key) ? "" : "?"}: ${typeOf(value, 0)}`)
    .join(", ");
}

/** The names of an input schema's parameters (what grep searches besides names and descriptions). */
export function parameterNames(inputSchema: unknown): string[] {
  return Object.keys(asSchema(asSchema(inputSchema)?.properties) ?? {});
}

function typeOf(value: unknown, depth: number): string {
  const schema = asSchema(value);
  if (!schema) return "any";
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(schema[key])) return union((schema[key] as unknown[]).map((member) => typeOf(member, depth + 1)));
  }
  const type = schema.type;
  if (Array.isArray(type)) return union(type.map((member) => typeOf({ ...schema, type: member }, depth)));
  if (type === "array") {
    const items = depth < MAX_TYPE_DEPTH ? typeOf(schema.items, depth + 1) : "any";
    return /[|(]/.test(items) ? `(${items})[]` : `${items}[]`;
  }
  if (type === "object") {
    const inner = depth < MAX_TYPE_DEPTH ? parameters(schema) : "";
    return inner ? `{${inner}}` : "object";
  }
  return typeof type === "string" ? clean(type) : "any";
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  return unique.length > MAX_UNION_MEMBERS ? `${unique.slice(0, MAX_UNION_MEMBERS).join("|")}|...` : unique.join("|");
}

function literal(value: unknown): string {
  return clean(JSON.stringify(value) ?? "null");
}

/** The first sentence (to a full stop followed by a space, or the end of the first line), capped. */
export function firstSentence(text: string): string {
  const firstLine = text.trim().split(/\r?\n/)[0] ?? "";
  const flat = clean(firstLine).replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? flat : flat.slice(0, end + 1);
  return sentence.length > MAX_SUMMARY_CHARS ? `${sentence.slice(0, MAX_SUMMARY_CHARS - 3)}...` : sentence;
}

function clean(text: string): string {
  return stripControl(text).replace(/[\r\n]+/g, " ");
}

function asSchema(value: unknown): Schema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}
