/**
 * Tasks for the reference server: the tool `slow_task` runs only as a task, on both protocol eras.
 * The SDK v2 server has no tasks (its tools/call path refuses a CreateTaskResult, and 2026-07-28
 * drops tasks/* from core), so these messages are answered here, on raw JSON-RPC, before the SDK
 * sees them; everything else passes on.
 *
 * - 2025-11-25, the experimental tasks utility: tools/call with `params.task` answers `{ task }`;
 *   tasks/get, tasks/result (blocks until the task ends), tasks/cancel. No tasks/list: nothing ties
 *   a task to a requestor here, and such receivers SHOULD NOT offer it (spec: Security).
 * - 2026-07-28, the extension io.modelcontextprotocol/tasks (SEP-2663): tools/call from a client
 *   that declares the extension answers `resultType: "task"`; tasks/get inlines the result;
 *   tasks/update and tasks/cancel are acknowledgements; tasks/result is gone.
 *
 * Tasks live in this process, not in a server instance (2026-07-28 builds one per request, 2025 HTTP
 * sessions come and go), under unguessable ids, since the id is all that guards them.
 *
 * One concept past 250 lines: one task store and its life (start, steps, cancel, expiry) seen
 * through the two eras' messages; each era's answers read and change the same records, so the
 * store and its two views stay beside the routing that chooses between them.
 */

import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import * as z from "zod";
import { waitMs } from "../../lib/io/reading.ts";
import { ErrorCode } from "../../lib/wire/jsonrpc.ts";
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_RELATED_TASK, TASKS_EXTENSION } from "../../lib/wire/protocol.ts";

export const TASK_TOOL = "slow_task";
/** Kept this long after creation unless the client asks for less (2025 `task.ttl`), then forgotten. */
export const TASK_TTL_MS = 10 * 60_000;
/** How often a client is asked to poll. */
export const TASK_POLL_INTERVAL_MS = 100;
/** The most tasks alive at once (spec: receivers SHOULD limit concurrent tasks). */
export const MAX_TASKS = 1_000;

/** 2026-07-28 over HTTP: these requests carry their task id in Mcp-Name (SEP-2663). */
const NAMED_BY_TASK_ID = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

export const SLOW_TASK_INPUT = z.object({
  steps: z.number().int().min(0).max(10_000).default(3),
  delayMs: z.number().int().min(0).max(600_000).default(200),
});

type Json = Record<string, unknown>;
type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";
type RpcRequest = { jsonrpc: "2.0"; id: string | number; method: string; params?: Json };
type Notify = (notification: { jsonrpc: "2.0"; method: string; params: Json }) => void;

interface TaskRecord {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  result?: Json;
  stop: AbortController;
  ended: Promise<void>;
}

const tasks = new Map<string, TaskRecord>();

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The capability answers: 2025 `capabilities.tasks`, 2026-07-28 `capabilities.extensions`. */
export function taskCapabilities(era: "legacy" | "modern"): Json {
  return era === "modern" ? { extensions: { [TASKS_EXTENSION]: {} } } : { tasks: { cancel: {}, requests: { tools: { call: {} } } } };
}

/**
 * Answers `message` if it is a task message, else returns undefined for the SDK to serve.
 * `notify` reaches the same 2025 connection (progress notifications while the task runs).
 */
export function answerTaskMessage(message: unknown, notify?: Notify): Promise<Json> | undefined {
  if (!isRequest(message)) return undefined;
  const params = message.params ?? {};
  const meta = isObject(params._meta) ? params._meta : {};
  const modern = typeof meta[META_PROTOCOL_VERSION] === "string";
  const work = routeOf(message.method, params, modern, meta, notify);
  if (!work) return undefined;
  return Promise.resolve()
    .then(work)
    .then(
      (result) => ({ jsonrpc: "2.0", id: message.id, result }),
      (error) => {
        const rpc = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError, (error as Error).message);
        return {
          jsonrpc: "2.0",
          id: message.id,
          error: { code: rpc.code, message: rpc.message, ...(rpc.data !== undefined ? { data: rpc.data } : {}) },
        };
      },
    );
}

