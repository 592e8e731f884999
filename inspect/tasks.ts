// Tasks: a tool call the server runs in the background under an id, followed until it ends. Two
// wire forms of one idea, chosen by the negotiated era:
// - 2025-11-25, the experimental tasks utility: the client asks for a task (tools/call with `task`,
//   for a tool whose execution.taskSupport allows it; "required" tools get one unasked), polls
//   tasks/get, and fetches tasks/result.
// - 2026-07-28, the extension io.modelcontextprotocol/tasks (SEP-2663): the client declares the
//   extension, the server decides and answers resultType "task"; tasks/get carries the result.
// A task this command created is cancelled on Ctrl-C (tasks/cancel); at --timeout it is left
// running, and every error after its creation carries its id (details.taskId).

import { McpError } from "../lib/client/raw-client.ts";
import { waitMs } from "../lib/io/reading.ts";
import { clip, oneLine, stripControl } from "../lib/io/text.ts";
import type { Target } from "../lib/targets/target.ts";
import { isJsonObject, type JsonObject } from "../lib/wire/jsonrpc.ts";
import { TASKS_EXTENSION } from "../lib/wire/protocol.ts";
import { TASK_ACTIONS } from "./flags.ts";
import { CommandError, classify, EXIT } from "./output.ts";
import type { Call } from "./session.ts";

/** Declared on every 2026-07-28 request: wherever mcp-inspect calls a tool, it follows a task. */
export const TASK_CLIENT_CAPABILITIES: JsonObject = { extensions: { [TASKS_EXTENSION]: {} } };
/** Polls no faster than this, whatever pollInterval says (0 would spin). */
export const MIN_POLL_MS = 50;
/** Nor slower: a finished task is noticed within this, whatever pollInterval says. */
export const MAX_POLL_MS = 30_000;
/** When the server suggests no pollInterval. */
export const DEFAULT_POLL_MS = 1_000;
/** A status line on stderr shows at most this much of what the server says (a server may send megabytes). */
export const MAX_STATUS_CHARS = 1_000;
/** How long Ctrl-C waits for tasks/cancel to be answered before exiting anyway. */
export const CANCEL_WAIT_MS = 2_000;

/** auto: a task only when the tool requires one (2025) or the server makes one (2026-07-28). */
export type TaskMode = "auto" | "wait" | "detach";
export type TaskAction = (typeof TASK_ACTIONS)[number];
export { TASK_ACTIONS };

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
/** Exit codes past this are signals (128 + N). */
const SIGNAL_EXIT_BASE = 128;

export interface ToolCall {
  name: string;
  arguments: JsonObject;
  mode: TaskMode;
  /** The tool's tools/list entry, when the caller has listed the tools already. */
  tool?: JsonObject;
  /** Told each new state of the task, as one line (server text stripped of control sequences). */
  onstatus?: (line: string) => void;
  /** Whether the server outlives this command (not a one-shot stdio server); default yes. */
  lasting?: boolean;
}

/** A task outlives this process only where the server does: over HTTP, or kept by mcp-daemon. */
export function outlivesProcess(target: Target, stateful: boolean): boolean {
  return target.kind === "http" || stateful || target.stateful === true;
}

/** tools/call, as a task when asked or needed: the tool's result, or with `detach` the task itself. */
export async function runToolCall(call: Call, request: ToolCall): Promise<JsonObject> {
  const modern = call.identity().era === "modern";
  const offered = offersTasks(call, "call");
  if (request.mode !== "auto" && !offered) {
    throw new CommandError(
      EXIT.usage,
      `the server does not run tool calls as tasks (it declares no ` +
        `${modern ? `${TASKS_EXTENSION} extension` : "tasks.requests.tools.call capability"})`,
    );
  }
  let params: JsonObject = { name: request.name, arguments: request.arguments };
  if (!modern && offered) {
    const support = taskSupportOf(request.tool ?? (await findTool(call, request.name)));
    if (request.mode !== "auto" && support !== "required" && support !== "optional") {
      throw new CommandError(
        EXIT.usage,
        `tool "${request.name}" does not run as a task (its execution.taskSupport is ${support ?? "absent"})`,
      );
    }
    // Spec: clients MUST call a "required" tool as a task.
    if (request.mode !== "auto" || support === "required") params = { ...params, task: {} };
  }
  const answer = await call.request("tools/call", params);
  const task = createdTask(answer, modern);
  if (!task) return answer;
  if (request.mode === "detach") {
    request.onstatus?.(statusLine(task));
    return task;
  }
  return follow(call, String(task.taskId), { first: task, owned: true, onstatus: request.onstatus, lasting: request.lasting ?? true });
}

