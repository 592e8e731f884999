// The Anthropic Messages API behind the model seam, through the official SDK.
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type {
  StopReason as AnthropicStopReason,
  Base64ImageSource,
  ContentBlock,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { ModelInfo } from "@anthropic-ai/sdk/resources/models";
import type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  ImagePart,
  LLMProvider,
  ProviderOptions,
  StopReason,
  TextPart,
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

const VENDOR = "anthropic";
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
/** The models API's largest page: one request sees the whole catalogue. */
const MODELS_PAGE_SIZE = 1000;

/** Newest active Sonnet (the mid tier) by release date. Pure, so tests feed it lists. */
export function pickAnthropicModel(models: readonly Pick<ModelInfo, "id" | "created_at" | "line" | "lifecycle">[]): string | undefined {
  const sonnets = models.filter((model) => {
    if (model.lifecycle !== undefined && model.lifecycle !== "active") return false;
    // `line` is authoritative where the API sends it; compatible gateways that predate it
    // (no field at all) are matched by id instead.
    return model.line === undefined ? /sonnet/i.test(model.id) : model.line === "sonnet";
  });
  sonnets.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  return sonnets[0]?.id;
}

export async function createAnthropicProvider(options: ProviderOptions): Promise<LLMProvider> {
  const { env } = options;
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  const authToken = env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (!apiKey && !authToken) throw new Error(`${VENDOR}: no credential (set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN)`);
  const base = baseUrlFrom(env, "ANTHROPIC_BASE_URL", ANTHROPIC_DEFAULT_BASE_URL, VENDOR);
  const context: ErrorContext = { keyVar: apiKey ? "ANTHROPIC_API_KEY" : "ANTHROPIC_AUTH_TOKEN", endpoint: base.endpoint };
  // Every value is passed explicitly (null = "none"), so the SDK never falls back to process.env
  // or to its config-file credential chain behind the host's back.
  const client = new Anthropic({
    ...(apiKey ? { apiKey, authToken: null } : { apiKey: null, authToken }),
    baseURL: base.url,
    maxRetries: VENDOR_MAX_RETRIES,
  });

  const model = await resolveModel({
    pinned: options.model,
    envVar: "ANTHROPIC_MODEL",
    env,
    vendor: VENDOR,
    wanted: "active Sonnet model",
    listModels: () => client.models.list({ limit: MODELS_PAGE_SIZE }),
    pick: pickAnthropicModel,
    describeError: (error) => toOneLineError(error, context),
  });

  return {
    name: VENDOR,
    model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      try {
        const stream = client.messages.stream(
          {
            model,
            max_tokens: request.maxTokens,
            messages: request.messages.map(toAnthropicMessage),
            ...(request.system ? { system: request.system } : {}),
            ...(request.tools?.length ? { tools: request.tools.map(toAnthropicTool) } : {}),
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
            ...(request.stopSequences?.length ? { stop_sequences: request.stopSequences } : {}),
          },
          { signal: request.signal },
        );
        const { ontext } = request;
        if (ontext) stream.on("text", (delta) => ontext(delta));
        const message = await stream.finalMessage();
        request.signal?.throwIfAborted();
        return {
          content: fromAnthropicContent(message.content),
          stopReason: mapStopReason(message.stop_reason),
          model: message.model || model,
        };
      } catch (error) {
        if (request.signal?.aborted || error instanceof APIUserAbortError) throw abortedError(VENDOR);
        throw toOneLineError(error, context);
      }
    },
  };
}

export function toAnthropicMessage(message: ChatMessage): MessageParam {
  return {
    role: message.role,
    content: message.content.map((part) => {
      switch (part.type) {
        case "text":
          return { type: "text", text: part.text };
        case "image":
          return toAnthropicImage(part);
        case "tool_use":
          return { type: "tool_use", id: part.id, name: part.name, input: part.input };
        default:
          return {
            type: "tool_result",
            tool_use_id: part.toolUseId,
            is_error: part.isError,
            content: part.content.map((inner): TextBlockParam | ImageBlockParam =>
              inner.type === "text" ? { type: "text", text: inner.text } : toAnthropicImage(inner),
            ),
          };
      }
    }),
  };
}

function toAnthropicImage(part: ImagePart): ImageBlockParam {
  // The API accepts jpeg/png/gif/webp; anything else is its 400 to report, not ours to guess.
  const mediaType = part.mimeType as Base64ImageSource["media_type"];
  return { type: "image", source: { type: "base64", media_type: mediaType, data: part.data } };
}

export function toAnthropicTool(spec: ToolSpec): Tool {
  return {
    name: spec.name,
    ...(spec.description ? { description: spec.description } : {}),
    input_schema: spec.inputSchema as Tool.InputSchema,
  };
}

function fromAnthropicContent(blocks: ContentBlock[]): GenerateResult["content"] {
  return blocks.flatMap((block): GenerateResult["content"] => {
    if (block.type === "text") return [{ type: "text", text: block.text } satisfies TextPart];
    if (block.type === "tool_use") {
      const input = block.input && typeof block.input === "object" ? (block.input as Record<string, unknown>) : {};
      return [{ type: "tool_use", id: block.id, name: block.name, input }];
    }
    return []; // thinking, server tools: not requested, and not part of the seam
  });
}

export function mapStopReason(reason: AnthropicStopReason | null): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return "other"; // pause_turn and anything newer
  }
}

type ErrorContext = Pick<VendorFailure, "keyVar" | "endpoint">;

function toOneLineError(error: unknown, context: ErrorContext): Error {
  if (error instanceof APIConnectionError)
    return vendorError({ vendor: VENDOR, message: messageWithCause(error), unreachable: true, ...context });
  if (error instanceof APIError) {
    const message = error.apiMessage ?? error.message.replace(/^\d+\s*/, "");
    // An `error` event inside a 200 stream has no status to say what kind of failure it was.
    const kind = error.status === undefined && error.type ? `${error.type}: ` : "";
    return vendorError({ vendor: VENDOR, status: error.status, message: kind + message, ...context });
  }
  return vendorError({ vendor: VENDOR, message: messageWithCause(error), ...context });
}
