// The handshake a session does with its server once, for all its clients: which era it speaks
// upstream, the initialize result later clients are answered from, the tools/list kept while the
// server promises list_changed, the same handshake again for a new process or HTTP session, and
// what a client attaching now may take as known (the socket protocol's session extension).
import { legacyIdentity } from "../lib/client/raw-client.ts";
import { SESSION_EXTENSION_VERSION, type SessionInfo } from "../lib/daemon/protocol.ts";
import type { MessageChannel } from "../lib/transport/channel.ts";
import type { JsonObject, JsonRpcRequest } from "../lib/wire/jsonrpc.ts";
import { LEGACY_PROTOCOL_VERSIONS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../lib/wire/protocol.ts";

const LEGACY_HANDSHAKE_VERSION = "2025-11-25";

export class SessionHandshake {
  /** Which handshake the upstream process was given. The daemon prefers 2025: sessions exist there. */
  #era: "unknown" | "legacy" | "modern" = "unknown";
  #params?: JsonObject;
  #result?: JsonObject;
  #initializing?: Promise<JsonObject>;
  #renewing?: Promise<void>;
  #initializedSent = false;
  /** tools/list answered from memory while the server promises list_changed notifications. */
  #tools?: JsonObject;

  /** `request` is the session's own request to its server; `upstream` the server's channel now, if any. */
  constructor(
    private readonly request: (method: string, params: JsonObject) => Promise<JsonObject>,
    private readonly upstream: () => MessageChannel | undefined,
  ) {}

  /** Whether clients did a handshake that a new process (or HTTP session) must hear again. */
  get done(): boolean {
    return this.#params !== undefined;
  }

  /** A new process or connection: it has heard nothing yet. */
  opened(): void {
    this.#initializedSent = false;
  }

  /** A request that carries 2026-07-28 `_meta` settles an undecided session: its clients speak to the server themselves. */
  notice(request: JsonRpcRequest): void {
    if (this.#era === "unknown" && (request.params?._meta as JsonObject | undefined)?.[META_PROTOCOL_VERSION]) this.#era = "modern";
  }

  /**
   * Whether this session speaks the 2025 handshake upstream. Decided on the first probe: the daemon
   * initializes the server itself (with the prober's identity) and only a server that refuses
   * stays on 2026-07-28, so clients of both eras can share a session.
   */
  async keepsLegacy(probe: JsonRpcRequest): Promise<boolean> {
    if (this.#era !== "unknown") return this.#era === "legacy";
    const meta = (probe.params?._meta as JsonObject | undefined) ?? {};
    try {
      const result = await (this.#initializing ??= this.#first({
        protocolVersion: LEGACY_HANDSHAKE_VERSION,
        capabilities: (meta[META_CLIENT_CAPABILITIES] as JsonObject | undefined) ?? {},
        clientInfo: (meta[META_CLIENT_INFO] as JsonObject | undefined) ?? { name: "mcp-daemon", version: "1" },
      }));
      // A server that answers the 2025 handshake with a version of no 2025 revision speaks none of
      // them (some 2026-07-28 servers answer initialize so): its clients negotiate with it themselves.
      if (!LEGACY_PROTOCOL_VERSIONS.includes(String(result.protocolVersion))) {
        this.#era = "modern";
        this.#params = undefined;
        this.#result = undefined;
        return false;
      }
      await this.upstream()?.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      this.#initializedSent = true;
      return true;
    } catch {
      this.#era = "modern";
      return false;
    }
  }

  /** The first initialize goes upstream; every later one is answered from its cached result. */
  async initialize(params: JsonObject): Promise<JsonObject> {
    return this.#result ?? (await (this.#initializing ??= this.#first(params)));
  }

  /** Whether a client's notifications/initialized goes on: each process hears it once. */
  passInitialized(): boolean {
    if (this.#initializedSent) return false;
    this.#initializedSent = true;
    return true;
  }

  /** initialize + initialized again on the current upstream (a new process, or a new HTTP session). */
  async renew(): Promise<void> {
    this.#tools = undefined;
    this.#result = await this.request("initialize", this.#params!);
    await this.upstream()!.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    this.#initializedSent = true;
  }

  /** One renewal however many requests noticed that an HTTP server forgot the session. */
  renewOnce(): Promise<void> {
    this.#renewing ??= this.renew().finally(() => (this.#renewing = undefined));
    return this.#renewing;
  }

  /** The cached answer to `request`, a tools/list's first page, if there is one. */
  cachedTools(request: JsonRpcRequest): JsonObject | undefined {
    return request.method === "tools/list" && request.params?.cursor === undefined ? this.#tools : undefined;
  }

  /** Kept only when single-page, and only from a 2025-era server that declared tools.listChanged. */
  sawTools(result: JsonObject): void {
    const capabilities = (this.#result?.capabilities as JsonObject | undefined) ?? {};
    const promisesChanges = (capabilities.tools as JsonObject | undefined)?.listChanged === true;
    if (this.#era === "legacy" && promisesChanges && !result.nextCursor) this.#tools = result;
  }

  /** The tools changed, or the server that listed them is gone. */
  dropTools(): void {
    this.#tools = undefined;
  }

  /**
   * What a client attaching now may take as known instead of asking: the 2025 handshake once it is
   * done upstream, and the tool list while it is cached. A 2026-07-28 session offers neither: its
   * clients negotiate with the server itself.
   */
  sessionInfo(): SessionInfo {
    const result = this.#result;
    if (this.#era !== "legacy" || !this.#initializedSent || !result || !LEGACY_PROTOCOL_VERSIONS.includes(String(result.protocolVersion))) {
      return { version: SESSION_EXTENSION_VERSION };
    }
    const tools = this.#tools?.tools;
    return {
      version: SESSION_EXTENSION_VERSION,
      identity: legacyIdentity(result),
      ...(Array.isArray(tools) ? { tools: tools as JsonObject[] } : {}),
    };
  }

  async #first(params: JsonObject): Promise<JsonObject> {
    try {
      const result = await this.request("initialize", params);
      this.#params = params;
      this.#result = result;
      this.#era = "legacy";
      return result;
    } finally {
      this.#initializing = undefined;
    }
  }
}
