// The Gemini API (generateContent) behind the model seam, through the official @google/genai SDK.
// One concept past 250 lines: one vendor's wire, both ways (requests, streamed answers, failures).

import type { Content, FunctionDeclaration, GenerateContentResponse, Model, Part } from "@google/genai";
import { ApiError, FinishReason, GoogleGenAI } from "@google/genai";
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

const VENDOR = "gemini";
export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/";
const MODELS_PAGE_SIZE = 1000;
/** The SDK's first back-off (it defaults to a full second, then doubles with jitter). */
const RETRY_DELAY_SECONDS = 0.5;
/** Marks the ids we invent for function calls that came without one; they are never sent back. */
export const SYNTHETIC_ID_PREFIX = "gemini-call-";
/**
 * Gemini 3 rejects a replayed function call without the thoughtSignature it came with. Calls from
 * elsewhere (another vendor's history, a restarted host) have none: Google documents this value as
 * the way to skip the check (ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const SKIP_SIGNATURE_CHECK = "skip_thought_signature_validator";

/** gemini-2.5-flash or gemini-2.0-flash-001: stable flash only (no lite, preview, exp, image, tts, live). */
const STABLE_FLASH = /^gemini-(\d+(?:\.\d+)*)-flash(-\d{3})?$/;

/**
 * Newest stable Flash (the mid tier) that supports generateContent. The Gemini models API has no
 * release date, so "newest" is the highest version in the name; the undated alias beats its
 * numbered snapshots. Pure, so tests feed it lists.
 */
export function pickGeminiModel(models: readonly Pick<Model, "name" | "supportedActions">[]): string | undefined {
  const candidates = models.flatMap((model) => {
    const id = (model.name ?? "").replace(/^models\//, "");
    const match = STABLE_FLASH.exec(id);
    if (!match?.[1] || !model.supportedActions?.includes("generateContent")) return [];
    return [{ id, version: match[1].split(".").map(Number), isSnapshot: Boolean(match[2]) }];
  });
  candidates.sort(
    (a, b) => compareVersions(b.version, a.version) || Number(a.isSnapshot) - Number(b.isSnapshot) || b.id.localeCompare(a.id),
  );
  return candidates[0]?.id;
}

function compareVersions(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

export async function createGeminiProvider(options: ProviderOptions): Promise<LLMProvider> {
  const { env } = options;
  const apiKey = env.GEMINI_API_KEY?.trim();
  if (!apiKey) throw new Error(`${VENDOR}: no credential (set GEMINI_API_KEY)`);
  const base = baseUrlFrom(env, "GEMINI_BASE_URL", GEMINI_DEFAULT_BASE_URL, VENDOR);
  const context: ErrorContext = { keyVar: "GEMINI_API_KEY", endpoint: base.endpoint };
  // Backend and base URL are explicit so the SDK does not switch to Vertex AI or another host
  // because of GOOGLE_* variables in process.env.
  const client = new GoogleGenAI({
    apiKey,
    vertexai: false,
    httpOptions: {
      baseUrl: base.url,
      // `attempts` counts the first try; the SDK does not retry at all without retryOptions.
      retryOptions: { attempts: 1 + VENDOR_MAX_RETRIES, initialDelay: RETRY_DELAY_SECONDS },
    },
  });

  const model = await resolveModel({
    pinned: options.model,
    envVar: "GEMINI_MODEL",
    env,
    vendor: VENDOR,
    wanted: "stable Flash model supporting generateContent",
    listModels: () => client.models.list({ config: { pageSize: MODELS_PAGE_SIZE } }),
    pick: pickGeminiModel,
    describeError: (error) => toOneLineError(error, context),
  });

  /** thoughtSignature per tool_use id, to replay on the next turn (see SKIP_SIGNATURE_CHECK). */
  const signatures = new Map<string, string>();

  return {
    name: VENDOR,
    model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      try {
        const stream = await client.models.generateContentStream({
          model,
          contents: toGeminiContents(request.messages, signatures),
          config: {
            abortSignal: request.signal,
            maxOutputTokens: request.maxTokens,
            automaticFunctionCalling: { disable: true },
            ...(request.system ? { systemInstruction: request.system } : {}),
            ...(request.tools?.length ? { tools: [{ functionDeclarations: request.tools.map(toFunctionDeclaration) }] } : {}),
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
            ...(request.stopSequences?.length ? { stopSequences: request.stopSequences } : {}),
          },
        });
        const turn = new StreamedTurn(model, signatures);
        for await (const chunk of stream) {
          // Chunks already buffered still arrive after an abort; the caller has moved on.
          request.signal?.throwIfAborted();
          turn.add(chunk, request.ontext);
        }
        // The SDK ends the iteration quietly when the signal aborts the read.
        request.signal?.throwIfAborted();
        return turn.result();
      } catch (error) {
        if (request.signal?.aborted) throw abortedError(VENDOR);
        throw toOneLineError(error, context);
      }
    },
  };
}

/** Accumulates streamed chunks: text deltas merged into one part until a function call intervenes. */
class StreamedTurn {
  private readonly content: GenerateResult["content"] = [];
  private finish: FinishReason | undefined;
  private blocked = false;
  constructor(
    private model: string,
    private readonly signatures: Map<string, string>,
  ) {}

  add(chunk: GenerateContentResponse, ontext?: (delta: string) => void): void {
    if (chunk.modelVersion) this.model = chunk.modelVersion;
    if (chunk.promptFeedback?.blockReason) this.blocked = true;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) continue; // thought summaries were not asked for and are not the answer
      if (part.text) {
        const last = this.content.at(-1);
        if (last?.type === "text") last.text += part.text;
        else this.content.push({ type: "text", text: part.text });
        ontext?.(part.text);
      }
      if (part.functionCall) {
        const id = part.functionCall.id || `${SYNTHETIC_ID_PREFIX}${crypto.randomUUID()}`;
        if (part.thoughtSignature) this.signatures.set(id, part.thoughtSignature);
        this.content.push({ type: "tool_use", id, name: part.functionCall.name ?? "", input: part.functionCall.args ?? {} });
      }
    }
    if (candidate?.finishReason) this.finish = candidate.finishReason;
  }

  result(): GenerateResult {
    const calledTools = this.content.some((part) => part.type === "tool_use");
    const stopReason = this.blocked ? "refusal" : mapGeminiFinishReason(this.finish, calledTools);
    return { content: this.content, stopReason, model: this.model };
  }
}

