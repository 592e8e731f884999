// 2026-07-28 over HTTP, a tools/call must mirror the tool's `x-mcp-header` parameters into headers,
// which only its inputSchema names. A stateless client may call a tool it listed in another process
// (or never): before such a call the channel lists the tools itself, every page, so that whoever
// sends through it (the CLI, mcp mode, the proxy's bridge, the daemon) needs to know nothing of it.
import { isJsonObject, isRequest, type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest } from "../../wire/jsonrpc.ts";
import { FIRST_MODERN_REVISION } from "../../wire/protocol.ts";

/** A server that pages its tool list forever is not listed further than this. */
export const MAX_TOOL_LIST_PAGES = 100;

export interface ToolListingHooks {
  /** Posts a request of ours; its answer comes back through answered(). */
  post(request: JsonRpcRequest): Promise<void>;
  /** Gives up a request of ours (nobody waits for the listing any more). */
  cancel(id: JsonRpcId): void;
  /** Whether the headers know this tool's annotations already. */
  knows(tool: string): boolean;
}

export class ToolListing {
  readonly #hooks: ToolListingHooks;
  readonly #waiting = new Map<JsonRpcId, (answer: JsonRpcMessage | undefined) => void>();
  /** Tools a full listing did not show: not listed again for them until the list changes. */
  readonly #absent = new Set<string>();
  /** The listing under way; true once it read every page. */
  #listing?: Promise<boolean>;
  /** The calls waiting on the listing under way; when the last gives up, so does the listing. */
  #waiters = 0;
  #current?: JsonRpcId;
  #sequence = 0;
  readonly #prefix = `mcpkit-tools-${crypto.randomUUID().slice(0, 8)}`;

  constructor(hooks: ToolListingHooks) {
    this.#hooks = hooks;
  }

  /** The tool a 2026-07-28 tools/call names when its annotations are still unknown. */
  unknownTool(message: JsonRpcMessage, version: string | undefined): string | undefined {
    if (!isRequest(message) || message.method !== "tools/call" || !version || version < FIRST_MODERN_REVISION) return undefined;
    const name = message.params?.name;
    if (typeof name !== "string" || this.#hooks.knows(name) || this.#absent.has(name)) return undefined;
    return name;
  }

  /**
   * Lists every page (the call's own `_meta` on each, so the server sees the same client), once for
   * all the calls waiting at the time. A listing that fails leaves the call to go as it is: the
   * server's own answer then says what is wrong.
   */
  async before(call: JsonRpcRequest, tool: string, signal: AbortSignal): Promise<void> {
    this.#listing ??= this.#listAll(call).finally(() => (this.#listing = undefined));
    const gaveUp = new Promise<false>((resolve) => signal.addEventListener("abort", () => resolve(false), { once: true }));
    this.#waiters++;
    let complete = false;
    try {
      complete = await Promise.race([this.#listing, gaveUp]);
    } finally {
      this.#waiters--;
      if (signal.aborted && this.#waiters === 0 && this.#current !== undefined) this.#giveUp(this.#current);
    }
    // Only a listing that read every page proves a tool is not there (a failed one is tried again next time).
    if (complete && !this.#hooks.knows(tool)) this.#absent.add(tool);
  }

  /** The list changed (notifications/tools/list_changed): a tool missing before may be there now. */
  changed(): void {
    this.#absent.clear();
  }

  /** True when `message` answers one of our own requests (it goes no further). */
  answered(message: JsonRpcMessage): boolean {
    if (!("id" in message) || "method" in message || message.id === null) return false;
    const resolve = this.#waiting.get(message.id);
    if (!resolve) return false;
    this.#waiting.delete(message.id);
    resolve(message);
    return true;
  }

  /** Nobody waits for the listing any more: its request is cancelled, and the listing ends unanswered. */
  #giveUp(id: JsonRpcId): void {
    const resolve = this.#waiting.get(id);
    this.#waiting.delete(id);
    this.#hooks.cancel(id);
    resolve?.(undefined);
  }

  /** The channel closed: nobody answers what we asked. */
  abandon(): void {
    for (const resolve of this.#waiting.values()) resolve(undefined);
    this.#waiting.clear();
  }

  async #listAll(call: JsonRpcRequest): Promise<boolean> {
    const meta = isJsonObject(call.params?._meta) ? { ...call.params._meta } : undefined;
    delete meta?.progressToken;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_LIST_PAGES; page++) {
      if (this.#waiters === 0 && page > 0) return false;
      const id = `${this.#prefix}-${++this.#sequence}`;
      this.#current = id;
      const answer = new Promise<JsonRpcMessage | undefined>((resolve) => this.#waiting.set(id, resolve));
      const params = { ...(cursor ? { cursor } : {}), ...(meta ? { _meta: meta } : {}) };
      try {
        await this.#hooks.post({ jsonrpc: "2.0", id, method: "tools/list", params });
      } catch {
        this.#waiting.delete(id);
        return false;
      }
      const message = await answer;
      this.#current = undefined;
      if (!message || !("result" in message)) return false;
      const next = message.result.nextCursor;
      if (typeof next !== "string" || next === "") return true;
      cursor = next;
    }
    // As far as we list: a server that pages forever is not listed again for the same tool.
    return true;
  }
}
