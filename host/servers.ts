// One SDK Client per server, with every client-side feature wired: the server's lists kept fresh
// by list_changed, sampling / elicitation / roots answered through the host's UI and model, logging
// and progress shown as they arrive, subscriptions on either protocol era.
// One concept past 250 lines: one server's connection, every client feature wired on it.

import { basename } from "node:path";
import { Client, type ClientOptions, type Transport } from "@modelcontextprotocol/client";
import { CALLBACK_TIMEOUT_MS } from "../lib/auth/context.ts";
import type { LogLevelName } from "../lib/io/log-levels.ts";
import { oneLine } from "../lib/io/text.ts";
import { type ChannelAuth, openChannel } from "../lib/open.ts";
import type { Target } from "../lib/targets/target.ts";
import type { CloseOptions, MessageChannel } from "../lib/transport/channel.ts";
import { META_LOG_LEVEL, MODERN_PROTOCOL_VERSIONS } from "../lib/wire/protocol.ts";
import pkg from "../package.json" with { type: "json" };
import { ChannelTransport } from "./channel-transport.ts";
import type { EraChoice } from "./options.ts";
import type { McpTool } from "./tools.ts";

export const CLIENT_INFO = { name: "mcp-host", version: pkg.version };
/** The MCP logging level asked of servers for each of our log levels (silent asks for none). */
const MCP_LOG_LEVELS: Record<LogLevelName, string | undefined> = {
  silent: undefined,
  error: "error",
  warn: "warning",
  info: "info",
  debug: "debug",
  trace: "debug",
};
/** How long one request may take before the host gives up on it (tool calls are cancellable by Ctrl-C). */
export const REQUEST_TIMEOUT_MS = 10 * 60_000;
/** A server that has not answered the handshake by then is reported, and the chat goes on without it. */
export const CONNECT_TIMEOUT_MS = 30_000;

/** What a connection needs from the terminal: the host's UI implements it. */
export interface ServerEvents {
  note(server: string, line: string): void;
  onlistschanged(server: string): void;
  /** Builds the answers to the server's asks; see host/asks.ts. */
  handlers: ClientHandlers;
}

