// The checks that call tools. Only tools that say they change nothing (readOnlyHint) and need no
// input are called of their own accord; any other only when --call names it, with its --params.
// The unknown tool is one no server has; invalid arguments go only to a tool that may be called.
import { McpError } from "../../lib/client/raw-client.ts";
import { waitMs } from "../../lib/io/reading.ts";
import type { JsonObject } from "../../lib/wire/jsonrpc.ts";
import { CANCEL_FIRST_PROGRESS_MS, CANCEL_QUIET_MS, type CheckResult, listed, result, UNKNOWN_TOOL } from "./model.ts";
import type { Probe } from "./probe.ts";
import { mismatch } from "./schema.ts";

/** A tool or prompt named on the command line, with the arguments given for it. */
export interface Named {
  name: string;
  params: JsonObject;
}

/** The revision from which input validation errors are tool results (SEP-1303). */
const TOOL_RESULT_VALIDATION_SINCE = "2025-11-25";

export interface ToolPlan {
  calls: (Named & { tool: JsonObject })[];
  /** Tools not called, and why (listed in the tool-calls check). */
  skipped: string[];
  /** --call names the server does not list. */
  unknown: string[];
}

/** Which tools may be called, and with what. */
export function planCalls(tools: JsonObject[], named: Named[]): ToolPlan {
  const plan: ToolPlan = { calls: [], skipped: [], unknown: [] };
  for (const given of named) {
    const tool = tools.find((t) => t.name === given.name);
    if (tool) plan.calls.push({ ...given, tool });
    else plan.unknown.push(given.name);
  }
  for (const tool of tools) {
    const name = String(tool.name);
    if (named.some((n) => n.name === name)) continue;
    const readOnly = (tool.annotations as JsonObject | undefined)?.readOnlyHint === true;
    const required = ((tool.inputSchema as JsonObject | undefined)?.required as unknown[] | undefined) ?? [];
    if (readOnly && required.length === 0) plan.calls.push({ name, params: {}, tool });
    else plan.skipped.push(`${name} (${readOnly ? "needs input" : "not readOnlyHint"}: name it with --call ${name} --params JSON)`);
  }
  return plan;
}

export async function checkToolCalls(probe: Probe, plan: ToolPlan, timeoutMs: number): Promise<CheckResult[]> {
  const failures: string[] = [];
  const shapes: string[] = [];
  let structured = 0;
  for (const { name, params, tool } of plan.calls) {
    let answer: JsonObject;
    try {
      answer = await probe.client.request("tools/call", { name, arguments: params }, { timeoutMs });
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    if (!Array.isArray(answer.content) && answer.structuredContent === undefined) failures.push(`${name}: the result has no content`);
    const outputSchema = tool.outputSchema as JsonObject | undefined;
    if (!outputSchema || answer.isError === true) continue;
    structured++;
    if (answer.structuredContent === undefined) shapes.push(`${name}: no structuredContent although the tool has an outputSchema`);
    else {
      const wrong = await mismatch(outputSchema, answer.structuredContent);
      if (wrong) shapes.push(`${name}: ${wrong}`);
    }
  }
  const notCalled = [...plan.unknown.map((name) => `${name} (--call names a tool the server does not list)`), ...plan.skipped];
  const called = `${plan.calls.length} called${notCalled.length ? `; not called: ${listed(notCalled)}` : ""}`;
  const calls =
    plan.calls.length === 0 && plan.unknown.length === 0
      ? result("tool-calls", "skip", `no tool may be called: ${listed(plan.skipped) || "none listed"}`)
      : failures.length > 0 || plan.unknown.length > 0
        ? result("tool-calls", "fail", listed([...failures, ...plan.unknown.map((name) => `${name}: not listed by the server`)]))
        : result("tool-calls", "pass", called);
  const shape =
    structured === 0
      ? result("structured-content", "not-applicable", "no tool with an outputSchema was called")
      : shapes.length > 0
        ? result("structured-content", "fail", listed(shapes))
        : result("structured-content", "pass", `${structured} structured results`);
  return [calls, shape];
}

export async function checkUnknownTool(probe: Probe, timeoutMs: number): Promise<CheckResult> {
  try {
    const answer = await probe.client.request("tools/call", { name: UNKNOWN_TOOL, arguments: {} }, { timeoutMs });
    return result("unknown-tool", "fail", `a result (${answer.isError === true ? "isError" : "success"}) instead of a JSON-RPC error`);
  } catch (error) {
    if (error instanceof McpError && error.kind === "protocol" && error.rpc)
      return result("unknown-tool", "pass", `error ${error.rpc.code}: ${error.rpc.message.slice(0, 120)}`);
    return result("unknown-tool", "fail", (error as Error).message);
  }
}

/** Arguments that break a tool's schema: a required input left out, else a typed one of the wrong type. */
function invalidArguments(tool: JsonObject, params: JsonObject): { args: JsonObject; how: string } | undefined {
  const schema = (tool.inputSchema ?? {}) as JsonObject;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  if (required[0] !== undefined) {
    const { [required[0]]: _left, ...rest } = params;
    return { args: rest, how: `without the required ${required[0]}` };
  }
  const wrong: Record<string, unknown> = { string: 12_345, number: "not a number", integer: "not a number", boolean: "not a boolean" };
  for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonObject>)) {
    const type = typeof property?.type === "string" ? property.type : undefined;
    if (type && type in wrong)
      return { args: { ...params, [key]: wrong[type] }, how: `with ${key} a ${typeof wrong[type]} (its schema says ${type})` };
  }
  return undefined;
}

