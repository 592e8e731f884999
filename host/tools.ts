// Every server's tools, offered to the model under one namespace: `mcp__<server>__<tool>`.
// Vendors accept only [A-Za-z0-9_-] and at most 64 characters in a tool name, so names that
// would break that are rewritten, and a map turns the model's name back into (server, tool).
import type { ImagePart, TextPart, ToolSpec } from "./provider.ts";

export const VENDOR_NAME_MAX = 64;
const UNSAFE = /[^A-Za-z0-9_-]/g;
/** Server keys stay short: they prefix every tool name, and vendors cap names at 64. */
const SERVER_KEY_MAX = 24;

export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolRoute {
  server: string;
  tool: McpTool;
}

/** A server key in the namespace's alphabet; keys that collide get _2, _3 ... */
export function uniqueServerKey(name: string, taken: Set<string>): string {
  const base = name.replace(UNSAFE, "_").slice(0, SERVER_KEY_MAX) || "server";
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
  taken.add(key);
  return key;
}

export class ToolNamespace {
  #routes = new Map<string, ToolRoute>();

  /** Rebuilds the namespace from each server's current tool list; returns the model's tool specs. */
  rebuild(servers: { key: string; tools: McpTool[] }[]): ToolSpec[] {
    this.#routes.clear();
    const specs: ToolSpec[] = [];
    for (const { key, tools } of servers) {
      for (const tool of tools) {
        const name = this.#claim(`mcp__${key}__${tool.name}`);
        this.#routes.set(name, { server: key, tool });
        specs.push({ name, description: tool.description ?? tool.title ?? "", inputSchema: tool.inputSchema });
      }
    }
    return specs;
  }

  resolve(modelName: string): ToolRoute | undefined {
    return this.#routes.get(modelName);
  }

  get size(): number {
    return this.#routes.size;
  }

  /** The vendor-safe, unique form of a wanted name. */
  #claim(wanted: string): string {
    let base = wanted.replace(UNSAFE, "_");
    if (base.length > VENDOR_NAME_MAX) base = `${base.slice(0, VENDOR_NAME_MAX - 9)}_${shortHash(wanted)}`;
    let name = base;
    for (let n = 2; this.#routes.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, VENDOR_NAME_MAX - suffix.length) + suffix;
    }
    return name;
  }
}

function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

type McpContent = { type: string; [key: string]: unknown };

/**
 * MCP content (one block or a list, as tool results, prompt messages and sampling messages carry it)
 * as the parts a model reads: text and images verbatim, the rest described.
 */
export function contentParts(content: unknown): (TextPart | ImagePart)[] {
  const blocks = (Array.isArray(content) ? content : content === undefined ? [] : [content]) as McpContent[];
  return blocks.map((block): TextPart | ImagePart => {
    if (block?.type === "text") return { type: "text", text: String(block.text ?? "") };
    if (block?.type === "image") return { type: "image", data: String(block.data ?? ""), mimeType: String(block.mimeType ?? "image/png") };
    if (block?.type === "resource") return { type: "text", text: embeddedResourceText(block.resource as McpContent) };
    if (block?.type === "resource_link")
      return { type: "text", text: `[resource link: ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ""}]` };
    if (block?.type === "audio")
      return { type: "text", text: `[audio ${String(block.mimeType)}, ${String(block.data ?? "").length} base64 chars]` };
    return { type: "text", text: JSON.stringify(block) };
  });
}

/** An MCP tool result as the parts a model reads; structured content stands in when there is no other. */
export function resultParts(result: { content?: unknown; structuredContent?: unknown }): (TextPart | ImagePart)[] {
  const parts = contentParts(Array.isArray(result.content) ? result.content : []);
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  if (parts.length === 0) parts.push({ type: "text", text: "(no content)" });
  return parts;
}

function embeddedResourceText(resource: McpContent | undefined): string {
  if (!resource) return "[resource]";
  if (typeof resource.text === "string") return `[resource ${String(resource.uri)}]\n${resource.text}`;
  return `[resource ${String(resource.uri)}: ${String(resource.mimeType ?? "binary")}, ${String(resource.blob ?? "").length} base64 chars]`;
}
