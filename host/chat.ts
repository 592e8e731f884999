// The conversation: user turns (with @server:uri resources attached as labelled context), the tool
// loop (model -> tools -> model, results fed back verbatim including isError, bounded in rounds),
// and prompts seeding the history in their own roles.
import { ErrorCode } from "../lib/wire/jsonrpc.ts";
import type { ChatMessage, ContentPart, ImagePart, LLMProvider, TextPart, ToolResultPart, ToolSpec } from "./provider.ts";
import type { ServerConnection } from "./servers.ts";
import { REQUEST_TIMEOUT_MS } from "./servers.ts";
import type { Terminal } from "./terminal.ts";
import { contentParts, resultParts, ToolNamespace } from "./tools.ts";

/** A model that keeps calling tools is stopped after this many rounds in one turn. */
export const MAX_TOOL_ROUNDS = 10;
export const CHAT_MAX_TOKENS = 4096;
/** An attached resource is cut to this many characters, and says so. */
export const MAX_ATTACHMENT_CHARS = 32 * 1024;
const MENTION = /@([A-Za-z0-9_-]+):(\S+)/g;
/** A tool's result is previewed on one line of at most this many characters. */
const PREVIEW_CHARS = 200;

/** Asks the user to open a page a server needs; resolves with the elicitation result. */
export type UrlAsk = (server: string, elicitation: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

export interface TurnResult {
  /** A tool failed and the model ended the turn without a later success. */
  gaveUp: boolean;
  cancelled: boolean;
  /** The turn hit MAX_TOOL_ROUNDS. */
  capped: boolean;
  /** The model (or a server) failed: no answer came. */
  failed: boolean;
}

export class Chat {
  readonly messages: ChatMessage[] = [];
  readonly namespace = new ToolNamespace();
  #specs: ToolSpec[] = [];
  readonly #servers: Map<string, ServerConnection>;
  readonly #terminal: Terminal;
  provider: LLMProvider;
  readonly #askUrl: UrlAsk;

  constructor(servers: Map<string, ServerConnection>, provider: LLMProvider, terminal: Terminal, askUrl: UrlAsk) {
    this.#servers = servers;
    this.provider = provider;
    this.#terminal = terminal;
    this.#askUrl = askUrl;
    this.refreshTools();
  }

  /** Called whenever a server's tool list changes. */
  refreshTools(): void {
    this.#specs = this.namespace.rebuild([...this.#servers.values()].map((server) => ({ key: server.key, tools: server.tools })));
  }

  get tools(): ToolSpec[] {
    return this.#specs;
  }

  /** One user turn: attach mentions, then let the model work until it answers. */
  async turn(text: string, signal: AbortSignal): Promise<TurnResult> {
    const content = await this.#withAttachments(text, signal);
    this.messages.push({ role: "user", content });
    return this.respond(signal);
  }

  /** Lets the model answer the history as it stands (after a user turn or a seeded prompt). */
  async respond(signal: AbortSignal): Promise<TurnResult> {
    let lastFailed = false;
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      let streamed = false;
      const result = await this.provider.generate({
        system: this.#systemPrompt(),
        messages: this.messages,
        tools: this.#specs,
        maxTokens: CHAT_MAX_TOKENS,
        signal,
        ontext: (delta) => {
          streamed = true;
          this.#terminal.write(delta);
        },
      });
      if (streamed) this.#terminal.write("\n");
      this.messages.push({ role: "assistant", content: result.content });
      const calls = result.content.filter((part) => part.type === "tool_use");
      if (calls.length === 0) return { gaveUp: lastFailed, cancelled: false, capped: false, failed: false };
      const results: ToolResultPart[] = [];
      let cancelled = false;
      for (const call of calls) {
        if (cancelled || signal.aborted) {
          cancelled = true;
          results.push(errorResult(call.id, "Cancelled by the user before it ran."));
          continue;
        }
        const outcome = await this.#callTool(call.id, call.name, call.input, signal);
        cancelled = outcome.cancelled;
        results.push(outcome.result);
      }
      this.messages.push({ role: "user", content: results });
      if (cancelled) return { gaveUp: false, cancelled: true, capped: false, failed: false };
      lastFailed = results.some((part) => part.isError);
    }
    this.#terminal.print(`stopped: the model called tools ${MAX_TOOL_ROUNDS} rounds in a row`, "yellow");
    return { gaveUp: lastFailed, cancelled: false, capped: true, failed: false };
  }

  /** Seeds the history with a prompt's messages, each in its own role. */
  seed(messages: { role: string; content: unknown }[]): ChatMessage[] {
    const seeded = messages.map((message) => ({
      role: message.role === "assistant" ? ("assistant" as const) : ("user" as const),
      content: contentParts(message.content),
    }));
    this.messages.push(...seeded);
    return seeded;
  }

  async #callTool(
    id: string,
    modelName: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ result: ToolResultPart; cancelled: boolean }> {
    const route = this.namespace.resolve(modelName);
    const server = route ? this.#servers.get(route.server) : undefined;
    if (!route || !server) return { result: errorResult(id, `Unknown tool ${modelName}.`), cancelled: false };
    const label = `${route.server}/${route.tool.name}`;
    this.#terminal.print(`→ ${label} ${JSON.stringify(input)}`, "cyan");
    try {
      const result = await server.client.callTool(
        { name: route.tool.name, arguments: input, ...server.requestMeta },
        {
          signal,
          timeout: REQUEST_TIMEOUT_MS,
          onprogress: (progress) => {
            const total = progress.total !== undefined ? `/${progress.total}` : "";
            this.#terminal.print(`  … ${label} ${progress.progress}${total}${progress.message ? ` ${progress.message}` : ""}`, "dim");
          },
        },
      );
      const isError = result.isError === true;
      const parts = resultParts(result);
      this.#terminal.print(`${isError ? "✗" : "←"} ${label}: ${preview(parts)}`, isError ? "red" : "dim");
      return { result: { type: "tool_result", toolUseId: id, content: parts, isError }, cancelled: false };
    } catch (error) {
      if (signal.aborted) {
        this.#terminal.print(`✗ ${label}: cancelled`, "yellow");
        return { result: errorResult(id, "Cancelled by the user while it ran."), cancelled: true };
      }
      const message = (error as Error).message;
      this.#terminal.print(`✗ ${label}: ${message}`, "red");
      const elicitations = urlElicitations(error);
      if (elicitations.length > 0) return { result: await this.#browserSteps(id, route.server, elicitations, signal), cancelled: false };
      return { result: errorResult(id, message), cancelled: false };
    }
  }

  /** The server needs the user in a browser first: ask, then tell the model to call again once done. */
  async #browserSteps(id: string, server: string, elicitations: Record<string, unknown>[], signal: AbortSignal): Promise<ToolResultPart> {
    const outcomes: string[] = [];
    for (const elicitation of elicitations) {
      const answer = await this.#askUrl(server, { mode: "url", ...elicitation }, signal);
      outcomes.push(`${String(elicitation.url)}: the user ${answer.action === "accept" ? "opened it" : "declined"}`);
    }
    return errorResult(
      id,
      `The server needs a step in the user's browser before this call can succeed (${outcomes.join("; ")}). Call the tool again once ` +
        `the user says it is done.`,
    );
  }

  async #withAttachments(text: string, signal: AbortSignal): Promise<ContentPart[]> {
    const parts: ContentPart[] = [];
    for (const match of text.matchAll(MENTION)) {
      const server = this.#servers.get(match[1]!);
      if (!server) continue;
      const uri = knownUri(server, match[2]!);
      try {
        const result = await server.client.readResource({ uri, ...server.requestMeta }, { signal });
        const attached = attachment(server.key, uri, result.contents as ResourceContents[]);
        parts.push(...attached);
        this.#terminal.print(`attached @${server.key}:${uri}`, "dim");
      } catch (error) {
        this.#terminal.print(`could not attach @${server.key}:${uri}: ${(error as Error).message}`, "red");
      }
    }
    parts.push({ type: "text", text });
    return parts;
  }

  #systemPrompt(): string {
    const lines = [
      "You are mcp-host, a chat host whose only tools come from the MCP servers the user connected.",
      "Tool names are mcp__<server>__<tool>. Resources the user attaches arrive in <resource> blocks that name their server and URI; " +
        "they are already read, do not fetch them again.",
    ];
    for (const server of this.#servers.values()) {
      const instructions = server.client.getInstructions();
      if (instructions) lines.push(`Instructions from MCP server "${server.key}":\n${instructions}`);
    }
    return lines.join("\n\n");
  }
}

