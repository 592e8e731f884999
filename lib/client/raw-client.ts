// The small raw MCP client: request/response correlation over any MessageChannel, the era
// negotiation of both protocol generations, progress, cancellation and timeouts. It carries
// results as plain JSON (no schema library), which keeps a one-shot call cheap to start.
// One concept past 250 lines: the client side of one MCP connection; what its requests share (ids,
// timers, cancellation) is correlator.ts, how they are sent peer.ts.

import type { CloseOptions, MessageChannel } from "../transport/channel.ts";
import {
  ErrorCode,
  isJsonObject,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from "../wire/jsonrpc.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../wire/limits.ts";
import {
  LEGACY_PROTOCOL_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_PROTOCOL_VERSIONS,
} from "../wire/protocol.ts";
import { type CorrelatorPeer, McpError, RequestCorrelator, type Timers } from "./correlator.ts";
import { channelPeer } from "./peer.ts";

/** A legacy server may stay silent on an unknown method; past this the probe counts as "legacy". */
export const DISCOVER_PROBE_TIMEOUT_MS = 5_000;

export type Era = "modern" | "legacy";

export interface ServerIdentity {
  era: Era;
  protocolVersion: string;
  serverInfo?: JsonObject;
  capabilities: JsonObject;
  instructions?: string;
  supportedVersions?: string[];
}

export { McpError } from "./correlator.ts";

export interface RequestOptions {
  timeoutMs?: number;
  /** Called for each notifications/progress about this request; it also restarts the timer. */
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  signal?: AbortSignal;
}

export interface ClientOptions {
  clientInfo: { name: string; version: string };
  capabilities?: JsonObject;
  /** What the initialize handshake declares, when a 2025 session can do less (default: capabilities). */
  legacyCapabilities?: JsonObject;
  /** Pin one revision; without it the client probes for the modern era and falls back. */
  protocolVersion?: string;
  /** 2026-07-28: servers log only for requests that name a level. */
  logLevel?: string;
  timeoutMs?: number;
  onnotification?: (notification: JsonRpcNotification) => void;
  /** Answers server->client requests; the default declines all but ping. */
  onrequest?: (request: JsonRpcRequest) => Promise<JsonObject>;
  /** The clock of request timeouts (tests pass their own). */
  timers?: Timers;
}

export class RawClient {
  readonly #channel: MessageChannel;
  readonly #options: ClientOptions;
  /**
   * Ids start at a random number: a retry made by another process (a 2026-07-28 request state sent back
   * with --input-responses) must not reuse an id an earlier process gave, and numbers suit every server.
   */
  #lastId = crypto.getRandomValues(new Uint32Array(1))[0]!;
  readonly #requests: RequestCorrelator;
  readonly #peer: CorrelatorPeer;
  #identity?: ServerIdentity;

  constructor(channel: MessageChannel, options: ClientOptions) {
    this.#channel = channel;
    this.#options = options;
    this.#requests = new RequestCorrelator(() => ++this.#lastId, options.timers);
    channel.onmessage = (message) => this.#onmessage(message);
    channel.onclose = (reason) => this.#requests.close(reason ?? "the connection closed");
    channel.onuserwait = (waiting) => this.#requests.userWaiting(waiting);
    this.#peer = channelPeer(channel);
  }

  /** Why the connection closed, once it has. */
  get closedReason(): string | undefined {
    return this.#requests.closedReason;
  }

  get identity(): ServerIdentity {
    if (!this.#identity) throw new Error("not connected");
    return this.#identity;
  }

  /**
   * Starts the channel and negotiates the era and revision; or takes `known` (asked once the
   * channel is up: mcp-daemon's cached handshake of the session) when it is one this client would
   * have negotiated, and so needs no round trip.
   */
  async connect(options: { known?: () => ServerIdentity | undefined } = {}): Promise<ServerIdentity> {
    await this.#channel.start();
    const pinned = this.#options.protocolVersion;
    const known = options.known?.();
    if (known && speaks(known) && (!pinned || pinned === known.protocolVersion)) {
      this.#identity = known;
      return known;
    }
    if (pinned && !MODERN_PROTOCOL_VERSIONS.includes(pinned)) return this.#initialize(pinned, true);
    const modern = await this.#discover(pinned ?? MODERN_PROTOCOL_VERSIONS[0]!, Boolean(pinned));
    return modern ?? this.#initialize(LEGACY_PROTOCOL_VERSIONS[0]!, false);
  }

  /** server/discover; undefined means "a legacy server", for the caller to fall back. */
  async #discover(version: string, pinned: boolean, retried = false): Promise<ServerIdentity | undefined> {
    let result: JsonObject;
    try {
      result = await this.#send("server/discover", this.#envelope({}, version), {
        timeoutMs: pinned ? this.#timeout() : Math.min(DISCOVER_PROBE_TIMEOUT_MS, this.#timeout()),
      });
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      // Streamable HTTP: a 4xx without a modern JSON-RPC error body means a legacy server.
      const legacyHttp = error.kind === "transport" && [400, 404, 405].includes(error.status ?? 0);
      if (legacyHttp && !pinned) return undefined;
      if (error.kind !== "protocol" && error.kind !== "timeout") throw error;
      const supported = error.rpc?.code === ErrorCode.UnsupportedProtocolVersion ? supportedVersions(error.rpc) : undefined;
      // Once, with the newest version it names that we speak: even the one just refused, since a server
      // that lists it as supported may have refused for a passing reason (a gateway, a restart).
      const retry = MODERN_PROTOCOL_VERSIONS.find((v) => supported?.includes(v));
      if (retry && !retried && (!pinned || retry === version)) return this.#discover(retry, pinned, true);
      if (pinned) throw new McpError("protocol", `the server does not offer protocol ${version} (${error.message})`, error.rpc);
      if (supported && !supported.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))) {
        throw new McpError("protocol", `no protocol version in common (the server supports ${supported.join(", ")})`, error.rpc);
      }
      return undefined;
    }
    const offered = Array.isArray(result.supportedVersions) ? result.supportedVersions.map(String) : [];
    // Not a discover result (`{}` from a 2025 server that answers every unknown method so): a legacy server.
    if (offered.length === 0 && !pinned) return undefined;
    if (!offered.includes(version)) {
      const other = offered.find((v) => MODERN_PROTOCOL_VERSIONS.includes(v));
      if (other && !pinned && !retried) return this.#discover(other, false, true);
      if (pinned || !offered.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))) {
        throw new McpError("protocol", `the server does not offer protocol ${version} (it offers ${offered.join(", ") || "nothing"})`);
      }
      return undefined;
    }
    const meta = isJsonObject(result._meta) ? result._meta : {};
    this.#identity = {
      era: "modern",
      protocolVersion: version,
      capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
      supportedVersions: offered,
      ...(isJsonObject(meta[META_SERVER_INFO]) ? { serverInfo: meta[META_SERVER_INFO] as JsonObject } : {}),
      ...(typeof result.instructions === "string" ? { instructions: result.instructions } : {}),
    };
    return this.#identity;
  }

  async #initialize(version: string, pinned: boolean): Promise<ServerIdentity> {
    const result = await this.#send(
      "initialize",
      {
        protocolVersion: version,
        capabilities: this.#options.legacyCapabilities ?? this.#options.capabilities ?? {},
        clientInfo: this.#options.clientInfo,
      },
      { timeoutMs: this.#timeout() },
    );
    const negotiated = typeof result.protocolVersion === "string" ? result.protocolVersion : "";
    if (!LEGACY_PROTOCOL_VERSIONS.includes(negotiated) || (pinned && negotiated !== version)) {
      throw new McpError(
        "protocol",
        `the server answered initialize with protocol ${negotiated || "(none)"}, which this client does not ` +
          `speak${pinned ? ` (pinned ${version})` : ""}`,
      );
    }
    await this.#channel.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    this.#identity = legacyIdentity(result);
    return this.#identity;
  }

  /** Sends a request in the negotiated era; resolves with its result or rejects with McpError. */
  request(method: string, params: JsonObject = {}, options: RequestOptions = {}): Promise<JsonObject> {
    const identity = this.identity;
    const withMeta = identity.era === "modern" ? this.#envelope(params, identity.protocolVersion) : params;
    return this.#send(method, withMeta, options);
  }

  /** A liveness round trip: `ping` on 2025 revisions; 2026-07-28 removed ping, so `server/discover` there. */
  ping(options: RequestOptions = {}): Promise<JsonObject> {
    return this.request(this.identity.era === "modern" ? "server/discover" : "ping", {}, options);
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.#channel.send(params ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", method });
  }

  close(options?: CloseOptions): Promise<void> {
    return this.#channel.close(options);
  }

  #envelope(params: JsonObject, version: string): JsonObject {
    const meta = isJsonObject(params._meta) ? params._meta : {};
    return {
      ...params,
      _meta: {
        ...meta,
        [META_PROTOCOL_VERSION]: version,
        [META_CLIENT_INFO]: this.#options.clientInfo,
        [META_CLIENT_CAPABILITIES]: this.#options.capabilities ?? {},
        ...(this.#options.logLevel ? { [META_LOG_LEVEL]: this.#options.logLevel } : {}),
      },
    };
  }

  #timeout(): number {
    return this.#options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  #send(method: string, params: JsonObject, options: RequestOptions): Promise<JsonObject> {
    return this.#requests.request(this.#peer, method, params, {
      timeoutMs: options.timeoutMs ?? this.#timeout(),
      signal: options.signal,
      onprogress: options.onprogress,
    });
  }

  #onmessage(message: JsonRpcMessage): void {
    if (isResponse(message)) {
      if (!this.#requests.settle(message))
        this.#channel.onerror?.(new Error(`ignored a response to unknown id ${JSON.stringify(message.id)}`));
      return;
    }
    if (isNotification(message)) {
      if (message.method === "notifications/progress") this.#requests.progress(message.params);
      this.#options.onnotification?.(message);
      return;
    }
    if (isRequest(message)) void this.#answer(message);
  }

  async #answer(request: JsonRpcRequest): Promise<void> {
    let reply: JsonRpcMessage;
    try {
      const result = await (this.#options.onrequest ?? declineAllButPing)(request);
      reply = { jsonrpc: "2.0", id: request.id, result };
    } catch (error) {
      const rpc = error instanceof McpError && error.rpc ? error.rpc : { code: ErrorCode.InternalError, message: (error as Error).message };
      reply = { jsonrpc: "2.0", id: request.id, error: rpc };
    }
    await this.#channel.send(reply).catch(() => {});
  }
}

