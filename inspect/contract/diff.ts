// Two contracts compared, each change classified by stated rules. Breaking: a tool, prompt,
// resource, template or capability removed; a required input removed; a parameter made required
// (or a new required one); a type narrowed; an enum value removed; an output field removed or its
// type changed; a prompt argument made required. Compatible: anything added, a type widened, an
// enum value added, text described differently, annotations changed.
import type { JsonObject } from "../../lib/wire/jsonrpc.ts";
import type { Contract } from "./snapshot.ts";

export type Impact = "breaking" | "compatible";
export interface Change {
  impact: Impact;
  /** Where, e.g. `tool search, input q`. */
  where: string;
  what: string;
}

const ALL_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];
type Schema = JsonObject;

/** The types a schema allows (integer is within number). */
function typesOf(schema: Schema | undefined): Set<string> {
  const type = schema?.type;
  const listed = typeof type === "string" ? [type] : Array.isArray(type) ? type.map(String) : ALL_TYPES;
  const types = new Set(listed);
  if (types.has("number")) types.add("integer");
  return types;
}

function typeName(schema: Schema | undefined): string {
  const type = schema?.type;
  return type === undefined ? "any" : Array.isArray(type) ? type.join("|") : String(type);
}

const propertiesOf = (schema: Schema | undefined) => (schema?.properties ?? {}) as Record<string, Schema>;
const requiredOf = (schema: Schema | undefined) => new Set(Array.isArray(schema?.required) ? schema.required.map(String) : []);

/** A value's schema, before and after: its type, enum, and (for objects and arrays) what it holds. */
function compareValue(before: Schema | undefined, after: Schema | undefined, where: string, side: "input" | "output"): Change[] {
  const changes: Change[] = [];
  const was = typesOf(before);
  const now = typesOf(after);
  const lost = [...was].filter((t) => !now.has(t));
  const gained = [...now].filter((t) => !was.has(t));
  // An input accepts what callers send: fewer types breaks them. An output is what callers read: any other type does.
  if (lost.length > 0 || (side === "output" && gained.length > 0))
    changes.push({
      impact: "breaking",
      where,
      what: `type ${side === "input" ? "narrowed" : "changed"}: ${typeName(before)} -> ${typeName(after)}`,
    });
  else if (gained.length > 0)
    changes.push({ impact: "compatible", where, what: `type widened: ${typeName(before)} -> ${typeName(after)}` });
  const enumBefore = Array.isArray(before?.enum) ? before.enum.map((v) => JSON.stringify(v)) : undefined;
  const enumAfter = Array.isArray(after?.enum) ? after.enum.map((v) => JSON.stringify(v)) : undefined;
  if (enumAfter && !enumBefore) changes.push({ impact: "breaking", where, what: `now limited to ${enumAfter.join(", ")}` });
  if (enumBefore && enumAfter) {
    const removed = enumBefore.filter((v) => !enumAfter.includes(v));
    const added = enumAfter.filter((v) => !enumBefore.includes(v));
    if (removed.length)
      changes.push({ impact: side === "input" ? "breaking" : "compatible", where, what: `enum value removed: ${removed.join(", ")}` });
    if (added.length)
      changes.push({ impact: side === "input" ? "compatible" : "breaking", where, what: `enum value added: ${added.join(", ")}` });
  }
  if (before?.description !== after?.description && before && after)
    changes.push({ impact: "compatible", where, what: "described differently" });
  changes.push(...compareObject(before, after, where, side));
  if (before?.items || after?.items)
    changes.push(...compareValue(before?.items as Schema | undefined, after?.items as Schema | undefined, `${where}[]`, side));
  return changes;
}

/** An object's properties: removed, added, made required. */
function compareObject(before: Schema | undefined, after: Schema | undefined, where: string, side: "input" | "output"): Change[] {
  const changes: Change[] = [];
  const was = propertiesOf(before);
  const now = propertiesOf(after);
  const wasRequired = requiredOf(before);
  const nowRequired = requiredOf(after);
  const at = (name: string) => (where ? `${where}.${name}` : name);
  for (const name of Object.keys(was)) {
    if (name in now) continue;
    if (side === "output") changes.push({ impact: "breaking", where: at(name), what: "output field removed" });
    else if (wasRequired.has(name)) changes.push({ impact: "breaking", where: at(name), what: "required input removed" });
    else changes.push({ impact: "compatible", where: at(name), what: "optional input removed" });
  }
  for (const name of Object.keys(now)) {
    if (!(name in was)) {
      const required = side === "input" && nowRequired.has(name);
      changes.push({ impact: required ? "breaking" : "compatible", where: at(name), what: required ? "new required input" : "added" });
      continue;
    }
    if (side === "input" && nowRequired.has(name) && !wasRequired.has(name))
      changes.push({ impact: "breaking", where: at(name), what: "made required" });
    if (side === "input" && wasRequired.has(name) && !nowRequired.has(name))
      changes.push({ impact: "compatible", where: at(name), what: "made optional" });
    changes.push(...compareValue(was[name], now[name], at(name), side));
  }
  return changes;
}

