// The checks that send requests other than tool calls: an unknown method, liveness, many requests
// at once, every listed resource read, every prompt got (those that need arguments only when
// --prompt names them), and completion where the server offers it.
import { McpError } from "../../lib/client/raw-client.ts";
import { ErrorCode, type JsonObject } from "../../lib/wire/jsonrpc.ts";
import type { Named } from "./calls.ts";
import { type CheckResult, CONCURRENT_REQUESTS, listed, MAX_READS, result, UNKNOWN_METHOD } from "./model.ts";
import type { Probe } from "./probe.ts";

export async function checkUnknownMethod(probe: Probe, timeoutMs: number): Promise<CheckResult> {
  try {
    await probe.client.request(UNKNOWN_METHOD, {}, { timeoutMs });
    return result("unknown-method", "fail", `${UNKNOWN_METHOD} got a result instead of error ${ErrorCode.MethodNotFound}`);
  } catch (error) {
    const code = error instanceof McpError ? error.rpc?.code : undefined;
    if (code === ErrorCode.MethodNotFound) return result("unknown-method", "pass", `error ${code}`);
    return result(
      "unknown-method",
      "fail",
      code === undefined ? (error as Error).message : `error ${code}, not ${ErrorCode.MethodNotFound}`,
    );
  }
}

export async function checkLiveness(probe: Probe, timeoutMs: number): Promise<CheckResult> {
  const method = probe.client.identity.era === "modern" ? "server/discover" : "ping";
  const started = performance.now();
  try {
    await probe.client.ping({ timeoutMs });
    return result("liveness", "pass", `${method} answered in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    return result("liveness", "fail", `${method}: ${(error as Error).message}`);
  }
}

export async function checkConcurrency(probe: Probe, timeoutMs: number): Promise<CheckResult> {
  const method = probe.client.identity.era === "modern" ? "server/discover" : "ping";
  const answers = await Promise.allSettled(Array.from({ length: CONCURRENT_REQUESTS }, () => probe.client.ping({ timeoutMs })));
  const failed = answers.filter((a) => a.status === "rejected").map((a) => String((a as PromiseRejectedResult).reason?.message));
  if (failed.length > 0)
    return result(
      "concurrency",
      "fail",
      `${failed.length} of ${CONCURRENT_REQUESTS} ${method} unanswered: ${listed([...new Set(failed)])}`,
    );
  return result("concurrency", "pass", `${CONCURRENT_REQUESTS} ${method} at once, all answered`);
}

export async function checkResources(probe: Probe, resources: JsonObject[] | undefined, timeoutMs: number): Promise<CheckResult> {
  if (!resources) return result("resources-read", "not-applicable", "the server offers no resources");
  if (resources.length === 0) return result("resources-read", "not-applicable", "the server lists no resources");
  const failures: string[] = [];
  const read = resources.slice(0, MAX_READS);
  for (const resource of read) {
    const uri = String(resource.uri);
    try {
      const answer = await probe.client.request("resources/read", { uri }, { timeoutMs });
      if (!Array.isArray(answer.contents)) failures.push(`${uri}: no contents`);
    } catch (error) {
      failures.push(`${uri}: ${(error as Error).message}`);
    }
  }
  const rest = resources.length > read.length ? `; ${resources.length - read.length} more not read (over ${MAX_READS})` : "";
  if (failures.length > 0) return result("resources-read", "fail", listed(failures) + rest);
  return result("resources-read", "pass", `${read.length} read${rest}`);
}

export async function checkPrompts(
  probe: Probe,
  prompts: JsonObject[] | undefined,
  named: Named[],
  timeoutMs: number,
): Promise<CheckResult> {
  if (!prompts) return result("prompts-get", "not-applicable", "the server offers no prompts");
  const failures: string[] = [];
  const skipped: string[] = [];
  let got = 0;
  for (const given of named)
    if (!prompts.some((p) => p.name === given.name)) failures.push(`${given.name}: --prompt names a prompt the server does not list`);
  for (const prompt of prompts.slice(0, MAX_READS)) {
    const name = String(prompt.name);
    const given = named.find((n) => n.name === name);
    const required = ((prompt.arguments as JsonObject[] | undefined) ?? []).filter((a) => a.required === true);
    if (!given && required.length > 0) {
      skipped.push(`${name} (needs ${required.map((a) => String(a.name)).join(", ")}: --prompt ${name} --params JSON)`);
      continue;
    }
    try {
      const answer = await probe.client.request("prompts/get", { name, arguments: given?.params ?? {} }, { timeoutMs });
      if (!Array.isArray(answer.messages)) failures.push(`${name}: no messages`);
      got++;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
    }
  }
  const notGot = skipped.length > 0 ? `; not got: ${listed(skipped)}` : "";
  if (failures.length > 0) return result("prompts-get", "fail", listed(failures) + notGot);
  if (got === 0)
    return result("prompts-get", prompts.length === 0 ? "not-applicable" : "skip", `none got${notGot || ": the server lists no prompts"}`);
  return result("prompts-get", "pass", `${got} got${notGot}`);
}

/** completion/complete for the first prompt argument, else the first template's first variable. */
export async function checkCompletion(
  probe: Probe,
  prompts: JsonObject[] | undefined,
  templates: JsonObject[] | undefined,
  timeoutMs: number,
): Promise<CheckResult> {
  if (probe.client.identity.capabilities.completions === undefined)
    return result("completion", "not-applicable", "the server does not declare completions");
  const prompt = prompts?.find((p) => Array.isArray(p.arguments) && p.arguments.length > 0);
  const template = templates?.find((t) => /\{[^}]+\}/.test(String(t.uriTemplate)));
  const ask = prompt
    ? { ref: { type: "ref/prompt", name: String(prompt.name) }, argument: String((prompt.arguments as JsonObject[])[0]!.name) }
    : template
      ? {
          ref: { type: "ref/resource", uri: String(template.uriTemplate) },
          argument: /\{[+#./;?&]?([^},*]+)/.exec(String(template.uriTemplate))![1]!,
        }
      : undefined;
  if (!ask) return result("completion", "skip", "no prompt argument or template variable to complete");
  const what = `${ask.ref.type === "ref/prompt" ? `prompt ${ask.ref.name}` : `template ${ask.ref.uri}`}, ${ask.argument}`;
  try {
    const answer = await probe.client.request(
      "completion/complete",
      { ref: ask.ref, argument: { name: ask.argument, value: "" } },
      { timeoutMs },
    );
    const values = (answer.completion as JsonObject | undefined)?.values;
    if (!Array.isArray(values)) return result("completion", "fail", `${what}: no completion.values`);
    return result("completion", "pass", `${what}: ${values.length} value(s)`);
  } catch (error) {
    return result("completion", "fail", `${what}: ${(error as Error).message}`);
  }
}
