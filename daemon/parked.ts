// A 2025 server's question (elicitation/create) that its client could not answer, kept with the
// calls waiting on it until a later command of the same session brings the answer, or until
// PARKED_TTL_MS passes (then the server hears "cancel" and the calls are dropped).
import { PARKED_KEY_PREFIX, PARKED_TTL_MS } from "../lib/daemon/questions.ts";
import type { JsonRpcRequest } from "../lib/wire/jsonrpc.ts";

export interface ParkedQuestion {
  key: string;
  /** The server's request, under the id it sent it with. */
  request: JsonRpcRequest;
  /** Upstream ids of the calls that wait for the answer (the client's tool call among them). */
  calls: string[];
}

export class ParkedQuestions {
  readonly #byKey = new Map<string, { question: ParkedQuestion; timer: ReturnType<typeof setTimeout> }>();
  #count = 0;

  constructor(
    private readonly onexpire: (question: ParkedQuestion) => void,
    private readonly ttlMs = PARKED_TTL_MS,
  ) {}

  park(request: JsonRpcRequest, calls: string[]): ParkedQuestion {
    const question = { key: `${PARKED_KEY_PREFIX}${++this.#count}`, request, calls };
    const timer = setTimeout(() => {
      this.#byKey.delete(question.key);
      this.onexpire(question);
    }, this.ttlMs);
    (timer as { unref?: () => void }).unref?.();
    this.#byKey.set(question.key, { question, timer });
    return question;
  }

  /** The question under `key`, no longer parked; undefined when none waits there. */
  take(key: string): ParkedQuestion | undefined {
    const entry = this.#byKey.get(key);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.#byKey.delete(key);
    return entry.question;
  }

  /** Forgets every question (the server went away: nobody is left to answer). */
  clear(): void {
    for (const { timer } of this.#byKey.values()) clearTimeout(timer);
    this.#byKey.clear();
  }

  keys(): Set<string> {
    return new Set(this.#byKey.keys());
  }
}