function compareTool(name: string, before: JsonObject, after: JsonObject): Change[] {
  const where = `tool ${name}`;
  const changes = [
    ...compareObject(before.inputSchema as Schema, after.inputSchema as Schema, "", "input").map((c) => ({
      ...c,
      where: `${where}, input ${c.where}`,
    })),
  ];
  if (before.outputSchema && !after.outputSchema) changes.push({ impact: "breaking", where, what: "outputSchema removed" });
  else if (before.outputSchema || after.outputSchema)
    changes.push(
      ...compareObject(before.outputSchema as Schema, after.outputSchema as Schema, "", "output").map((c) => ({
        ...c,
        where: `${where}, output ${c.where}`,
      })),
    );
  for (const field of ["description", "title"])
    if (before[field] !== after[field]) changes.push({ impact: "compatible", where, what: `${field} changed` });
  if (JSON.stringify(before.annotations) !== JSON.stringify(after.annotations))
    changes.push({
      impact: "compatible",
      where,
      what: `annotations changed: ${JSON.stringify(before.annotations ?? {})} -> ${JSON.stringify(after.annotations ?? {})}`,
    });
  return changes;
}

function comparePrompt(name: string, before: JsonObject, after: JsonObject): Change[] {
  const where = `prompt ${name}`;
  const args = (p: JsonObject) => new Map(((p.arguments as JsonObject[] | undefined) ?? []).map((a) => [String(a.name), a]));
  const was = args(before);
  const now = args(after);
  const changes: Change[] = [];
  for (const [arg, def] of was)
    if (!now.has(arg)) changes.push({ impact: def.required === true ? "breaking" : "compatible", where, what: `argument ${arg} removed` });
  for (const [arg, def] of now) {
    const old = was.get(arg);
    if (def.required === true && old?.required !== true)
      changes.push({ impact: "breaking", where, what: old ? `argument ${arg} made required` : `new required argument ${arg}` });
    else if (!old) changes.push({ impact: "compatible", where, what: `argument ${arg} added` });
  }
  if (before.description !== after.description) changes.push({ impact: "compatible", where, what: "description changed" });
  return changes;
}

const SECTIONS = [
  ["tools", "tool", compareTool],
  ["prompts", "prompt", comparePrompt],
  ["resources", "resource", undefined],
  ["resourceTemplates", "template", undefined],
] as const;

/** Every change from `before` to `after`, breaking ones first. */
export function diffContracts(before: Contract, after: Contract): Change[] {
  const changes: Change[] = [];
  for (const [section, noun, compare] of SECTIONS) {
    const was = before[section];
    const now = after[section];
    for (const name of Object.keys(was))
      if (!(name in now)) changes.push({ impact: "breaking", where: `${noun} ${name}`, what: "removed" });
    for (const name of Object.keys(now)) {
      if (!(name in was)) changes.push({ impact: "compatible", where: `${noun} ${name}`, what: "added" });
      else if (compare) changes.push(...compare(name, was[name]!, now[name]!));
      else if (JSON.stringify(was[name]) !== JSON.stringify(now[name]))
        changes.push({ impact: "compatible", where: `${noun} ${name}`, what: "described differently" });
    }
  }
  for (const capability of Object.keys(before.capabilities))
    if (!(capability in after.capabilities)) changes.push({ impact: "breaking", where: `capability ${capability}`, what: "removed" });
  for (const capability of Object.keys(after.capabilities))
    if (!(capability in before.capabilities)) changes.push({ impact: "compatible", where: `capability ${capability}`, what: "added" });
  if (before.instructions !== after.instructions) changes.push({ impact: "compatible", where: "instructions", what: "changed" });
  return [...changes.filter((c) => c.impact === "breaking"), ...changes.filter((c) => c.impact === "compatible")];
}

export function changesText(changes: Change[]): string {
  if (changes.length === 0) return "no changes\n";
  const breaking = changes.filter((c) => c.impact === "breaking").length;
  const lines = changes.map((c) => `${c.impact === "breaking" ? "BREAKING  " : "compatible"}  ${c.where}: ${c.what}`);
  return `${lines.join("\n")}\n${breaking} breaking, ${changes.length - breaking} compatible\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** A pull-request comment. */
export function changesMarkdown(changes: Change[]): string {
  const breaking = changes.filter((c) => c.impact === "breaking").length;
  const head =
    changes.length === 0
      ? "No changes to the server's contract."
      : `**${breaking} breaking**, ${changes.length - breaking} compatible change${changes.length - breaking === 1 ? "" : "s"}.`;
  const rows = changes.map((c) => `| ${c.impact === "breaking" ? "⚠️ breaking" : "compatible"} | ${cell(c.where)} | ${cell(c.what)} |`);
  return [
    "### MCP contract changes",
    "",
    head,
    ...(rows.length ? ["", "| Impact | Where | Change |", "| --- | --- | --- |", ...rows] : []),
    "",
  ].join("\n");
}
