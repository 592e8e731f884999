// A server that asks a question mid-call: a 2026-07-28 `input_required` result, or a 2025
// `elicitation/create` request. On a terminal the person answers lib's form, and the call goes on.
// Without one, the command ends with INPUT_REQUIRED (exit 8) and an envelope that carries the
// questions, their schemas and the answers file to fill in; `--input-responses @answers.json` then
// answers them on the next call (2026: the retried request, with the server's request state).

import { PARKED_KEY_PREFIX } from "../lib/daemon/questions.ts";
import { isJsonObject, type JsonObject } from "../lib/wire/jsonrpc.ts";
import { CommandError, EXIT } from "./output.ts";

/** Rounds of questions one call may take before we stop asking (a server that never settles). */
export const MAX_INPUT_ROUNDS = 5;
/** The requests whose results may be `input_required` (the spec's MRTR table). */
export const INPUT_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);
/** What mcp-inspect can answer: elicitation only (it has no model to sample, and names no roots). */
export const ANSWERABLE_CAPABILITIES: JsonObject = { elicitation: { form: {}, url: {} } };

/** Answers given with --input-responses: the map itself, or {inputResponses, requestState}. */
export interface GivenAnswers {
  inputResponses: JsonObject;
  requestState?: string;
}

export interface QuestionPolicy {
  /** A person can answer on this terminal. */
  terminal: boolean;
  answers?: GivenAnswers;
  /** The server's name, for the form's heading. */
  server: string;
}

type InputRequest = { method?: unknown; params?: unknown };

/** Reads the --input-responses document; a one-line error names what is wrong with it. */
export function parseAnswers(document: JsonObject): GivenAnswers {
  const responses = "inputResponses" in document ? document.inputResponses : document;
  if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
    throw new CommandError(
      EXIT.usage,
      '--input-responses must hold an object: {"inputResponses": {"<key>": {"action": "accept", "content": {...}}}, "requestState": "..."}',
    );
  }
  const state = document.requestState;
  if (state !== undefined && typeof state !== "string")
    throw new CommandError(EXIT.usage, "--input-responses: requestState must be the string the server sent");
  return { inputResponses: responses as JsonObject, ...(typeof state === "string" ? { requestState: state } : {}) };
}

/**
 * A 2026-07-28 request, through as many rounds of questions as it takes: the first attempt
 * carries the given answers, each `input_required` after it is answered on the terminal, or ends
 * the command with the questions.
 */
export async function withAnswers(
  method: string,
  params: JsonObject,
  send: (params: JsonObject) => Promise<JsonObject>,
  policy: QuestionPolicy,
  signal: AbortSignal,
): Promise<JsonObject> {
  let attempt =
    policy.answers && INPUT_METHODS.has(method)
      ? { ...params, inputResponses: policy.answers.inputResponses, ...stateOf(policy.answers.requestState) }
      : params;
  for (let round = 0; ; round++) {
    const result = await send(attempt);
    if (result.resultType !== "input_required") return result;
    const requests = (typeof result.inputRequests === "object" && result.inputRequests !== null ? result.inputRequests : {}) as Record<
      string,
      InputRequest
    >;
    const requestState = typeof result.requestState === "string" ? result.requestState : undefined;
    if (!policy.terminal || round >= MAX_INPUT_ROUNDS) throw inputRequired(requests, requestState, round >= MAX_INPUT_ROUNDS);
    // The retry is a new request: our answers, and the server's state exactly as it sent it.
    attempt = { ...params, inputResponses: await answerOnTerminal(requests, policy.server, signal), ...stateOf(requestState) };
  }
}

/** A 2025 call through the daemon that brings answers to questions it parked: they go along as inputResponses. */
export function answersForParked(method: string, params: JsonObject, policy: QuestionPolicy): JsonObject {
  const answers = policy.answers?.inputResponses;
  if (!answers || !INPUT_METHODS.has(method) || !Object.keys(answers).some((key) => key.startsWith(PARKED_KEY_PREFIX))) return params;
  return { ...params, inputResponses: answers };
}

