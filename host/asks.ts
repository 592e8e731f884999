// What a server may ask of the host, and how the user stays in charge: sampling is shown in full and
// runs only after approval (through the chat's own model, maxTokens capped); elicitation is lib's
// terminal form (lib/terminal/elicitation-form.ts), shown in the chat's terminal.
import type { ChatMessage, LLMProvider } from "./provider.ts";
import { textOf } from "./provider.ts";
import type { Terminal } from "./terminal.ts";
import { contentParts } from "./tools.ts";

/** Whatever the server asks for, a sampled answer is at most this long. */
export const SAMPLING_MAX_TOKENS = 1024;

export class AskRefused extends Error {
  readonly code = -1;
}

type Json = Record<string, unknown>;

export async function answerSampling(
  server: string,
  params: Json,
  terminal: Terminal,
  provider: LLMProvider,
  signal?: AbortSignal,
): Promise<Json> {
  terminal.print(`[${server}] asks to use the model (sampling/createMessage):`, "yellow");
  if (typeof params.systemPrompt === "string") terminal.print(`  system: ${params.systemPrompt}`);
  const messages = (Array.isArray(params.messages) ? params.messages : []) as { role: string; content: unknown }[];
  for (const message of messages) terminal.print(`  ${message.role}: ${samplingText(message.content)}`);
  const requested = typeof params.maxTokens === "number" ? params.maxTokens : SAMPLING_MAX_TOKENS;
  const maxTokens = Math.min(requested, SAMPLING_MAX_TOKENS);
  const details = [`maxTokens ${requested}${requested > maxTokens ? ` (capped to ${maxTokens})` : ""}`];
  if (params.modelPreferences) details.push(`preferences ${JSON.stringify(params.modelPreferences)}`);
  if (typeof params.temperature === "number") details.push(`temperature ${params.temperature}`);
  terminal.print(`  ${details.join(", ")}`, "dim");
  if (!(await terminal.confirm(`Allow ${server} to sample ${provider.name}/${provider.model}?`, signal))) {
    terminal.print("sampling declined", "dim");
    throw new AskRefused("the user declined the sampling request");
  }
  const result = await provider.generate({
    system: typeof params.systemPrompt === "string" ? params.systemPrompt : undefined,
    messages: messages.map(samplingMessage),
    maxTokens,
    temperature: typeof params.temperature === "number" ? params.temperature : undefined,
    stopSequences: Array.isArray(params.stopSequences) ? (params.stopSequences as string[]) : undefined,
    signal,
  });
  const text = textOf(result.content);
  terminal.print(`  sampled: ${text}`, "dim");
  const stopReason = result.stopReason === "max_tokens" ? "maxTokens" : result.stopReason === "stop_sequence" ? "stopSequence" : "endTurn";
  return { role: "assistant", content: { type: "text", text }, model: result.model, stopReason };
}

function samplingText(content: unknown): string {
  const blocks = (Array.isArray(content) ? content : [content]) as Json[];
  return blocks.map((block) => (block?.type === "text" ? String(block.text) : `[${String(block?.type)}]`)).join(" ");
}

function samplingMessage(message: { role: string; content: unknown }): ChatMessage {
  return { role: message.role === "assistant" ? "assistant" : "user", content: contentParts(message.content) };
}

// Elicitation forms are lib's: mcp-inspect shows the same ones.
export { answerElicitation, parseField } from "../lib/terminal/elicitation-form.ts";
