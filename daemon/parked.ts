// A 2025 server's question (elicitation/create) that its client could not answer, kept with the
// calls waiting on it until a later command of the same session brings the answer, or until
// PARKED_TTL_MS passes (then the server hears "cancel" and the calls are dropped): parking hands
// the calls over to nobody, an answering call takes the waiting call over, expiry drops them.
import { isParkRequest, PARKED_KEY_PREFIX, PARKED_NOTIFICATION, PARKED_TTL_MS } from "../lib/daemon/questions.ts";
import {
  ErrorCode,
  errorResponse,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../lib/wire/jsonrpc.ts";
import type { InFlight } from "./in-flight.ts";
import type { SessionClient } from "./session.ts";

export interface ParkedQuestion {
  key: string;
  /** The server's request, under the id it sent it with. */
  request: JsonRpcRequest;
  /** Upstream ids of the calls that wait for the answer (the client's tool call among them). */
  calls: string[];
}

/** The owner of calls that wait on a parked question: nobody reads what it is sent. */
const WAITING: SessionClient = { name: "(waiting for an answer)", send() {} };

/** Whether the client's answer to the server's `request` asks the daemon to park it (only a question can be). */
export function asksToPark(request: JsonRpcRequest, answer: JsonRpcResponse): boolean {
  return request.method === "elicitation/create" && "error" in answer && isParkRequest(answer.error);
}

/** The answers to parked questions that a call brings in `inputResponses`, if it brings any. */
export function parkedAnswers(request: JsonRpcRequest): JsonObject | undefined {
  const answers = request.params?.inputResponses;
  if (typeof answers !== "object" || answers === null) return undefined;
  return Object.keys(answers).some((key) => key.startsWith(PARKED_KEY_PREFIX)) ? (answers as JsonObject) : undefined;
}

export class ParkedQuestions {
  readonly #byKey = new Map<string, { question: ParkedQuestion; timer: ReturnType<typeof setTimeout> }>();
  #count = 0;

  /**
   * `toServer` sends to the session's server (a message that cannot go is dropped: the calls it
   * belongs to are answered when the server goes away); `log` says what happened to a question.
   */
  constructor(
    private readonly inFlight: InFlight,
    private readonly toServer: (message: JsonRpcMessage) => Promise<void>,
    private readonly log: (line: string) => void,
    private readonly ttlMs = PARKED_TTL_MS,
  ) {}

  /**
   * The client cannot answer the server's question now (no terminal): the question and the
   * client's calls wait here, owned by nobody, and the client learns the key a later call answers.
   */
  park(client: SessionClient, request: JsonRpcRequest): void {
    const calls = this.inFlight.ofClient(client);
    for (const call of calls) this.inFlight.handOver(call.upstreamId, WAITING, call.originalId);
    const question = { key: `${PARKED_KEY_PREFIX}${++this.#count}`, request, calls: calls.map((call) => call.upstreamId) };
    const timer = setTimeout(() => {
      this.#byKey.delete(question.key);
      this.#expire(question);
    }, this.ttlMs);
    (timer as { unref?: () => void }).unref?.();
    this.#byKey.set(question.key, { question, timer });
    this.log(`${request.method} parked as ${question.key} for ${this.#minutes} minutes`);
    client.send({
      jsonrpc: "2.0",
      method: PARKED_NOTIFICATION,
      params: { key: question.key, method: request.method, params: request.params ?? {} },
    });
  }

  /** A call that brings answers to parked questions: they go to the server, and the waiting call's result comes back to it. */
  async answer(client: SessionClient, request: JsonRpcRequest, answers: JsonObject): Promise<void> {
    const keys = Object.keys(answers).filter((key) => key.startsWith(PARKED_KEY_PREFIX));
    const unknown = keys.find((key) => !this.#byKey.has(key));
    if (unknown) {
      const why = `it was answered already, or expired after ${this.#minutes} minutes`;
      client.send(errorResponse(request.id, ErrorCode.InvalidParams, `mcp-daemon: no question is waiting under ${unknown} (${why})`));
      return;
    }
    for (const key of keys) {
      const question = this.#take(key);
      // Another call answered it while this one was sending its other answers.
      if (!question) continue;
      // The tool call that waited answers this request; any other waiting call has nobody left.
      const answered = question.calls.find((id) => this.inFlight.byUpstreamId(id)?.method === request.method) ?? question.calls[0];
      if (answered !== undefined) this.inFlight.handOver(answered, client, request.id);
      await this.toServer({ jsonrpc: "2.0", id: question.request.id, result: answers[key] as JsonObject });
    }
  }

  /** Forgets every question (the server went away: nobody is left to answer). */
  clear(): void {
    for (const { timer } of this.#byKey.values()) clearTimeout(timer);
    this.#byKey.clear();
  }

  /** Nobody answered in time: the server hears "cancel", and the waiting calls are dropped. */
  #expire(question: ParkedQuestion): void {
    this.log(`${question.key} was not answered in time; declined`);
    void this.toServer({ jsonrpc: "2.0", id: question.request.id, result: { action: "cancel" } });
    for (const upstreamId of question.calls) {
      if (this.inFlight.byUpstreamId(upstreamId)?.client === WAITING) this.inFlight.delete(upstreamId);
    }
  }

  #take(key: string): ParkedQuestion | undefined {
    const entry = this.#byKey.get(key);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.#byKey.delete(key);
    return entry.question;
  }

  get #minutes(): number {
    return Math.round(this.ttlMs / 60_000);
  }
}