/** A 2025 server's elicitation/create, answered on the terminal (else the command ends with exit 8). */
export async function answerLegacyQuestion(params: JsonObject, policy: QuestionPolicy, signal: AbortSignal): Promise<JsonObject> {
  if (policy.terminal) return askOnTerminal(policy.server, params, signal);
  throw inputRequired(
    { question: { method: "elicitation/create", params } },
    undefined,
    false,
    "a 2025 server's question can only be answered later through mcp-daemon: run the same command with --stateful, then answer with " +
      "--input-responses",
  );
}

async function answerOnTerminal(requests: Record<string, InputRequest>, server: string, signal: AbortSignal): Promise<JsonObject> {
  const answers: JsonObject = {};
  for (const [key, request] of Object.entries(requests)) {
    if (request.method !== "elicitation/create") {
      throw new CommandError(
        EXIT.protocol,
        `the server asked for ${String(request.method)}, which mcp-inspect does not offer (it declared elicitation only)`,
      );
    }
    answers[key] = await askOnTerminal(server, (request.params ?? {}) as JsonObject, signal);
  }
  return answers;
}

/** One question put to the person at the terminal: the form and the browser load only then, never on a call nobody is asked in. */
async function askOnTerminal(server: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
  const [{ answerElicitation }, { terminalAsker }, { openInBrowser }] = await Promise.all([
    import("../lib/terminal/elicitation-form.ts"),
    import("../lib/terminal/asker.ts"),
    import("../lib/terminal/browser.ts"),
  ]);
  return answerElicitation(server, params, terminalAsker(), openInBrowser, signal);
}

/** The end of a call that needs answers nobody here can give: the questions, and how to answer them. */
export function inputRequired(
  requests: Record<string, InputRequest>,
  requestState: string | undefined,
  exhausted: boolean,
  how?: string,
): CommandError {
  const questions = Object.entries(requests).map(([key, request]) => describe(key, request));
  const asked = questions.map((q) => q.summary).join("; ") || "input";
  const message = exhausted
    ? `the server kept asking after ${MAX_INPUT_ROUNDS} rounds of answers (${asked})`
    : `the server needs answers before it can go on: ${asked}. ` +
      `${how ?? "Fill in details.answers and run the same command again with --input-responses @answers.json (or - for stdin)"}`;
  const answers = { inputResponses: Object.fromEntries(questions.map((q) => [q.key, q.template])), ...stateOf(requestState) };
  return new CommandError(EXIT.inputRequired, message, { inputRequests: requests, ...stateOf(requestState), answers });
}

function describe(key: string, request: InputRequest): { key: string; summary: string; template: JsonObject } {
  const params = (request.params ?? {}) as JsonObject;
  const message = typeof params.message === "string" ? params.message : String(request.method);
  if (request.method !== "elicitation/create") return { key, summary: `${key}: ${String(request.method)}`, template: {} };
  if (params.mode === "url") {
    // Never opened here: the URL is for the person to visit, then to accept.
    return { key, summary: `${key}: ${message} (open ${String(params.url)}, then answer accept)`, template: { action: "accept" } };
  }
  const schema = (params.requestedSchema ?? {}) as { properties?: Record<string, JsonObject>; required?: string[] };
  const required = new Set(schema.required ?? []);
  // A field with a default starts as that default (what a form would show), the others as a placeholder to replace.
  const content = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, field]) => [
      name,
      isJsonObject(field) && "default" in field
        ? field.default
        : `<${String(field.type ?? "value")}${required.has(name) ? ", required" : ""}` +
          `${field.description ? `: ${String(field.description)}` : ""}>`,
    ]),
  );
  return { key, summary: `${key}: ${message}`, template: { action: "accept", content } };
}

function stateOf(requestState: string | undefined): { requestState?: string } {
  return requestState === undefined ? {} : { requestState };
}