function routeOf(method: string, params: Json, modern: boolean, meta: Json, notify?: Notify): (() => Json | Promise<Json>) | undefined {
  if (method === "tools/call" && params.name === TASK_TOOL)
    return () => (modern ? createModern(params, meta) : createLegacy(params, meta, notify));
  const known = modern ? ["tasks/get", "tasks/update", "tasks/cancel"] : ["tasks/get", "tasks/result", "tasks/cancel"];
  if (!known.includes(method)) return undefined;
  return () => {
    // 2026-07-28: servers MUST refuse tasks/* from a client that does not declare the extension.
    if (modern && !declaresExtension(meta)) throw missingExtension();
    const task = find(params.taskId);
    switch (method) {
      case "tasks/get":
        return modern ? { resultType: "complete", ...modernView(task) } : legacyView(task);
      case "tasks/result":
        return task.ended.then(() => ({ ...task.result, _meta: { [META_RELATED_TASK]: { taskId: task.taskId } } }));
      case "tasks/update":
        // slow_task never asks for input: there is nothing outstanding to answer.
        return { resultType: "complete" };
      default:
        return cancel(task, modern);
    }
  };
}

/**
 * Answers a POSTed task message over HTTP (as JSON), or resolves undefined for the SDK. On
 * 2026-07-28 the task methods carry their task id in Mcp-Name (SEP-2663), checked as the SDK does.
 */
export async function answerTaskRequest(req: Request, notify?: Notify): Promise<Response | undefined> {
  if (req.method !== "POST") return undefined;
  const body = await req.clone().text();
  // Cheap first: nearly every body is not about tasks.
  if (!body.includes("tasks/") && !body.includes(TASK_TOOL)) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRequest(message)) return undefined;
  const { id, method, params } = message;
  const modern = isObject(params?._meta) && typeof params._meta[META_PROTOCOL_VERSION] === "string";
  if (modern && NAMED_BY_TASK_ID.has(method) && req.headers.get("mcp-name") !== String(params?.taskId)) {
    return json(400, { jsonrpc: "2.0", id, error: { code: ErrorCode.HeaderMismatch, message: "Mcp-Name must carry params.taskId" } });
  }
  const answer = answerTaskMessage(message, notify);
  return answer ? json(200, await answer) : undefined;
}

/** A stdio transport that answers task messages itself and hands every other message on. */
export function withTasks(inner: Transport): Transport {
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
  };
  const send = (message: unknown) => void inner.send(message as JSONRPCMessage).catch((error: Error) => outer.onerror?.(error));
  inner.onmessage = (message, extra) => {
    const answer = answerTaskMessage(message, send);
    if (answer) void answer.then(send);
    else outer.onmessage?.(message, extra);
  };
  inner.onerror = (error) => outer.onerror?.(error);
  inner.onclose = () => {
    // A stdio server ends with its one connection, and its tasks with it.
    for (const task of tasks.values()) task.stop.abort();
    outer.onclose?.();
  };
  return outer;
}