type ResourceContents = { uri: string; mimeType?: string; text?: string; blob?: string };

/** The resource's own URI when the mention carried trailing punctuation ("@s:uri?"). */
function knownUri(server: ServerConnection, mentioned: string): string {
  if (server.resources.some((r) => r.uri === mentioned)) return mentioned;
  const trimmed = mentioned.replace(/[.,;:!?)\]]+$/, "");
  return trimmed || mentioned;
}

function attachment(server: string, uri: string, contents: ResourceContents[]): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const item of contents) {
    const label = `<resource server="${attr(server)}" uri="${attr(item.uri ?? uri)}" mimeType="${attr(item.mimeType ?? "unknown")}">`;
    if (item.blob !== undefined && item.mimeType?.startsWith("image/")) {
      parts.push({ type: "text", text: `${label}(image follows)</resource>` });
      parts.push({ type: "image", data: item.blob, mimeType: item.mimeType });
      continue;
    }
    let body = item.text ?? `[binary content, ${item.blob?.length ?? 0} base64 characters, not shown]`;
    if (body.length > MAX_ATTACHMENT_CHARS) body = `${body.slice(0, MAX_ATTACHMENT_CHARS)}\n[truncated: ${body.length} characters in all]`;
    parts.push({ type: "text", text: `${label}\n${body}\n</resource>` });
  }
  return parts;
}

function attr(value: string): string {
  return value.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function errorResult(id: string, text: string): ToolResultPart {
  return { type: "tool_result", toolUseId: id, content: [{ type: "text", text }], isError: true };
}

function preview(parts: (TextPart | ImagePart)[]): string {
  const text = parts
    .map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`))
    .join(" ")
    .replace(/\s+/g, " ");
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 3)}...` : text;
}

function urlElicitations(error: unknown): Record<string, unknown>[] {
  const { code, data } = error as { code?: number; data?: { elicitations?: unknown } };
  if (code !== ErrorCode.UrlElicitationRequired || !Array.isArray(data?.elicitations)) return [];
  return data.elicitations.filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null);
}
