// An elicitation request answered by a person at a terminal, shared by mcp-host (its chat terminal)
// and mcp-inspect (stdin and stderr): a form built from the requested schema, with each answer
// read as its field's type and checked against the constraints the schema states; accept,
// decline and cancel all reach the server. URL mode opens only https or loopback URLs, and only
// after consent.

import type { Result } from "../wire/result.ts";
import type { Asker } from "./asker.ts";
import { isBrowserSafeUrl } from "./browser.ts";

/** Wrong answers to one form field before the form is cancelled. */
const FIELD_ATTEMPTS = 3;

type Json = Record<string, unknown>;

export async function answerElicitation(
  server: string,
  params: Json,
  terminal: Required<Asker>,
  openUrl: (url: string) => Promise<void>,
  signal?: AbortSignal,
): Promise<Json> {
  if (params.mode === "url") return answerUrlElicitation(server, params, terminal, openUrl, signal);
  terminal.print(`[${server}] asks: ${String(params.message ?? "")}`, "yellow");
  const schema = (params.requestedSchema ?? {}) as Json;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const [name, field] of Object.entries(properties)) {
    terminal.print(`  ${name}${required.has(name) ? " (required)" : ""}: ${describeField(field)}`, "dim");
  }
  const choice = (await terminal.ask("accept, decline or cancel? [a/d/c] ", { signal }))?.trim().toLowerCase();
  if (choice === "d" || choice === "decline") return { action: "decline" };
  if (choice !== "a" && choice !== "accept") return { action: "cancel" };
  const content: Json = {};
  for (const [name, field] of Object.entries(properties)) {
    const value = await askField(terminal, name, field, required.has(name), signal);
    if (value === CANCELLED) return { action: "cancel" };
    if (value !== undefined) content[name] = value;
  }
  return { action: "accept", content };
}

const CANCELLED = Symbol("cancelled");

async function askField(terminal: Required<Asker>, name: string, field: Json, required: boolean, signal?: AbortSignal): Promise<unknown> {
  const fallback = field.default;
  const hint = fallback !== undefined ? ` [${String(fallback)}]` : required ? "" : " (Enter to skip)";
  for (let attempt = 0; attempt < FIELD_ATTEMPTS; attempt++) {
    const line = await terminal.ask(`  ${String(field.title ?? name)}${hint}: `, { signal });
    if (line === null) return CANCELLED;
    const raw = line.trim();
    if (raw === "") {
      if (fallback !== undefined) return fallback;
      if (!required) return undefined;
      terminal.print(`  ${name} is required`, "red");
      continue;
    }
    const parsed = parseField(raw, field);
    if (parsed.ok) return parsed.value;
    terminal.print(`  ${parsed.error}`, "red");
  }
  terminal.print("  too many invalid answers: cancelling the form", "red");
  return CANCELLED;
}

/** Reads one answer as the field's type, checking the constraints the schema states. */
export function parseField(raw: string, field: Json): Result<unknown> {
  const options = enumOptions(field);
  if (field.type === "array") {
    const itemOptions = enumOptions((field.items ?? {}) as Json);
    const values = raw
      .split(",")
      .map((value) => value.trim())
      .filter(Boolean);
    const chosen = values.map((value) => pickOption(value, itemOptions));
    if (chosen.some((value) => value === undefined))
      return { ok: false, error: `choose from: ${itemOptions.map((o) => o.value).join(", ")}` };
    if (typeof field.minItems === "number" && chosen.length < field.minItems)
      return { ok: false, error: `choose at least ${field.minItems}` };
    if (typeof field.maxItems === "number" && chosen.length > field.maxItems)
      return { ok: false, error: `choose at most ${field.maxItems}` };
    return { ok: true, value: chosen };
  }
  if (options.length > 0) {
    const value = pickOption(raw, options);
    return value === undefined ? { ok: false, error: `choose one of: ${options.map((o) => o.value).join(", ")}` } : { ok: true, value };
  }
  if (field.type === "boolean") {
    if (/^(y|yes|true)$/i.test(raw)) return { ok: true, value: true };
    if (/^(n|no|false)$/i.test(raw)) return { ok: true, value: false };
    return { ok: false, error: "answer yes or no" };
  }
  if (field.type === "number" || field.type === "integer") {
    const value = Number(raw);
    if (!Number.isFinite(value) || (field.type === "integer" && !Number.isInteger(value)))
      return { ok: false, error: `enter ${field.type === "integer" ? "a whole number" : "a number"}` };
    if (typeof field.minimum === "number" && value < field.minimum) return { ok: false, error: `must be at least ${field.minimum}` };
    if (typeof field.maximum === "number" && value > field.maximum) return { ok: false, error: `must be at most ${field.maximum}` };
    return { ok: true, value };
  }
  if (typeof field.minLength === "number" && raw.length < field.minLength)
    return { ok: false, error: `at least ${field.minLength} characters` };
  if (typeof field.maxLength === "number" && raw.length > field.maxLength)
    return { ok: false, error: `at most ${field.maxLength} characters` };
  if (field.format === "email" && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(raw)) return { ok: false, error: "enter an email address" };
  if (field.format === "uri" && !URL.canParse(raw)) return { ok: false, error: "enter a URI" };
  if (field.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return { ok: false, error: "enter a date as YYYY-MM-DD" };
  return { ok: true, value: raw };
}

function enumOptions(field: Json): { value: string; title: string }[] {
  if (Array.isArray(field.enum)) {
    const names = Array.isArray(field.enumNames) ? (field.enumNames as string[]) : [];
    return (field.enum as string[]).map((value, i) => ({ value: String(value), title: names[i] ?? String(value) }));
  }
  const titled = (field.oneOf ?? field.anyOf) as Json[] | undefined;
  if (Array.isArray(titled))
    return titled.filter((o) => o && "const" in o).map((o) => ({ value: String(o.const), title: String(o.title ?? o.const) }));
  return [];
}

function pickOption(raw: string, options: { value: string; title: string }[]): string | undefined {
  const lower = raw.toLowerCase();
  const index = /^\d+$/.test(raw) ? Number(raw) - 1 : -1;
  if (index >= 0 && index < options.length) return options[index]!.value;
  return options.find((o) => o.value.toLowerCase() === lower || o.title.toLowerCase() === lower)?.value;
}

function describeField(field: Json): string {
  const options = enumOptions(field.type === "array" ? ((field.items ?? {}) as Json) : field);
  const kind =
    options.length > 0
      ? `${field.type === "array" ? "some of" : "one of"} ${options.map((o, i) => `${i + 1}) ${o.title}`).join(", ")}`
      : String(field.format ?? field.type ?? "text");
  return [field.description, kind].filter(Boolean).join(" - ");
}

async function answerUrlElicitation(
  server: string,
  params: Json,
  terminal: Required<Asker>,
  openUrl: (url: string) => Promise<void>,
  signal?: AbortSignal,
): Promise<Json> {
  const raw = String(params.url ?? "");
  terminal.print(`[${server}] asks you to open a page: ${String(params.message ?? "")}`, "yellow");
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !isBrowserSafeUrl(url)) {
    terminal.print(`  refused: ${raw} is not an https or loopback URL`, "red");
    return { action: "decline" };
  }
  terminal.print(`  ${url.href}`);
  if (!(await terminal.confirm(`Open it in your browser?`, signal))) return { action: "decline" };
  await openUrl(url.href).catch(() => terminal.print("  could not start a browser: open the URL above yourself", "dim"));
  return { action: "accept" };
}
