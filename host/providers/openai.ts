// OpenAI Chat Completions behind the model seam, through the official SDK. Chat Completions, not
// Responses, because it is what compatible servers (Ollama, vLLM, llama.cpp, LiteLLM) implement.
// One concept past 250 lines: one vendor's wire, both ways (requests, streamed answers, failures).
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { Model } from "openai/resources/models";
import type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  ImagePart,
  LLMProvider,
  ProviderOptions,
  StopReason,
  ToolResultPart,
  ToolSpec,
} from "../provider.ts";
import {
  abortedError,
  baseUrlFrom,
  messageWithCause,
  resolveModel,
  VENDOR_MAX_RETRIES,
  type VendorFailure,
  vendorError,
} from "./resolve-model.ts";

const VENDOR = "openai";
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
const OFFICIAL_API_HOST = "api.openai.com";
/** Local servers ignore the key, but the SDK refuses to send a request without one. */
export const LOCAL_SERVER_PLACEHOLDER_KEY = "no-key-needed";
/** What a failed tool result says first, since Chat Completions has no error flag for it. */
export const TOOL_ERROR_PREFIX = "Error: ";

/** gpt-5.1, gpt-4.1, gpt-4o and their dated snapshots (gpt-4.1-2025-04-14); nothing with a variant suffix. */
const MAINLINE_GPT = /^gpt-(\d+(?:\.\d+)?o?)(-\d{4}-\d{2}-\d{2}|-\d{4})?$/;

/**
 * Newest mainline GPT chat model by `created`. The allow-list shape drops every variant (mini, nano,
 * pro, audio, realtime, search, transcribe, tts, image, codex, instruct, oss, chat-latest), and a dated
 * snapshot counts only when its undated alias is not listed. Pure, so tests feed it lists.
 */
export function pickOpenAIModel(models: readonly Pick<Model, "id" | "created">[]): string | undefined {
  const mainline = models.filter((model) => MAINLINE_GPT.test(model.id));
  const aliases = new Set(mainline.filter((model) => !MAINLINE_GPT.exec(model.id)?.[2]).map((model) => model.id));
  const candidates = mainline.filter((model) => {
    const match = MAINLINE_GPT.exec(model.id);
    return !match?.[2] || !aliases.has(`gpt-${match[1]}`);
  });
  candidates.sort((a, b) => b.created - a.created);
  return candidates[0]?.id;
}

export async function createOpenAIProvider(options: ProviderOptions): Promise<LLMProvider> {
  const { env } = options;
  const base = baseUrlFrom(env, "OPENAI_BASE_URL", OPENAI_DEFAULT_BASE_URL, VENDOR);
  const baseURL = base.url;
  const isOfficial = new URL(baseURL).hostname === OFFICIAL_API_HOST;
  const context: ErrorContext = { keyVar: "OPENAI_API_KEY", endpoint: base.endpoint };
  const apiKey = env.OPENAI_API_KEY?.trim() || (isOfficial ? undefined : LOCAL_SERVER_PLACEHOLDER_KEY);
  if (!apiKey) throw new Error(`${VENDOR}: no credential (set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server)`);
  // Every value is passed explicitly so the SDK never reads process.env behind the host's back.
  const client = new OpenAI({
    apiKey,
    baseURL,
    organization: env.OPENAI_ORG_ID?.trim() || null,
    project: env.OPENAI_PROJECT_ID?.trim() || null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: VENDOR_MAX_RETRIES,
  });

  const model = await resolveModel({
    pinned: options.model,
    envVar: "OPENAI_MODEL",
    env,
    vendor: VENDOR,
    wanted: isOfficial ? "mainline GPT chat model" : `mainline GPT chat model at ${baseURL}`,
    listModels: () => client.models.list(),
    pick: pickOpenAIModel,
    describeError: (error) => toOneLineError(error, context),
  });

  return {
    name: VENDOR,
    model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const body: ChatCompletionCreateParamsStreaming = {
        model,
        stream: true,
        messages: toOpenAIMessages(request.system, request.messages),
        ...maxTokensParam(baseURL, request.maxTokens),
        ...(request.tools?.length ? { tools: request.tools.map(toOpenAITool) } : {}),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.stopSequences?.length ? { stop: request.stopSequences } : {}),
      };
      try {
        const stream = await client.chat.completions.create(body, { signal: request.signal });
        const turn = new StreamedTurn(model);
        for await (const chunk of stream) {
          // Chunks already buffered still arrive after an abort; the caller has moved on.
          request.signal?.throwIfAborted();
          turn.add(chunk, request.ontext);
        }
        // The SDK ends the iteration quietly when the signal aborts the read.
        request.signal?.throwIfAborted();
        return turn.result();
      } catch (error) {
        if (request.signal?.aborted || error instanceof APIUserAbortError) throw abortedError(VENDOR);
        throw toOneLineError(error, context);
      }
    },
  };
}

/**
 * OpenAI deprecated `max_tokens` and its reasoning models reject it; Ollama and most compatible
 * servers know only `max_tokens`. So the field depends on who is listening.
 */
