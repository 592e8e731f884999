// What the client told the server, kept so that every new server process is told it again: the
// initialize handshake (or, on 2026-07-28, the request envelope), the log level, the resource
// subscriptions; and which subscriptions/listen streams the client already saw acknowledged.

import type { JsonObject, JsonRpcId, JsonRpcMessage, JsonRpcRequest } from "../lib/wire/jsonrpc.ts";
import { META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID } from "../lib/wire/protocol.ts";

export type RequestFn = (method: string, params: JsonObject) => Promise<JsonObject>;

export class SessionReplay {
  #initializeParams?: JsonObject;
  #clientInitialized = false;
  #modernMeta?: JsonObject;
  #logLevel?: string;
  readonly #subscriptions = new Set<string>();
  /** subscriptions/listen streams (by request id: a Set keeps 1 and "1" apart) whose acknowledgement the client already has. */
  readonly #acknowledgedListens = new Set<JsonRpcId>();

  /** Keeps what a new server process must be told again. */
  remember(request: JsonRpcRequest): void {
    const params = request.params ?? {};
    const meta = params._meta as JsonObject | undefined;
    if (meta && META_PROTOCOL_VERSION in meta) {
      const { progressToken: _token, ...envelope } = meta;
      this.#modernMeta = envelope;
    }
    switch (request.method) {
      case "initialize":
        this.#initializeParams = params;
        break;
      case "logging/setLevel":
        if (typeof params.level === "string") this.#logLevel = params.level;
        break;
      case "resources/subscribe":
        if (typeof params.uri === "string") this.#subscriptions.add(params.uri);
        break;
      case "resources/unsubscribe":
        if (typeof params.uri === "string") this.#subscriptions.delete(params.uri);
        break;
    }
  }

  clientInitialized(): void {
    this.#clientInitialized = true;
  }

  /** Which notifications the client may receive: none before it initialized. */
  era(): "legacy" | "modern" | "none" {
    if (this.#initializeParams) return this.#clientInitialized ? "legacy" : "none";
    return this.#modernMeta ? "modern" : "none";
  }

  /** A 2026-07-28 client (no initialize, an envelope on its requests). */
  get modern(): boolean {
    return Boolean(this.#modernMeta && !this.#initializeParams);
  }

  /** Params for one of our own requests in the client's era (2026-07-28 needs the envelope). */
  params(params: JsonObject): JsonObject {
    return this.modern ? { ...params, _meta: this.#modernMeta } : params;
  }

  /**
   * Tells a new process what the old one had been told: the handshake, then session state. Resolves
   * with the new process's capabilities and, on 2025 revisions, its initialize result.
   */
  async replay(request: RequestFn, notify: (method: string) => void): Promise<{ capabilities: JsonObject; initialized?: JsonObject }> {
    if (this.#initializeParams) {
      const result = await request("initialize", this.#initializeParams);
      if (this.#clientInitialized) notify("notifications/initialized");
      if (this.#logLevel) await request("logging/setLevel", { level: this.#logLevel }).catch(() => {});
      for (const uri of this.#subscriptions) await request("resources/subscribe", { uri }).catch(() => {});
      return { capabilities: (result.capabilities as JsonObject) ?? {}, initialized: result };
    }
    if (this.#modernMeta) {
      // 2026-07-28 has no handshake; a discover round trip is the readiness signal.
      const result = await request("server/discover", { _meta: this.#modernMeta });
      return { capabilities: (result.capabilities as JsonObject) ?? {} };
    }
    return { capabilities: {} };
  }

  /** A listen ended (answered, cancelled, failed): a new one may reuse its id and is acknowledged anew. */
  listenEnded(id: JsonRpcId): void {
    this.#acknowledgedListens.delete(id);
  }

  /**
   * A listen re-sent to a new process is acknowledged again; the client already had its
   * acknowledgement (the first message of the stream), so the second is not passed on.
   */
  repeatedAcknowledgement(message: JsonRpcMessage): boolean {
    const meta = "params" in message ? (message.params?._meta as JsonObject | undefined) : undefined;
    const id = meta?.[META_SUBSCRIPTION_ID];
    if (typeof id !== "string" && typeof id !== "number") return false;
    if (!this.#acknowledgedListens.has(id)) {
      this.#acknowledgedListens.add(id);
      return false;
    }
    return true;
  }
}
