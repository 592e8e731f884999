// The model seam. One small interface answers both the chat loop and servers' sampling requests,
// so every vendor is integrated once. Messages are the host's own shape, not any vendor's:
// each provider file maps them to its API and back.

export type ChatRole = "user" | "assistant";

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image"; data: string; mimeType: string };
/** The model asks for a tool. `name` is already vendor-safe ([A-Za-z0-9_-], at most 64 chars). */
export type ToolUsePart = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
/** A tool's answer, fed back verbatim: failures (`isError`) go to the model, they are not thrown. */
export type ToolResultPart = { type: "tool_result"; toolUseId: string; content: (TextPart | ImagePart)[]; isError: boolean };
export type ContentPart = TextPart | ImagePart | ToolUsePart | ToolResultPart;

export interface ChatMessage {
  role: ChatRole;
  content: ContentPart[];
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** MCP's Tool.inputSchema: JSON Schema, passed to the vendor untouched. */
  inputSchema: Record<string, unknown>;
}

export interface GenerateRequest {
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  signal?: AbortSignal;
  /** Called with each text delta as it streams in; the result still carries the full text. */
  ontext?: (delta: string) => void;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "other";

export interface GenerateResult {
  /** Text and tool_use parts, in the order the model produced them. */
  content: (TextPart | ToolUsePart)[];
  stopReason: StopReason;
  model: string;
}

export interface LLMProvider {
  readonly name: ProviderName;
  /** The resolved model id (after asking the models API when not pinned). */
  readonly model: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

export const PROVIDER_NAMES = ["anthropic", "openai", "gemini", "scripted"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface ProviderOptions {
  /** Pinned model id (--model); otherwise <VENDOR>_MODEL, otherwise resolved from the models API. */
  model?: string;
  env: Record<string, string | undefined>;
}

/** The first provider whose key is in the environment, else the keyless scripted one. */
export function pickProvider(env: Record<string, string | undefined>): ProviderName {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN) return "anthropic";
  if (env.OPENAI_API_KEY) return "openai";
  if (env.GEMINI_API_KEY) return "gemini";
  return "scripted";
}

/** The text of a message's text parts, joined. */
export function textOf(content: ContentPart[]): string {
  return content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

/** The chosen provider, with only its own vendor SDK loaded. */
export async function createProvider(name: ProviderName, options: ProviderOptions): Promise<LLMProvider> {
  switch (name) {
    case "anthropic":
      return (await import("./providers/anthropic.ts")).createAnthropicProvider(options);
    case "openai":
      return (await import("./providers/openai.ts")).createOpenAIProvider(options);
    case "gemini":
      return (await import("./providers/gemini.ts")).createGeminiProvider(options);
    case "scripted":
      return (await import("./providers/scripted.ts")).createScriptedProvider();
  }
}
