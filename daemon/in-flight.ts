// The session's one record of its clients' requests in flight upstream. Each call is one entry,
// found by the id the server was given (its answer), by the client's own id (the client's
// notifications/cancelled), or by the progress token the server was given (its progress); a
// hand-over (a call parked with its question, then taken by the call that answers it) changes the
// entry's owner and every lookup follows.
import { IdAllocator, type JsonObject, type JsonRpcId, type JsonRpcRequest } from "../lib/wire/jsonrpc.ts";
import type { SessionClient } from "./session.ts";

const UPSTREAM_ID_PREFIX = "daemon-";

export interface InFlightCall {
  /** The id the server knows the call by: one of the session's, never a client's. */
  readonly upstreamId: string;
  /** Who gets the answer, under `originalId`. */
  readonly client: SessionClient;
  readonly originalId: JsonRpcId;
  readonly method: string;
  readonly at: number;
  /** The client's own progress token, and the one the server was given instead (two clients may both use 1). */
  readonly progress?: { readonly token: unknown; readonly upstreamToken: string };
}

export class InFlight {
  #ids = new IdAllocator(UPSTREAM_ID_PREFIX);
  readonly #byUpstreamId = new Map<string, InFlightCall>();
  readonly #byProgressToken = new Map<string, InFlightCall>();
  /** Per client, its original ids: strict keys, so `1` and `"1"` stay two calls as JSON-RPC says. */
  readonly #byClient = new Map<SessionClient, Map<JsonRpcId, InFlightCall>>();

  /** Records `request` of `client` and returns it as it goes upstream: the session's id, and its own progress token. */
  add(client: SessionClient, request: JsonRpcRequest): JsonRpcRequest {
    const upstreamId = this.#ids.next();
    const meta = request.params?._meta as JsonObject | undefined;
    const token = meta?.progressToken;
    const progress = token === undefined ? undefined : { token, upstreamToken: `${upstreamId}-progress` };
    this.#index({ upstreamId, client, originalId: request.id, method: request.method, at: Date.now(), ...(progress ? { progress } : {}) });
    const params = progress ? { ...request.params, _meta: { ...meta, progressToken: progress.upstreamToken } } : request.params;
    return { ...request, id: upstreamId, ...(params ? { params } : {}) };
  }

  byUpstreamId(upstreamId: JsonRpcId | null): InFlightCall | undefined {
    return this.#byUpstreamId.get(String(upstreamId));
  }

  byClientId(client: SessionClient, originalId: JsonRpcId): InFlightCall | undefined {
    return this.#byClient.get(client)?.get(originalId);
  }

  byProgressToken(token: unknown): InFlightCall | undefined {
    return this.#byProgressToken.get(String(token));
  }

  /** The calls of `client`, oldest first. */
  ofClient(client: SessionClient): InFlightCall[] {
    return this.calls().filter((call) => call.client === client);
  }

  calls(): InFlightCall[] {
    return [...this.#byUpstreamId.values()];
  }

  /** The call changes hands: its answer (under `originalId`), progress and questions go to `client` now. */
  handOver(upstreamId: string, client: SessionClient, originalId: JsonRpcId): void {
    const call = this.#byUpstreamId.get(upstreamId);
    if (!call) return;
    this.#unindexClient(call);
    // Set over the old entry: the call keeps its place among the others (oldest first).
    this.#index({ ...call, client, originalId });
  }

  /** The call is over (answered, dropped or failed); returns what it was, if it was still in flight. */
  delete(upstreamId: JsonRpcId | null): InFlightCall | undefined {
    const call = this.byUpstreamId(upstreamId);
    if (call) this.#unindex(call);
    return call;
  }

  /** Forgets every call (the server went away) and returns them, to be answered. Ids start over with the next server. */
  clear(): InFlightCall[] {
    const calls = this.calls();
    this.#byUpstreamId.clear();
    this.#byProgressToken.clear();
    this.#byClient.clear();
    this.#ids = new IdAllocator(UPSTREAM_ID_PREFIX);
    return calls;
  }

  #index(call: InFlightCall): void {
    this.#byUpstreamId.set(call.upstreamId, call);
    if (call.progress) this.#byProgressToken.set(call.progress.upstreamToken, call);
    let mine = this.#byClient.get(call.client);
    if (!mine) this.#byClient.set(call.client, (mine = new Map()));
    // A client that reuses an id in flight (or two parked calls of one id) keeps the first findable.
    if (!mine.has(call.originalId)) mine.set(call.originalId, call);
  }

  #unindex(call: InFlightCall): void {
    this.#byUpstreamId.delete(call.upstreamId);
    if (call.progress) this.#byProgressToken.delete(call.progress.upstreamToken);
    this.#unindexClient(call);
  }

  #unindexClient(call: InFlightCall): void {
    const mine = this.#byClient.get(call.client);
    if (mine?.get(call.originalId)?.upstreamId === call.upstreamId) mine.delete(call.originalId);
    if (mine?.size === 0) this.#byClient.delete(call.client);
  }
}