function createLegacy(params: Json, meta: Json, notify?: Notify): Json {
  // Spec: a tool whose taskSupport is "required" answers a plain call with -32601.
  if (!isObject(params.task))
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${TASK_TOOL} runs only as a task (tools/call with params.task)`);
  const asked = params.task.ttl;
  const ttlMs = typeof asked === "number" && asked > 0 ? Math.min(asked, TASK_TTL_MS) : TASK_TTL_MS;
  const token = meta.progressToken;
  const task = start(argumentsOf(params), ttlMs, (done, steps) => {
    if (notify && (typeof token === "string" || typeof token === "number")) {
      notify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: done,
          total: steps,
          message: `step ${done}/${steps}`,
          _meta: { [META_RELATED_TASK]: { taskId: task.taskId } },
        },
      });
    }
  });
  return { task: legacyView(task) };
}

function createModern(params: Json, meta: Json): Json {
  // SEP-2663: never a task to a client that did not declare the extension on this request.
  if (!declaresExtension(meta)) throw missingExtension();
  return { resultType: "task", ...modernView(start(argumentsOf(params), TASK_TTL_MS)) };
}

function argumentsOf(params: Json): z.infer<typeof SLOW_TASK_INPUT> {
  const parsed = SLOW_TASK_INPUT.safeParse(params.arguments ?? {});
  if (!parsed.success)
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid arguments for tool ${TASK_TOOL}: ` +
        `${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    );
  return parsed.data;
}

/** Creates the task and runs it in the background: `steps` steps of `delayMs`, each in statusMessage. */
function start(
  { steps, delayMs }: z.infer<typeof SLOW_TASK_INPUT>,
  ttlMs: number,
  onstep?: (done: number, steps: number) => void,
): TaskRecord {
  forgetExpired();
  if (tasks.size >= MAX_TASKS) throw new RpcError(ErrorCode.InternalError, `too many tasks at once (at most ${MAX_TASKS})`);
  const now = new Date().toISOString();
  const stop = new AbortController();
  const task: TaskRecord = {
    taskId: crypto.randomUUID(),
    status: "working",
    statusMessage: `step 0/${steps}`,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs,
    stop,
    ended: Promise.resolve(),
  };
  task.ended = (async () => {
    let done = 0;
    while (done < steps && !stop.signal.aborted) {
      await waitMs(delayMs, stop.signal);
      if (stop.signal.aborted) break;
      done++;
      update(task, "working", `step ${done}/${steps}`);
      onstep?.(done, steps);
    }
    if (stop.signal.aborted) {
      task.result = text(`cancelled after ${done} steps`);
      process.stderr.write(`${TASK_TOOL}: task ${task.taskId} cancelled after ${done} steps\n`);
    } else {
      task.result = text(`done ${steps} steps`);
      update(task, "completed", `done ${steps} steps`);
    }
  })();
  tasks.set(task.taskId, task);
  return task;
}

function cancel(task: TaskRecord, modern: boolean): Json {
  const terminal = task.status === "completed" || task.status === "failed" || task.status === "cancelled";
  if (!terminal) {
    // Spec (2025-11-25): the task MUST be cancelled before the answer goes out.
    update(task, "cancelled", "cancelled by request");
    task.stop.abort();
  } else if (!modern) {
    throw new RpcError(ErrorCode.InvalidParams, `Cannot cancel task: already in terminal status '${task.status}'`);
  }
  // 2026-07-28: an acknowledgement only; the state is for tasks/get.
  return modern ? { resultType: "complete" } : legacyView(task);
}

function update(task: TaskRecord, status: Status, statusMessage: string): void {
  // A cancelled task stays cancelled even if its work goes on to finish (spec MUST).
  if (task.status === "cancelled") return;
  task.status = status;
  task.statusMessage = statusMessage;
  task.lastUpdatedAt = new Date().toISOString();
}

function find(taskId: unknown): TaskRecord {
  forgetExpired();
  const task = typeof taskId === "string" ? tasks.get(taskId) : undefined;
  if (!task) throw new RpcError(ErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
  return task;
}

/** Past its ttl a task is stopped and forgotten (checked on use: no timer keeps the process up). */
function forgetExpired(): void {
  const now = Date.now();
  for (const [taskId, task] of tasks) {
    if (Date.parse(task.createdAt) + task.ttlMs > now) continue;
    task.stop.abort();
    tasks.delete(taskId);
  }
}

function legacyView(task: TaskRecord): Json {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs } = task;
  return { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl: ttlMs, pollInterval: TASK_POLL_INTERVAL_MS };
}

function modernView(task: TaskRecord): Json {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs } = task;
  return {
    taskId,
    status,
    statusMessage,
    createdAt,
    lastUpdatedAt,
    ttlMs,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
    ...(status === "completed" ? { result: task.result } : {}),
  };
}

function declaresExtension(meta: Json): boolean {
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  return isObject(capabilities) && isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

function missingExtension(): RpcError {
  return new RpcError(ErrorCode.MissingClientCapability, "Missing required client capability", {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

function isRequest(message: unknown): message is RpcRequest {
  return (
    isObject(message) &&
    typeof message.method === "string" &&
    "id" in message &&
    (typeof message.id === "string" || typeof message.id === "number")
  );
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const text = (t: string): Json => ({ content: [{ type: "text", text: t }] });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
