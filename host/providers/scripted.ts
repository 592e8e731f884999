// The keyless provider. It replays a small, fixed repertoire of turns, enough to move every wire in
// the host without a model: "call <tool> key=value ..." (or a JSON object of arguments) calls a
// tool (or a message that names one), a tool result is reported back (failures included), attached
// resources and seeded prompts are acknowledged, and a server's sampling request gets a canned
// answer. Deterministic, so CI uses it.

import { isJsonObject } from "../../lib/wire/jsonrpc.ts";
import type { ChatMessage, GenerateRequest, GenerateResult, LLMProvider, TextPart, ToolSpec, ToolUsePart } from "../provider.ts";
import { textOf } from "../provider.ts";

/** Tool output quoted back at most this long. */
const QUOTE_CHARS = 400;
const ATTACHMENT = /<resource server="([^"]*)" uri="([^"]*)"[^>]*>/g;

export function createScriptedProvider(): LLMProvider {
  let calls = 0;
  return {
    name: "scripted",
    model: "scripted",
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const turn = respond(request, () => `call_${++calls}`);
      const text = turn
        .filter((part): part is TextPart => part.type === "text")
        .map((part) => part.text)
        .join("");
      for (const word of text.match(/\S+\s*/g) ?? []) {
        if (request.signal?.aborted) throw new Error("aborted");
        request.ontext?.(word);
      }
      const usesTool = turn.some((part) => part.type === "tool_use");
      return { content: turn, stopReason: usesTool ? "tool_use" : "end_turn", model: "scripted" };
    },
  };
}

function respond(request: GenerateRequest, nextId: () => string): (TextPart | ToolUsePart)[] {
  const messages = request.messages;
  const last = messages.at(-1);
  if (!last) return [say("(scripted) Nothing to answer yet.")];
  const results = last.content.filter((part) => part.type === "tool_result");
  if (results.length > 0) return [say(reportResults(messages, results))];

  const text = textOf(last.content.filter((part) => part.type === "text"));
  const tools = request.tools ?? [];
  if (tools.length === 0) return [say(`(scripted) A sampled answer to: "${firstLine(text)}"`)];

  const attached = [...text.matchAll(ATTACHMENT)].map((m) => `${m[2]} from ${m[1]}`);
  const asked = text.replace(/<resource [\s\S]*?<\/resource>/g, "").trim();
  if (attached.length > 0)
    return [say(`(scripted) I read ${attached.join(" and ")} (${text.length} characters with the question "${firstLine(asked)}").`)];

  const call = toolCall(asked, tools, nextId);
  if (call) return [say(`(scripted) Calling ${call.name}.`), call];
  if (/^(hi|hello|hey|help|tour)[\s!.?]*$/i.test(asked) || asked === "") return [say(tour(tools))];
  const roles = messages.map((message) => message.role).join(", ");
  return [say(`(scripted) ${messages.length} message(s) so far (${roles}). You said: "${firstLine(asked)}"`)];
}

function say(text: string): TextPart {
  return { type: "text", text };
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

function reportResults(messages: ChatMessage[], results: ChatMessage["content"]): string {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.content) if (part.type === "tool_use") names.set(part.id, part.name);
  }
  return results
    .map((part) => {
      if (part.type !== "tool_result") return "";
      const name = names.get(part.toolUseId) ?? "the tool";
      const output = textOf(part.content);
      const quoted = output.length > QUOTE_CHARS ? `${output.slice(0, QUOTE_CHARS)}... (${output.length} characters)` : output;
      return part.isError ? `(scripted) ${name} failed: ${quoted}. I give up on it.` : `(scripted) ${name} returned: ${quoted}`;
    })
    .join("\n");
}

/**
 * "call add a=2 b=3", "echo hello" (the rest fills the one missing text field), "run slow steps=3", and
 * `call add {"a": 2, "b": null}` for arguments no key=value spells (null, nested values, text with spaces).
 */
function toolCall(text: string, tools: ToolSpec[], nextId: () => string): ToolUsePart | undefined {
  const request = text.replace(/^(please\s+)?(call|run|use)\s+/i, "");
  const words = request.split(/\s+/);
  const wanted = words[0]?.toLowerCase();
  if (!wanted) return undefined;
  const tool = tools.find((t) => t.name.toLowerCase() === wanted) ?? tools.find((t) => t.name.toLowerCase().endsWith(`__${wanted}`));
  if (!tool) return undefined;
  const json = jsonObject(request.slice(words[0]!.length).trim());
  if (json) return { type: "tool_use", id: nextId(), name: tool.name, input: json };
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const input: Record<string, unknown> = {};
  const loose: string[] = [];
  for (const word of words.slice(1)) {
    const equals = word.indexOf("=");
    const key = equals > 0 ? word.slice(0, equals) : "";
    if (key && Object.hasOwn(properties, key)) input[key] = coerce(word.slice(equals + 1), properties[key]?.type);
    else loose.push(word);
  }
  const required = (tool.inputSchema.required ?? []) as string[];
  const missingText = required.filter((name) => !(name in input) && (properties[name]?.type ?? "string") === "string");
  if (loose.length > 0 && missingText.length === 1) input[missingText[0]!] = loose.join(" ");
  return { type: "tool_use", id: nextId(), name: tool.name, input };
}

/** The arguments as one JSON object, when that is what follows the tool's name. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function coerce(value: string, type: string | undefined): unknown {
  if ((type === "number" || type === "integer") && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  if (type === "boolean" && /^(true|false)$/.test(value)) return value === "true";
  if ((type === "object" || type === "array") && /^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

function tour(tools: ToolSpec[]): string {
  const names = tools.slice(0, 12).map((t) => t.name.split("__").slice(2).join("__") || t.name);
  return [
    "(scripted) Hi! I am the keyless scripted model: I call tools when you name them.",
    `Try: "call add a=2 b=3", "echo hello", "fail", "slow steps=20" (Ctrl-C cancels), "sample", "elicit", "roots", "log level=info ` +
      `message=hi".`,
    "Attach a resource with @server:uri, run a prompt with /server:prompt key=value, watch one with /watch @server:uri. /help lists " +
      "every command.",
    names.length > 0 ? `Tools here: ${names.join(", ")}${tools.length > names.length ? ", ..." : ""}.` : "No tools are connected.",
  ].join("\n");
}