async function declineAllButPing(request: JsonRpcRequest): Promise<JsonObject> {
  if (request.method === "ping") return {};
  const message = `this client does not support ${request.method}`;
  throw new McpError("protocol", message, { code: ErrorCode.MethodNotFound, message });
}

/** What a 2025 server's initialize result says about it (its protocolVersion checked by the caller). */
export function legacyIdentity(result: JsonObject): ServerIdentity {
  return {
    era: "legacy",
    protocolVersion: String(result.protocolVersion),
    capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
    ...(isJsonObject(result.serverInfo) ? { serverInfo: result.serverInfo } : {}),
    ...(typeof result.instructions === "string" ? { instructions: result.instructions } : {}),
  };
}

/** Whether an identity names a revision of its own era that this client speaks. */
export function speaks(identity: ServerIdentity): boolean {
  const versions = identity.era === "modern" ? MODERN_PROTOCOL_VERSIONS : identity.era === "legacy" ? LEGACY_PROTOCOL_VERSIONS : [];
  return versions.includes(identity.protocolVersion) && isJsonObject(identity.capabilities);
}

function supportedVersions(error: JsonRpcErrorObject): string[] | undefined {
  const data = error.data;
  if (!isJsonObject(data) || !Array.isArray(data.supported)) return undefined;
  return data.supported.map(String);
}