/** `signal` aborts when the server withdraws its request. */
export interface ClientHandlers {
  sampling(server: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  elicitation(server: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  roots(): { uri: string; name: string }[];
}

export interface Resource {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  description?: string;
}
export interface PromptInfo {
  name: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

export interface ConnectOptions {
  era: EraChoice;
  /** How an HTTP server that wants OAuth is signed in to (questions through the host's terminal). */
  auth: ChannelAuth;
  /** Each line of the server's stderr, already stripped (the host prefixes it). */
  onstderr?: (line: string) => void;
}

export class ServerConnection {
  /** The server's name in the namespace (mcp__<key>__<tool>, @<key>:uri); settled once connected. */
  key: string;
  readonly target: Target;
  readonly client: Client;
  tools: McpTool[] = [];
  resources: Resource[] = [];
  templates: ResourceTemplate[] = [];
  prompts: PromptInfo[] = [];
  /** Resource subscriptions by URI: a listen stream on 2026-07-28, resources/subscribe before. */
  readonly watched = new Map<string, { close(): Promise<void> }>();
  readonly #events: ServerEvents;
  readonly #era: EraChoice;
  #closing = false;
  /** Held so that a server still in its handshake can be stopped too (the client closes only connected ones). */
  #transport?: { close(): Promise<void> };
  /** The lib channel under a stdio or daemon connection. */
  #channel?: MessageChannel;

  readonly #logLevel: string | undefined;

  constructor(key: string, target: Target, events: ServerEvents, era: EraChoice, logLevel: LogLevelName = "info") {
    this.key = key;
    this.target = target;
    this.#events = events;
    this.#era = era;
    this.#logLevel = MCP_LOG_LEVELS[logLevel];
    this.client = new Client(CLIENT_INFO, this.#clientOptions());
    this.#wire();
  }

  get serverName(): string {
    return this.client.getServerVersion()?.name ?? this.key;
  }

  get protocolVersion(): string {
    return this.client.getNegotiatedProtocolVersion() ?? "?";
  }

  get modern(): boolean {
    return this.client.getProtocolEra() === "modern";
  }

  /** The `_meta` a 2026-07-28 request carries so the server sends its log messages. */
  get requestMeta(): { _meta?: Record<string, unknown> } {
    return this.modern && this.capabilities.logging && this.#logLevel ? { _meta: { [META_LOG_LEVEL]: this.#logLevel } } : {};
  }

  get capabilities(): Record<string, unknown> {
    return (this.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  }

  async connect(options: ConnectOptions): Promise<void> {
    // lib's channels for every transport, as in the other tools: Streamable HTTP with OAuth,
    // streams that resume or are re-issued, the HTTP+SSE fallback; a stateful entry through the daemon.
    const channel = await openChannel(this.target, { listen: true, auth: options.auth, onstderr: options.onstderr });
    this.#channel = channel;
    const transport = new ChannelTransport(channel);
    this.#transport = transport;
    // The handshake's own deadline holds while the person signs in (a slow person is not a silent
    // server); the SDK's bound only keeps the sign-in's wait from being endless.
    const deadline = handshakeDeadline(channel);
    const signInMs = options.auth.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS;
    try {
      await this.client.connect(transport as unknown as Transport, { timeout: CONNECT_TIMEOUT_MS + signInMs, signal: deadline.signal });
    } catch (error) {
      throw connectionFailure(deadline.signal.aborted ? deadline.signal.reason : error);
    } finally {
      deadline.stop();
    }
    const era = this.#era;
    if (era.mode === "pin" && this.protocolVersion !== era.version) {
      await this.close();
      throw new Error(`the server settled on ${this.protocolVersion}, not the pinned ${era.version}`);
    }
    // 2025 servers keep a session-wide log level; 2026-07-28 requests carry theirs (requestMeta).
    if (!this.modern && this.capabilities.logging && this.#logLevel)
      await this.client.setLoggingLevel(this.#logLevel as "info").catch(() => {});
    await this.refresh();
  }

  /** Re-reads every list the server offers. */
  async refresh(): Promise<void> {
    const caps = this.capabilities;
    const [tools, resources, templates, prompts] = await Promise.all([
      caps.tools ? this.client.listTools(undefined, { cacheMode: "refresh" }).then((r) => r.tools) : [],
      caps.resources ? this.client.listResources(undefined, { cacheMode: "refresh" }).then((r) => r.resources) : [],
      caps.resources
        ? this.client
            .listResourceTemplates(undefined, { cacheMode: "refresh" })
            .then((r) => r.resourceTemplates)
            .catch(() => [])
        : [],
      caps.prompts ? this.client.listPrompts(undefined, { cacheMode: "refresh" }).then((r) => r.prompts) : [],
    ]);
    this.tools = tools as McpTool[];
    this.resources = resources as Resource[];
    this.templates = templates as ResourceTemplate[];
    this.prompts = prompts as PromptInfo[];
  }

  /** "reference" (2026-07-28, 14 tools, 3 resources, 2 prompts) */
  describe(): string {
    const counts = [`${this.tools.length} tools`, `${this.resources.length} resources`, `${this.prompts.length} prompts`];
    return `"${this.serverName}" as ${this.key} (${this.protocolVersion}, ${counts.join(", ")})`;
  }

  async watch(uri: string): Promise<void> {
    if (this.watched.has(uri)) return;
    if (this.modern) {
      const subscription = await this.client.listen({ resourceSubscriptions: [uri] });
      this.watched.set(uri, subscription);
      return;
    }
    if (!(this.capabilities.resources as { subscribe?: boolean } | undefined)?.subscribe) {
      throw new Error(`${this.key} does not offer resource subscriptions`);
    }
    await this.client.subscribeResource({ uri });
    this.watched.set(uri, { close: () => this.client.unsubscribeResource({ uri }).then(() => undefined) });
  }

  async unwatch(uri: string): Promise<boolean> {
    const subscription = this.watched.get(uri);
    if (!subscription) return false;
    this.watched.delete(uri);
    await subscription.close();
    return true;
  }

  /** Tells a 2025-era server that the roots changed (2026-07-28 servers ask again instead). */
  async rootsChanged(): Promise<void> {
    if (!this.modern) await this.client.sendRootsListChanged().catch(() => {});
  }

  /** `quick`: a signal is ending the host, and the server is stopped within a second. */
  async close(options?: CloseOptions): Promise<void> {
    this.#closing = true;
    await this.#channel?.close(options).catch(() => {});
    await this.client.close().catch(() => {});
    await this.#transport?.close().catch(() => {});
  }

  #clientOptions(): ClientOptions {
    const era = this.#era;
    const options: ClientOptions = {
      capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
      listChanged: {
        tools: { onChanged: () => void this.#listsChanged() },
        prompts: { onChanged: () => void this.#listsChanged() },
        resources: { onChanged: () => void this.#listsChanged() },
      },
    };
    if (era.mode === "auto") options.versionNegotiation = { mode: "auto" };
    else if (era.mode === "legacy") options.versionNegotiation = { mode: "legacy" };
    else if (MODERN_PROTOCOL_VERSIONS.includes(era.version)) options.versionNegotiation = { mode: { pin: era.version } };
    else options.supportedProtocolVersions = [era.version];
    return options;
  }

  async #listsChanged(): Promise<void> {
    try {
      const before = this.#names();
      await this.refresh();
      const after = this.#names();
      const changes = Object.keys(after).flatMap((list) => {
        const was = new Set(before[list]);
        const now = new Set(after[list]);
        const diff = [...now]
          .filter((n) => !was.has(n))
          .map((n) => `+${n}`)
          .concat([...was].filter((n) => !now.has(n)).map((n) => `-${n}`));
        return diff.length > 0 ? [`${list} ${diff.join(" ")}`] : [];
      });
      if (changes.length > 0) this.#events.note(this.key, `changed: ${changes.join("; ")}`);
      this.#events.onlistschanged(this.key);
    } catch (error) {
      if (!this.#closing) this.#events.note(this.key, `could not refresh lists: ${(error as Error).message}`);
    }
  }

  #names(): Record<string, string[]> {
    return { tools: this.tools.map((t) => t.name), resources: this.resources.map((r) => r.uri), prompts: this.prompts.map((p) => p.name) };
  }

  #wire(): void {
    const { handlers, note } = this.#events;
    const client = this.client;
    client.setRequestHandler(
      "sampling/createMessage",
      async (request, ctx) => handlers.sampling(this.key, request.params as Record<string, unknown>, ctx.mcpReq.signal) as never,
    );
    client.setRequestHandler(
      "elicitation/create",
      async (request, ctx) => handlers.elicitation(this.key, request.params as Record<string, unknown>, ctx.mcpReq.signal) as never,
    );
    client.setRequestHandler("roots/list", async () => ({ roots: handlers.roots() }));
    client.setNotificationHandler("notifications/message", (notification) => {
      const { level, logger, data } = notification.params;
      const text = typeof data === "string" ? data : JSON.stringify(data);
      note(this.key, `${level}${logger ? ` ${logger}` : ""}: ${text}`);
    });
    client.setNotificationHandler("notifications/elicitation/complete", (notification) => {
      note(this.key, `the browser step ${notification.params.elicitationId} is complete`);
    });
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      note(this.key, `resource updated: @${this.key}:${notification.params.uri}`);
    });
  }
}

/** Labels that say "a server" rather than whose: mcp.linear.app is linear. */
const GENERIC_HOST_LABELS = new Set(["www", "mcp", "api", "app", "server", "servers", "remote", "gateway"]);

/** The name a URL server goes by: its host's own name (mcp.linear.app: linear; 127.0.0.1: localhost). */
export function keyForHost(hostname: string): string {
  if (hostname === "localhost" || hostname === "[::1]" || /^127\./.test(hostname)) return "localhost";
  if (/^[\d.]+$/.test(hostname) || hostname.startsWith("[")) return hostname.replace(/[^\w]+/g, "_");
  const labels = hostname.split(".").filter(Boolean);
  const named = labels.slice(0, labels.length > 1 ? -1 : undefined).filter((label) => !GENERIC_HOST_LABELS.has(label));
  return named.at(-1) ?? labels[0] ?? "http";
}

/** A short, readable key for a server given on the command line. */
export function keyForTarget(target: Target): string {
  if (target.name) return target.name;
  if (target.kind === "http") return keyForHost(new URL(target.url).hostname);
  const RUNNERS = new Set([
    "node",
    "bun",
    "deno",
    "npx",
    "bunx",
    "uvx",
    "uv",
    "python",
    "python3",
    "pnpm",
    "yarn",
    "tsx",
    "run",
    "-y",
    "--yes",
  ]);
  const words = [target.command, ...target.args].map((word) => basename(word).replace(/\.(m?[jt]s|py|exe)$/, ""));
  return words.find((word) => !RUNNERS.has(word) && !word.startsWith("-")) ?? "server";
}

/** Why a connection failed, as one safe line: the SDK's "Version negotiation probe failed: " goes, the cause stays. */
export function connectionFailure(error: unknown): Error {
  const text = (error instanceof Error ? error.message : String(error)).replace(/^Version negotiation probe failed: /, "");
  return new Error(oneLine(text));
}

/**
 * CONNECT_TIMEOUT_MS of the server's time: the clock stops while the channel waits for the person, and starts afresh after.
 * Once stopped it lets go of the channel: a later sign-in (a step-up in a tool call) must not start a handshake clock
 * again, whose timer would keep `mcp-host -p` alive 30 s after its answer.
 */
export function handshakeDeadline(channel: Pick<MessageChannel, "onuserwait">): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const before = channel.onuserwait;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => controller.abort(new Error(`the server did not answer its handshake within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
  };
  const watching = (waiting: boolean) => {
    before?.(waiting);
    if (waiting) clearTimeout(timer);
    else start();
  };
  channel.onuserwait = watching;
  start();
  return {
    signal: controller.signal,
    stop: () => {
      clearTimeout(timer);
      if (channel.onuserwait === watching) channel.onuserwait = before;
    },
  };
}