export async function checkInvalidArguments(probe: Probe, plan: ToolPlan, timeoutMs: number): Promise<CheckResult> {
  const revision = probe.session.protocolVersion ?? "";
  const target = plan.calls.map((call) => ({ call, invalid: invalidArguments(call.tool, call.params) })).find((c) => c.invalid);
  if (!target?.invalid) return result("invalid-arguments", "skip", "no tool that may be called has an input to get wrong");
  const { call, invalid } = target;
  const asResult = revision >= TOOL_RESULT_VALIDATION_SINCE;
  const what = `${call.name} ${invalid.how}`;
  try {
    const answer = await probe.client.request("tools/call", { name: call.name, arguments: invalid.args }, { timeoutMs });
    if (answer.isError === true) return result("invalid-arguments", "pass", `${what}: a result with isError`);
    return result("invalid-arguments", "fail", `${what}: accepted (a result without isError)`);
  } catch (error) {
    if (!(error instanceof McpError && error.kind === "protocol" && error.rpc))
      return result("invalid-arguments", "fail", `${what}: ${error}`);
    const said = `${what}: error ${error.rpc.code}`;
    if (asResult) return result("invalid-arguments", "fail", `${said}, not a result with isError (protocol ${revision})`);
    return result("invalid-arguments", "pass", `${said} (protocol ${revision} allows either)`);
  }
}

/**
 * A call cancelled once it is under way (its first progress, or CANCEL_FIRST_PROGRESS_MS), then a
 * ping: anything about the call that comes after the ping's answer means the work went on.
 */
export async function checkCancellation(probe: Probe, plan: ToolPlan, timeoutMs: number): Promise<CheckResult> {
  const call = plan.calls[0];
  if (!call) return result("cancellation", "skip", "no tool may be called (name a long-running one with --call NAME --params JSON)");
  const controller = new AbortController();
  const started = Promise.withResolvers<"progress">();
  const first = setTimeout(() => started.resolve("progress"), CANCEL_FIRST_PROGRESS_MS);
  const calling = probe.client
    .request(
      "tools/call",
      { name: call.name, arguments: call.params },
      { timeoutMs, signal: controller.signal, onprogress: () => started.resolve("progress") },
    )
    .then(() => "answered" as const)
    .catch(() => "given up" as const);
  const outcome = await Promise.race([started.promise, calling]);
  clearTimeout(first);
  if (outcome !== "progress") return result("cancellation", "skip", `${call.name} ${outcome} before it could be cancelled`);
  // The call's id is its progress token (the raw client's way): the last tools/call we sent.
  const sent = probe.messages.findLast((m) => m.direction === "out" && "method" in m.message && m.message.method === "tools/call");
  const callId = sent && "id" in sent.message ? sent.message.id : undefined;
  controller.abort();
  try {
    await probe.client.ping({ timeoutMs });
  } catch (error) {
    return result("cancellation", "fail", `the ping after the cancel got no answer: ${(error as Error).message}`);
  }
  const answeredAt = performance.now();
  await waitMs(CANCEL_QUIET_MS);
  const after = probe.inboundSince(answeredAt).filter((message) => {
    if ("method" in message) return message.method === "notifications/progress" && message.params?.progressToken === callId;
    return "id" in message && message.id === callId;
  });
  if (after.length > 0) {
    const kinds = after.map((m) => ("method" in m ? "progress" : "its result"));
    return result(
      "cancellation",
      "fail",
      `${call.name} went on after the cancel: ${kinds.length} message(s) (${listed([...new Set(kinds)])}) after the ping's answer`,
    );
  }
  return result("cancellation", "pass", `${call.name}: nothing about it after the ping that followed the cancel`);
}
