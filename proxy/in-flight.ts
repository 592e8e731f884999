// The requests in flight through the proxy, both ways. The client's, by the id the server sees:
// its own, or one of ours while the client reuses an id still in flight; which of them an expired
// HTTP session never saw; and when nothing but open-ended requests is owed an answer (drain waits
// for that). The server's own requests travel under ids of ours, so that two processes' ids can
// never meet at the client.
import { randomUUID } from "node:crypto";
import { completeMessage } from "../lib/wire/json-scan.ts";
import { IdAllocator, type JsonRpcId, type JsonRpcRequest, type RawMessage } from "../lib/wire/jsonrpc.ts";

/** Requests that stay open until cancelled: the end of input does not wait for them. */
export const OPEN_ENDED = "subscriptions/listen";

const idSeed = randomUUID();
/** Ids of ours, one series per use; the random part (one per process) makes them ones no client would pick. */
export const proxyIds = (use: string) => new IdAllocator(`mcp-proxy-${idSeed}-${use}-`);

export interface InFlight {
  /** The client's id, which its answer must carry. */
  id: JsonRpcId;
  /** The id the server sees: the client's own, or one of ours when the client reused an id in flight. */
  upstreamId: JsonRpcId;
  method: string;
  /** The request as the server gets it. */
  message: JsonRpcRequest;
  /** Its bytes as they arrived, when the server gets them unchanged. */
  raw?: RawMessage;
}

/** The client's requests that still owe it an answer. */
export class InFlightTable {
  // Keyed by the ids themselves: a Map keeps the number 1 and the string "1" apart, as JSON-RPC does
  // (a key string built per lookup was a tenth of the proxy's own time per small message).
  /** By the id the server sees. */
  readonly #entries = new Map<JsonRpcId, InFlight>();
  /** How many requests in flight carry each client id (more than one: the client reused it). */
  readonly #clientIds = new Map<JsonRpcId, number>();
  /** Requests (still in flight) an HTTP server refused for an expired session: never seen by it, so safe to send again. */
  readonly #expired = new Set<InFlight>();
  readonly #reusedIds = proxyIds("as");
  /** Answers owed that the proxy writes itself (restart_server calls), which drain waits for like any other. */
  #ownAnswers = 0;
  #idleWaiters: (() => void)[] = [];
  /** Answers owed outside this table (messages queued during a restart). */
  readonly #busy: () => boolean;
  /** A request left the table (answered, cancelled, given up). */
  onforget?: (entry: InFlight) => void;

  constructor(busy: () => boolean) {
    this.#busy = busy;
  }

  /** Whether the client has a request in flight under `id` (a new one under it would be a reuse). */
  inFlightAs(id: JsonRpcId): boolean {
    return this.#clientIds.has(id);
  }

  /** Whether any request in flight has an answer the proxy changes (patched, or under a rewritten id). */
  changesAnswers(patched: ReadonlySet<string>): boolean {
    for (const entry of this.#entries.values()) if (entry.upstreamId !== entry.id || patched.has(entry.method)) return true;
    return false;
  }

  /** Records a request in flight; one that reuses an id still in flight gets an id of ours upstream (`raw` is then needed). */
  track(message: JsonRpcRequest, raw?: RawMessage): InFlight {
    const carrying = this.#clientIds.get(message.id) ?? 0;
    const reused = carrying > 0;
    this.#clientIds.set(message.id, carrying + 1);
    let entry: InFlight;
    if (reused) {
      const upstreamId = this.#reusedIds.next();
      const full = (raw === undefined ? message : completeMessage(message, raw)) as JsonRpcRequest;
      entry = { id: message.id, upstreamId, method: message.method, message: { ...full, id: upstreamId } };
    } else {
      entry = { id: message.id, upstreamId: message.id, method: message.method, message, raw };
    }
    this.#entries.set(entry.upstreamId, entry);
    return entry;
  }

  /** The request the server knows as `upstreamId`. */
  get(upstreamId: JsonRpcId): InFlight | undefined {
    return this.#entries.get(upstreamId);
  }

  /** Whether `entry` is still owed its answer. */
  holds(entry: InFlight): boolean {
    return this.#entries.get(entry.upstreamId) === entry;
  }

  /** The client's request `id`; with a reused id, the newest under it (the one a cancellation means). */
  newest(id: JsonRpcId): InFlight | undefined {
    let entry: InFlight | undefined;
    for (const candidate of this.#entries.values()) if (candidate.id === id) entry = candidate;
    return entry;
  }

  /** A snapshot: answering one of them while iterating is safe. */
  entries(): InFlight[] {
    return [...this.#entries.values()];
  }

  /** Forgets a request in flight (answered, cancelled, given up); a second call is a no-op. */
  forget(entry: InFlight): void {
    if (!this.holds(entry)) return;
    this.#entries.delete(entry.upstreamId);
    this.#expired.delete(entry);
    const count = (this.#clientIds.get(entry.id) ?? 1) - 1;
    if (count > 0) this.#clientIds.set(entry.id, count);
    else this.#clientIds.delete(entry.id);
    this.onforget?.(entry);
    this.checkIdle();
  }

  markExpired(entry: InFlight): void {
    this.#expired.add(entry);
  }

  isExpired(entry: InFlight): boolean {
    return this.#expired.has(entry);
  }

  /** A new session: what the old one refused has been sent again. */
  clearExpired(): void {
    this.#expired.clear();
  }

  /** An answer owed that the proxy writes itself; until the returned function is called, the proxy is not idle. */
  owe(): () => void {
    this.#ownAnswers++;
    return () => {
      this.#ownAnswers--;
      this.checkIdle();
    };
  }

  /** Resolves once nothing but open-ended requests is owed an answer. */
  idle(): Promise<void> {
    const idle = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.checkIdle();
    return idle;
  }

  /** Wakes idle() waiters if nothing but open-ended requests is owed an answer (queued ones count). */
  checkIdle(): void {
    if (this.#idleWaiters.length === 0 || this.#busy() || this.#ownAnswers > 0) return;
    for (const entry of this.#entries.values()) if (entry.method !== OPEN_ENDED) return;
    for (const waiter of this.#idleWaiters.splice(0)) waiter();
  }
}

/** Who asked a question the client is to answer: the process of `generation`, under its own id. */
export interface ServerRequest {
  generation: number;
  id: JsonRpcId;
}

/** The server's requests to the client, under ids of ours that stay unique across restarts. */
export class ServerRequests {
  readonly #asked = new Map<string, ServerRequest>();
  readonly #ids = proxyIds("asks");

  /** A request from the process of `generation`: the id the client gets it under. */
  ask(generation: number, id: JsonRpcId): string {
    const ours = this.#ids.next();
    this.#asked.set(ours, { generation, id });
    return ours;
  }

  /** The client answered `id`: who asked, once. */
  take(id: JsonRpcId | null): ServerRequest | undefined {
    const asked = typeof id === "string" ? this.#asked.get(id) : undefined;
    if (asked) this.#asked.delete(id as string);
    return asked;
  }

  /** Forgets every question; returns those of `generation` (the rest were a dead process's), with the client's id for each. */
  takeAll(generation: number): (ServerRequest & { asClient: string })[] {
    const current = [...this.#asked].filter(([, asked]) => asked.generation === generation);
    this.#asked.clear();
    return current.map(([asClient, asked]) => ({ ...asked, asClient }));
  }
}
