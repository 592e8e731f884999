// Our own requests on a connection, the one way every tool keeps them: an id each, a timer that
// progress restarts, the peer told when we give up (timeout or abort), and every one rejected
// when the connection closes. The raw client, the proxy and the daemon all use it.

import { HttpStatusError } from "../io/fetch.ts";
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  TRANSPORT_ERROR_DATA,
} from "../wire/jsonrpc.ts";

/** A failure the caller can classify: the server's JSON-RPC error, a timeout, or a closed link. */
export class McpError extends Error {
  constructor(
    readonly kind: "protocol" | "timeout" | "closed" | "cancelled" | "transport",
    message: string,
    readonly rpc?: JsonRpcErrorObject,
    /** The HTTP status, when a transport error came from one. */
    readonly status?: number,
    /** The transport's own error (an HttpStatusError, a NetworkError), for callers that dispatch on its class. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CorrelatedOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each notifications/progress about this request; it also restarts the timer. */
  onprogress?: (progress: Progress) => void;
}

interface Pending {
  resolve: (result: JsonObject) => void;
  reject: (error: Error) => void;
  onprogress?: (progress: Progress) => void;
  restartTimer: () => void;
  stopTimer: () => void;
}

export interface CorrelatorPeer {
  send(request: JsonRpcRequest): Promise<void>;
  /** The request is given up: tell the peer (notifications/cancelled, or the transport's own way). */
  cancel(id: JsonRpcId, reason: string): void;
}

/** The clock requests are timed by (tests pass their own, so that a timeout is an event, not a wait). */
export interface Timers {
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  set: (fire, ms) => {
    const timer = setTimeout(fire, ms);
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class RequestCorrelator {
  readonly #pending = new Map<JsonRpcId, Pending>();
  readonly #nextId: () => JsonRpcId;
  readonly #timers: Timers;
  #closedReason?: string;
  /** Sign-ins (or questions) a person is busy with: while any is, no request times out. */
  #userWaits = 0;

  constructor(nextId: () => JsonRpcId, timers: Timers = REAL_TIMERS) {
    this.#nextId = nextId;
    this.#timers = timers;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Why the connection closed, once it has (requests then fail at once). */
  get closedReason(): string | undefined {
    return this.#closedReason;
  }

  /** Sends one request; settles with its result, or rejects with an McpError (or the signal's reason). */
  request(peer: CorrelatorPeer, method: string, params: JsonObject, options: CorrelatedOptions): Promise<JsonObject> {
    if (this.#closedReason) return Promise.reject(new McpError("closed", this.#closedReason));
    const id = this.#nextId();
    const { timeoutMs, signal } = options;
    if (options.onprogress) params = { ...params, _meta: { ...(isJsonObject(params._meta) ? params._meta : {}), progressToken: id } };
    const timers = this.#timers;
    return new Promise<JsonObject>((resolve, reject) => {
      let timer: unknown;
      const settle = () => {
        timers.clear(timer);
        this.#pending.delete(id);
        signal?.removeEventListener("abort", onabort);
      };
      const stopTimer = () => timers.clear(timer);
      const restartTimer = () => {
        timers.clear(timer);
        if (this.#userWaits > 0) return;
        timer = timers.set(() => {
          settle();
          peer.cancel(id, `timed out after ${timeoutMs} ms`);
          reject(new McpError("timeout", `${method} got no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      };
      const onabort = () => {
        settle();
        // The caller's reason (a timeout, a signal) is what the request fails with.
        const reason: unknown = signal?.reason;
        const error = reason instanceof Error ? reason : new McpError("cancelled", `${method} was cancelled`);
        peer.cancel(id, error instanceof McpError && error.kind === "timeout" ? error.message : "cancelled by the user");
        reject(error);
      };
      this.#pending.set(id, {
        resolve: (result) => (settle(), resolve(result)),
        reject: (error) => (settle(), reject(error)),
        onprogress: options.onprogress,
        restartTimer,
        stopTimer,
      });
      if (signal?.aborted) return onabort();
      signal?.addEventListener("abort", onabort, { once: true });
      restartTimer();
      peer.send({ jsonrpc: "2.0", id, method, params }).catch((error: Error & { status?: number }) => {
        this.#pending.get(id)?.reject(new McpError("transport", error.message, undefined, error.status, error));
      });
    });
  }

  /** Settles the request a response answers; false when it answers none of ours. */
  settle(response: JsonRpcResponse): boolean {
    const pending = response.id === null ? undefined : this.#pending.get(response.id);
    if (!pending) return false;
    if ("error" in response) {
      const fromTransport = isJsonObject(response.error.data) && response.error.data.origin === TRANSPORT_ERROR_DATA.origin;
      // A transport error made up elsewhere (the daemon's session) may carry the HTTP status that caused it.
      const data = (fromTransport ? response.error.data : {}) as { httpStatus?: unknown; explained?: unknown };
      const status = typeof data.httpStatus === "number" ? data.httpStatus : undefined;
      // Rebuilt as the HttpStatusError it was, so callers dispatch on it as on one of their own.
      const cause =
        status === undefined
          ? undefined
          : new HttpStatusError(status, "", "", data.explained === true ? response.error.message : undefined);
      pending.reject(new McpError(fromTransport ? "transport" : "protocol", response.error.message, response.error, status, cause));
    } else {
      pending.resolve(isJsonObject(response.result) ? response.result : {});
    }
    return true;
  }

  /** notifications/progress: restarts the timer of the request it is about. */
  progress(params: JsonObject | undefined): boolean {
    const pending = params ? this.#pending.get(params.progressToken as JsonRpcId) : undefined;
    if (!pending) return false;
    pending.restartTimer();
    pending.onprogress?.(params as unknown as Progress);
    return true;
  }

  /**
   * A person is (true) or no longer (false) being waited for, such as a sign-in in the browser: the
   * requests' timers stop meanwhile and start afresh after, so that a slow person is not a silent
   * server (a probe that timed out would start a second sign-in in a second tab).
   */
  userWaiting(waiting: boolean): void {
    this.#userWaits = Math.max(0, this.#userWaits + (waiting ? 1 : -1));
    for (const pending of this.#pending.values()) {
      if (this.#userWaits > 0) pending.stopTimer();
      else pending.restartTimer();
    }
  }

  /** Every request still waiting fails now (the connection is gone, or being replaced). */
  rejectAll(reason: string): void {
    for (const pending of [...this.#pending.values()]) pending.reject(new McpError("closed", reason));
  }

  /** The connection closed for good: everything waiting fails, and so will every later request. */
  close(reason: string): void {
    this.#closedReason ??= reason;
    this.rejectAll(reason);
  }
}