export function maxTokensParam(baseURL: string, maxTokens: number): { max_completion_tokens: number } | { max_tokens: number } {
  return new URL(baseURL).hostname === OFFICIAL_API_HOST ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens };
}

/** Accumulates chat.completion.chunk deltas: text as it comes, tool calls by their stream index. */
class StreamedTurn {
  private text = "";
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private finish: ChatCompletionChunk.Choice["finish_reason"] = null;
  private refused = false;
  constructor(private model: string) {}

  add(chunk: ChatCompletionChunk, ontext?: (delta: string) => void): void {
    if (chunk.model) this.model = chunk.model;
    const choice = chunk.choices[0];
    if (!choice) return; // the usage-only chunk
    const { content, refusal, tool_calls } = choice.delta;
    for (const delta of [content, refusal]) {
      if (!delta) continue;
      this.text += delta;
      ontext?.(delta);
    }
    if (refusal) this.refused = true;
    for (const call of tool_calls ?? []) {
      const entry = this.calls.get(call.index) ?? { id: "", name: "", args: "" };
      // id and name arrive once, on the call's first delta; arguments arrive in pieces.
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name += call.function.name;
      if (call.function?.arguments) entry.args += call.function.arguments;
      this.calls.set(call.index, entry);
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  result(): GenerateResult {
    const content: GenerateResult["content"] = this.text ? [{ type: "text", text: this.text }] : [];
    const ordered = [...this.calls.entries()].sort(([a], [b]) => a - b);
    for (const [index, call] of ordered) {
      content.push({ type: "tool_use", id: call.id || `call_${index}`, name: call.name, input: parseArguments(call.name, call.args) });
    }
    const stopReason = this.refused ? "refusal" : mapOpenAiFinishReason(this.finish, ordered.length > 0);
    return { content, stopReason, model: this.model };
  }
}

function parseArguments(name: string, args: string): Record<string, unknown> {
  if (!args.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new Error(`the model called ${name} with arguments that are not a JSON object: ${args}`);
}

export function mapOpenAiFinishReason(reason: string | null, calledTools: boolean): StopReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "stop":
      // Some compatible servers say "stop" after a tool call.
      return calledTools ? "tool_use" : "end_turn";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return calledTools ? "tool_use" : "other";
  }
}

export function toOpenAIMessages(system: string | undefined, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const mapped: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) mapped.push(...(message.role === "assistant" ? [toAssistantMessage(message)] : toUserMessages(message)));
  return mapped;
}

function toAssistantMessage(message: ChatMessage): ChatCompletionMessageParam {
  const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  const calls = message.content.flatMap((part) =>
    part.type === "tool_use"
      ? [{ id: part.id, type: "function" as const, function: { name: part.name, arguments: JSON.stringify(part.input) } }]
      : [],
  );
  return { role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) };
}

/**
 * Tool results become `tool` messages, which must directly follow the assistant's tool_calls; the
 * user's own parts and any images a tool returned (a tool message carries text only) follow in one
 * user message.
 */
function toUserMessages(message: ChatMessage): ChatCompletionMessageParam[] {
  const toolMessages: ChatCompletionMessageParam[] = [];
  const userParts: ChatCompletionContentPart[] = [];
  for (const part of message.content) {
    if (part.type === "tool_result") {
      toolMessages.push({ role: "tool", tool_call_id: part.toolUseId, content: toolResultText(part) });
      for (const inner of part.content) {
        if (inner.type !== "image") continue;
        userParts.push({ type: "text", text: `Image returned by tool call ${part.toolUseId}:` }, toImagePart(inner));
      }
    } else if (part.type === "text") userParts.push({ type: "text", text: part.text });
    else if (part.type === "image") userParts.push(toImagePart(part));
  }
  if (userParts.length === 0) return toolMessages;
  // A lone text part goes as a plain string: the form every compatible server accepts.
  const only = userParts.length === 1 ? userParts[0] : undefined;
  const content = only?.type === "text" ? only.text : userParts;
  return [...toolMessages, { role: "user", content }];
}

function toolResultText(part: ToolResultPart): string {
  const text = part.content.flatMap((inner) => (inner.type === "text" ? [inner.text] : [])).join("\n");
  const body = text || (part.content.length ? "(the result is the image that follows)" : "(no output)");
  return part.isError ? `${TOOL_ERROR_PREFIX}${body}` : body;
}

function toImagePart(part: ImagePart): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}

export function toOpenAITool(spec: ToolSpec): ChatCompletionFunctionTool {
  return {
    type: "function",
    function: { name: spec.name, ...(spec.description ? { description: spec.description } : {}), parameters: spec.inputSchema },
  };
}

type ErrorContext = Pick<VendorFailure, "keyVar" | "endpoint">;

function toOneLineError(error: unknown, context: ErrorContext): Error {
  if (error instanceof APIConnectionError)
    return vendorError({ vendor: VENDOR, message: messageWithCause(error), unreachable: true, ...context });
  if (error instanceof APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const message = typeof body?.message === "string" ? body.message : error.message.replace(/^\d+\s*/, "");
    return vendorError({ vendor: VENDOR, status: error.status, message, ...context });
  }
  return vendorError({ vendor: VENDOR, message: messageWithCause(error), ...context });
}