/** `task get|result|cancel <id>`: its state; its result, once it ends; or its cancellation. */
export async function runTaskAction(
  call: Call,
  action: TaskAction,
  taskId: string,
  onstatus?: (line: string) => void,
): Promise<JsonObject> {
  if (!offersTasks(call, action)) {
    const modern = call.identity().era === "modern";
    throw new CommandError(
      EXIT.usage,
      `the server offers no ${action === "cancel" ? "task cancellation" : "tasks"} (it declares no ` +
        `${modern ? `${TASKS_EXTENSION} extension` : action === "cancel" ? "tasks.cancel capability" : "tasks capability"})`,
    );
  }
  if (action === "get") return call.request("tasks/get", { taskId });
  if (action === "result") return follow(call, taskId, { owned: false, onstatus, lasting: true });
  const answer = await call.request("tasks/cancel", { taskId });
  // 2026-07-28 answers with an acknowledgement only; 2025 with the task.
  return { taskId, ...answer };
}

/**
 * Polls until the task ends (or, on 2025, needs input: tasks/result carries the questions), then
 * gives what the tools/call would have given. --timeout bounds the wait whatever the polls say: a
 * status that changes at every poll proves nothing (a server could keep a client waiting forever so).
 */
async function follow(
  call: Call,
  taskId: string,
  options: { first?: JsonObject; owned: boolean; lasting: boolean; onstatus?: (line: string) => void },
): Promise<JsonObject> {
  const release = call.watchdog.hold((reason) => lastWords(call, taskId, options, reason));
  try {
    let task = options.first ?? checked(await call.request("tasks/get", { taskId }), taskId);
    let shown = "";
    for (;;) {
      const line = statusLine(task);
      if (line !== shown) {
        options.onstatus?.(line);
        shown = line;
      }
      if (TERMINAL.has(String(task.status)) || task.status === "input_required") return await outcome(call, task, taskId);
      await waitMs(pollMs(task), call.watchdog.signal);
      task = checked(await call.request("tasks/get", { taskId }), taskId);
    }
  } catch (error) {
    throw withTaskId(classify(error), taskId);
  } finally {
    release();
  }
}

async function outcome(call: Call, task: JsonObject, taskId: string): Promise<JsonObject> {
  // The server's status message is its own text of any length: the error and its details carry it clipped.
  const said =
    typeof task.statusMessage === "string" ? clip(stripControl(task.statusMessage.slice(0, MAX_STATUS_CHARS + 1)), MAX_STATUS_CHARS) : "";
  const message = said ? `: ${said}` : "";
  if (task.status === "cancelled") {
    const shown = typeof task.statusMessage === "string" ? { ...task, statusMessage: said } : task;
    throw new CommandError(EXIT.toolError, `task ${taskId} was cancelled${message}`, { taskId, task: shown });
  }
  // 2025: tasks/result gives exactly what tools/call would have, a JSON-RPC error included.
  if (call.identity().era !== "modern") return call.request("tasks/result", { taskId });
  if (task.status === "completed") {
    if (typeof task.result !== "object" || task.result === null)
      throw new McpError("protocol", `the server's completed task ${taskId} carries no result`);
    return task.result as JsonObject;
  }
  if (task.status === "failed") {
    const rpc = (typeof task.error === "object" && task.error !== null ? task.error : {}) as JsonObject;
    throw new CommandError(
      EXIT.protocol,
      `the server answered with an error: ${stripControl(String(rpc.message ?? `task ${taskId} failed${message}`))}`,
      { taskId, rpcError: rpc },
    );
  }
  // input_required: answered with tasks/update, which this command does not send.
  const wanted = Object.values((task.inputRequests ?? {}) as Record<string, { method?: unknown }>).map((r) => String(r.method ?? "input"));
  throw new CommandError(
    EXIT.inputRequired,
    `task ${taskId} waits for input (${wanted.join(", ") || "input_required"}); it keeps waiting on the server`,
    { taskId, inputRequests: task.inputRequests },
  );
}