const REFUSAL_REASONS = new Set<string>([
  FinishReason.SAFETY,
  FinishReason.RECITATION,
  FinishReason.BLOCKLIST,
  FinishReason.PROHIBITED_CONTENT,
  FinishReason.SPII,
  FinishReason.IMAGE_SAFETY,
  FinishReason.IMAGE_PROHIBITED_CONTENT,
  FinishReason.IMAGE_RECITATION,
]);

export function mapGeminiFinishReason(reason: string | undefined, calledTools: boolean): StopReason {
  // Gemini says STOP both for a finished answer and for a turn that ends in function calls.
  if (reason === FinishReason.STOP || reason === undefined) return calledTools ? "tool_use" : "end_turn";
  if (reason === FinishReason.MAX_TOKENS) return "max_tokens";
  if (REFUSAL_REASONS.has(reason)) return "refusal";
  return "other";
}

export function toGeminiContents(messages: ChatMessage[], signatures: ReadonlyMap<string, string> = new Map()): Content[] {
  const toolNames = toolNamesById(messages);
  return messages.map((message) => {
    const responses: Part[] = [];
    const parts: Part[] = [];
    const toolImages: Part[] = [];
    let signedCall = false;
    for (const part of message.content) {
      if (part.type === "text") parts.push({ text: part.text });
      else if (part.type === "image") parts.push(inlineData(part));
      else if (part.type === "tool_use") {
        // Only the first call of a turn is checked for a signature (parallel calls share it).
        const signature = signatures.get(part.id) ?? (signedCall ? undefined : SKIP_SIGNATURE_CHECK);
        signedCall = true;
        parts.push({
          functionCall: { ...vendorId(part.id), name: part.name, args: part.input },
          ...(signature ? { thoughtSignature: signature } : {}),
        });
      } else {
        const name = toolNames.get(part.toolUseId) ?? part.toolUseId;
        responses.push({ functionResponse: { ...vendorId(part.toolUseId), name, response: toolResponse(part) } });
        // Images ride as ordinary parts after the responses: multimodal function responses are Gemini 3 only.
        for (const inner of part.content) {
          if (inner.type === "image") toolImages.push({ text: `Image returned by the ${name} call:` }, inlineData(inner));
        }
      }
    }
    // Function responses come first and together: the API pairs them with the previous turn's calls.
    return { role: message.role === "assistant" ? "model" : "user", parts: [...responses, ...parts, ...toolImages] };
  });
}

function inlineData(image: ImagePart): Part {
  return { inlineData: { mimeType: image.mimeType, data: image.data } };
}

/** The tool name behind each tool_use id: a functionResponse is matched to its call by name. */
function toolNamesById(messages: ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.content) if (part.type === "tool_use") names.set(part.id, part.name);
  }
  return names;
}

/** Ids Gemini issued go back to it; ids we invented for it do not. */
function vendorId(id: string): { id?: string } {
  return id.startsWith(SYNTHETIC_ID_PREFIX) ? {} : { id };
}

/** Gemini's documented convention: the result under "output", a failure under "error". */
function toolResponse(part: ToolResultPart): Record<string, unknown> {
  const text = part.content.flatMap((inner) => (inner.type === "text" ? [inner.text] : [])).join("\n");
  return part.isError ? { error: text || "the tool failed" } : { output: text };
}

export function toFunctionDeclaration(spec: ToolSpec): FunctionDeclaration {
  // parametersJsonSchema takes JSON Schema as is; `parameters` would need Gemini's OpenAPI subset.
  return { name: spec.name, ...(spec.description ? { description: spec.description } : {}), parametersJsonSchema: spec.inputSchema };
}

type ErrorContext = Pick<VendorFailure, "keyVar" | "endpoint">;

function toOneLineError(error: unknown, context: ErrorContext): Error {
  if (error instanceof ApiError) {
    return vendorError({ vendor: VENDOR, status: error.status, message: messageFromBody(error.message), ...context });
  }
  // fetch rejects with a TypeError exactly when no response came.
  return vendorError({ vendor: VENDOR, message: messageWithCause(error), unreachable: error instanceof TypeError, ...context });
}

/**
 * The SDK's message is the JSON error body, sometimes after a preamble ("got status: UNAVAILABLE.
 * {...}" for an error inside a stream): keep the body's `error.message`.
 */
function messageFromBody(raw: string): string {
  try {
    const body = JSON.parse(raw.slice(Math.max(0, raw.indexOf("{")))) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") return body.error.message;
  } catch {
    // not JSON: use it as it is
  }
  return raw;
}
