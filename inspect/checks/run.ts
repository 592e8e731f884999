// One run of `mcp-inspect test`: connect, list everything, run every check in a fixed order, and
// shut the server down the spec's way last (how it exits is a check too).
import type { ChannelAuth } from "../../lib/open.ts";
import type { Target } from "../../lib/targets/target.ts";
import type { JsonObject } from "../../lib/wire/jsonrpc.ts";
import { classify } from "../output.ts";
import { checkCancellation, checkInvalidArguments, checkToolCalls, checkUnknownTool, type Named, planCalls } from "./calls.ts";
import { checkOrigin, checkSession } from "./http.ts";
import { checkPagination, checkSchemas, checkToolNames, listEverything } from "./listing.ts";
import { type CheckResult, listed, result, SHUTDOWN_GRACE_MS } from "./model.ts";
import { Probe } from "./probe.ts";
import { checkCompletion, checkConcurrency, checkLiveness, checkPrompts, checkResources, checkUnknownMethod } from "./requests.ts";

export interface TestInput {
  target: Target;
  version: string;
  timeoutMs: number;
  protocolVersion?: string;
  auth?: ChannelAuth;
  /** --call NAME --params JSON, in order. */
  calls: Named[];
  /** --prompt NAME --params JSON, in order. */
  prompts: Named[];
  /** Aborted by a signal: the server is stopped at once, and the checks under way fail. */
  signal?: AbortSignal;
}

export interface TestRun {
  checks: CheckResult[];
  protocolVersion?: string;
  serverInfo?: JsonObject;
}

/** Runs every check against the target; a server that cannot be reached at all throws (classified). */
export async function runChecks(input: TestInput): Promise<TestRun> {
  const { target, timeoutMs } = input;
  const probe = await Probe.open(target, input);
  const checks: CheckResult[] = [];
  let closed = false;
  input.signal?.addEventListener("abort", () => void probe.session.close({ quick: true }), { once: true });
  try {
    let identity: Awaited<ReturnType<Probe["session"]["connect"]>>;
    try {
      identity = await probe.session.connect();
    } catch (error) {
      throw classify(error, probe.session.stderrTail);
    }
    const lists = await listEverything(probe.client, identity.capabilities, timeoutMs);
    const tools = lists.tools?.items;
    checks.push(checkPagination(lists), checkToolNames(tools), await checkSchemas(tools));
    checks.push(await checkUnknownMethod(probe, timeoutMs));
    checks.push(
      identity.capabilities.tools === undefined
        ? result("unknown-tool", "not-applicable", "the server offers no tools")
        : await checkUnknownTool(probe, timeoutMs),
    );
    const plan = planCalls(tools ?? [], input.calls);
    checks.push(...(await checkToolCalls(probe, plan, timeoutMs)));
    checks.push(await checkInvalidArguments(probe, plan, timeoutMs));
    checks.push(await checkCancellation(probe, plan, timeoutMs));
    checks.push(await checkLiveness(probe, timeoutMs), await checkConcurrency(probe, timeoutMs));
    checks.push(await checkResources(probe, lists.resources?.items, timeoutMs));
    checks.push(await checkPrompts(probe, lists.prompts?.items, input.prompts, timeoutMs));
    checks.push(await checkCompletion(probe, lists.prompts?.items, lists.resourceTemplates?.items, timeoutMs));
    if (target.kind === "http") {
      const modern = identity.era === "modern";
      checks.push(await checkSession(target, identity.protocolVersion, modern, timeoutMs));
      checks.push(await checkOrigin(target, identity.protocolVersion, modern, timeoutMs));
    } else {
      const notHttp = "a stdio server";
      checks.push(result("http-session", "not-applicable", notHttp), result("http-origin", "not-applicable", notHttp));
    }
    const stdio = probe.stdio;
    checks.push(
      stdio
        ? probe.junk.length > 0
          ? result("stdout-clean", "fail", `${probe.junk.length} line(s) that are not JSON-RPC: ${listed(probe.junk)}`)
          : result("stdout-clean", "pass", `${probe.messages.filter((m) => m.direction === "in").length} messages, nothing else`)
        : result("stdout-clean", "not-applicable", "not a stdio server"),
    );
    closed = true;
    checks.push(stdio ? await checkShutdown(probe) : result("shutdown", "not-applicable", "not a stdio server"));
    return { checks, protocolVersion: identity.protocolVersion, ...(identity.serverInfo ? { serverInfo: identity.serverInfo } : {}) };
  } finally {
    if (!closed) await probe.session.close();
  }
}

async function checkShutdown(probe: Probe): Promise<CheckResult> {
  const { exitedAfterMs, exit } = await probe.shutdown();
  if (exitedAfterMs !== undefined)
    return result("shutdown", "pass", `exited (code ${exit?.code}) ${exitedAfterMs} ms after its stdin closed`);
  if (exit?.signal)
    return result("shutdown", "fail", `still running ${SHUTDOWN_GRACE_MS} ms after its stdin closed (ended by ${exit.signal})`);
  return result("shutdown", "fail", "its exit was not seen");
}