/** What the watchdog reports once it ended the wait: the task's id, and on Ctrl-C its cancellation. */
async function lastWords(
  call: Call,
  taskId: string,
  { owned, lasting }: { owned: boolean; lasting: boolean },
  reason: Error,
): Promise<Error> {
  const failure = classify(reason);
  const details = { ...failure.details, taskId };
  if (failure.exitCode === EXIT.timeout) {
    const left = lasting
      ? `task ${taskId} keeps running on the server (wait for it with \`task result ${taskId}\`)`
      : `task ${taskId} was left running, but a one-shot stdio server ends with this command (use --stateful or an HTTP server to come ` +
        `back to a task)`;
    return new CommandError(EXIT.timeout, `${failure.message}; ${left}`, details);
  }
  if (failure.exitCode <= SIGNAL_EXIT_BASE) return withTaskId(failure, taskId);
  if (!owned) return new CommandError(failure.exitCode, `interrupted; task ${taskId} keeps running on the server`, details);
  // The watchdog's signal is spent: this request goes on its own short clock.
  try {
    await call.client.request("tasks/cancel", { taskId }, { timeoutMs: CANCEL_WAIT_MS });
    return new CommandError(failure.exitCode, `${failure.message}; task ${taskId} was cancelled`, { ...details, taskCancelled: true });
  } catch (error) {
    return new CommandError(failure.exitCode, `${failure.message}; cancelling task ${taskId} failed: ${(error as Error).message}`, {
      ...details,
      taskCancelled: false,
    });
  }
}

/** Whether the server declares tasks for this use (2025 names each; 2026-07-28 has one extension). */
function offersTasks(call: Call, use: "call" | TaskAction): boolean {
  const { era, capabilities } = call.identity();
  if (era === "modern") return isJsonObject(capabilities.extensions) && isJsonObject(capabilities.extensions[TASKS_EXTENSION]);
  const tasks = capabilities.tasks;
  if (!isJsonObject(tasks)) return false;
  if (use === "cancel") return isJsonObject(tasks.cancel);
  if (use !== "call") return true;
  return isJsonObject(tasks.requests) && isJsonObject(tasks.requests.tools) && isJsonObject(tasks.requests.tools.call);
}

async function findTool(call: Call, name: string): Promise<JsonObject | undefined> {
  const { tools } = (await call.listAll("tools/list", "tools")) as { tools: JsonObject[] };
  return tools.find((tool) => tool.name === name);
}

function taskSupportOf(tool: JsonObject | undefined): string | undefined {
  const execution = tool?.execution;
  return isJsonObject(execution) && typeof execution.taskSupport === "string" ? execution.taskSupport : undefined;
}

/** The task a tools/call answer created, or undefined for a plain result. */
function createdTask(answer: JsonObject, modern: boolean): JsonObject | undefined {
  if (modern ? answer.resultType !== "task" : !("task" in answer)) return undefined;
  return checked(modern ? answer : answer.task);
}

/** A task as the server sent it, checked: a string id and status, and (when we asked about one) that task, not another. */
function checked(task: unknown, asked?: string): JsonObject {
  if (!isJsonObject(task) || typeof task.taskId !== "string" || typeof task.status !== "string") {
    throw new CommandError(EXIT.protocol, "the server sent a malformed task (it needs a string taskId and status)");
  }
  if (asked !== undefined && task.taskId !== asked) {
    throw new CommandError(EXIT.protocol, `asked about task ${asked}, the server answered about task ${oneLine(clip(task.taskId, 100))}`);
  }
  return task;
}

/** One line for stderr: cut before it is cleaned, so a server's megabytes are never copied whole. */
function statusLine(task: JsonObject): string {
  const message = typeof task.statusMessage === "string" && task.statusMessage ? ` (${task.statusMessage})` : "";
  const line = `task ${String(task.taskId)}: ${String(task.status)}${message}`;
  return clip(oneLine(line.slice(0, MAX_STATUS_CHARS + 1)), MAX_STATUS_CHARS);
}

function pollMs(task: JsonObject): number {
  const asked = Number(task.pollIntervalMs ?? task.pollInterval);
  return Number.isFinite(asked) ? Math.min(Math.max(asked, MIN_POLL_MS), MAX_POLL_MS) : DEFAULT_POLL_MS;
}

function withTaskId(error: CommandError, taskId: string): CommandError {
  return error.details?.taskId === taskId ? error : new CommandError(error.exitCode, error.message, { ...error.details, taskId });
}
