// What each inspection does once it has a connection (a Call) and its input: list, call, read,
// get, complete, identify, ping, follow a task. The CLI's one-shot commands run these; what reads
// their input from argv is inspect/commands/one-shot.ts.

import type { JsonObject } from "../lib/wire/jsonrpc.ts";
import { pairsToArguments, validate } from "./arguments.ts";
import { CommandError, EXIT } from "./output.ts";
import type { Call } from "./session.ts";
import * as tasks from "./tasks.ts";

export const listTools = (call: Call) => call.listAll("tools/list", "tools");
export const listResources = (call: Call) => call.listAll("resources/list", "resources");
export const listResourceTemplates = (call: Call) => call.listAll("resources/templates/list", "resourceTemplates");
export const listPrompts = (call: Call) => call.listAll("prompts/list", "prompts");
export const readResource = (call: Call, uri: string) => call.request("resources/read", { uri });
export const getPrompt = (call: Call, input: { name: string; values: Record<string, string> }) =>
  call.request("prompts/get", { name: input.name, arguments: input.values });
export const complete = (call: Call, params: JsonObject) => call.request("completion/complete", params);

export interface CompletionInput {
  /** Exactly one of a prompt's name or a resource template's URI. */
  prompt?: string;
  resource?: string;
  argument: { name: string; value: string };
  context?: Record<string, string>;
}

/** completion/complete's params for an argument being typed, of a prompt or of a resource template. */
export function completionParams(input: CompletionInput): JsonObject {
  if (Boolean(input.prompt) === Boolean(input.resource))
    throw new CommandError(EXIT.usage, "give exactly one of a prompt name or a resource template URI");
  return {
    ref: input.prompt ? { type: "ref/prompt", name: input.prompt } : { type: "ref/resource", uri: input.resource! },
    argument: input.argument,
    ...(input.context ? { context: { arguments: input.context } } : {}),
  };
}
export const serverInfo = async (call: Call) => call.identity();
export const ping = (call: Call) => call.ping();

export interface ToolCallInput {
  name: string;
  /** Arguments given whole (--params); key=value pairs go on top, typed by the tool's schema. */
  base: JsonObject;
  pairs: string[];
  /** Check the arguments against the tool's inputSchema first. */
  validate: boolean;
  mode: tasks.TaskMode;
  /** The server outlives this process (a task may be left running). */
  lasting: boolean;
  onstatus?: (line: string) => void;
}

/**
 * One tool call: the tool looked up when its schema is needed, the arguments built and checked,
 * then called (as a task if it asks for one).
 */
export async function callTool(call: Call, input: ToolCallInput): Promise<JsonObject> {
  const { name, base, pairs, validate: check, mode, lasting, onstatus } = input;
  // (Over 2026-07-28 HTTP the channel lists the tools itself when it needs their Mcp-Param headers.)
  let schema: Record<string, unknown> | undefined;
  let tool: Record<string, unknown> | undefined;
  if (check || pairs.length > 0) {
    const { tools } = (await call.listAll("tools/list", "tools")) as { tools: Record<string, unknown>[] };
    tool = tools.find((t) => t.name === name);
    if (!tool)
      throw new CommandError(
        EXIT.usage,
        `unknown tool "${name}" (the server has: ${tools.map((t) => String(t.name)).join(", ") || "no tools"})`,
      );
    schema = tool.inputSchema as Record<string, unknown> | undefined;
  }
  const built = pairsToArguments(pairs, schema, base);
  if (!built.ok) throw new CommandError(EXIT.usage, built.error);
  if (check) {
    const problems = validate(built.value, schema);
    if (problems.length > 0) {
      throw new CommandError(EXIT.usage, `invalid arguments for ${name}: ${problems.slice(0, 5).join("; ")} (or pass --no-validate)`, {
        problems,
      });
    }
  }
  return tasks.runToolCall(call, { name, arguments: built.value, mode, tool, onstatus, lasting });
}

export const followTask = (call: Call, input: { action: tasks.TaskAction; taskId: string; onstatus?: (line: string) => void }) =>
  tasks.runTaskAction(call, input.action, input.taskId, input.onstatus);
