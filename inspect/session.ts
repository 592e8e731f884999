// One connection to one server for the length of a command: the channel for the target's kind,
// the raw client on top, a watchdog for --timeout (progress resets it), and Ctrl-C turned into
// notifications/cancelled.
import { McpError, RawClient, type ServerIdentity } from "../lib/client.ts";
import { HttpChannel } from "../lib/http.ts";
import type { JsonObject, MessageChannel } from "../lib/jsonrpc.ts";
import { createLogger, stripControl } from "../lib/log.ts";
import { StdioChannel } from "../lib/stdio.ts";
import type { Target } from "../lib/target.ts";
import { CommandError, EXIT } from "./output.ts";

/** A server that pages forever must not keep us looping. */
export const MAX_LIST_PAGES = 1_000;
/** How long closing the connection may hold up the exit. */
export const CLOSE_WAIT_MS = 3_000;

export interface SessionOptions {
  version: string;
  timeoutMs: number;
  protocolVersion?: string;
  verbose?: boolean;
  /** Turn Ctrl-C and SIGTERM into cancellation of the work under way (one-shot commands). */
  handleSignals?: boolean;
}

export async function connect(target: Target, options: SessionOptions): Promise<Session> {
  const session = new Session(target, options);
  try {
    await session.run(() => session.client.connect());
  } catch (error) {
    await session.close();
    throw Object.assign(error as Error, { stderrTail: session.stderrTail });
  }
  return session;
}

/** A connected server; each `run` is one unit of work under its own --timeout watchdog. */
export class Session {
  readonly client: RawClient;
  readonly #channel: MessageChannel;
  readonly #timeoutMs: number;
  readonly #active = new Set<Watchdog>();
  readonly #removeSignalHandlers: () => void;

  constructor(target: Target, options: SessionOptions) {
    const log = createLogger({ level: options.verbose ? "debug" : "warn", tag: "mcp-inspect" });
    this.#timeoutMs = options.timeoutMs;
    this.#channel =
      target.kind === "stdio"
        ? new StdioChannel({
            command: target.command,
            args: target.args,
            env: target.env,
            cwd: target.cwd,
            onstderr: options.verbose ? (chunk) => process.stderr.write(chunk) : undefined,
          })
        : new HttpChannel({ url: target.url, headers: target.headers, transport: target.transport });
    this.#channel.onerror = (error) => log.debug(error.message);
    this.client = new RawClient(this.#channel, {
      clientInfo: { name: "mcp-inspect", version: options.version },
      protocolVersion: options.protocolVersion,
      timeoutMs: options.timeoutMs,
      ...(options.verbose ? { logLevel: "debug" } : {}),
      onnotification: (notification) => {
        // Progress restarts every watchdog: the server is demonstrably working.
        if (notification.method === "notifications/progress") for (const watchdog of this.#active) watchdog.reset();
        if (options.verbose) log.info(`${notification.method} ${stripControl(JSON.stringify(notification.params ?? {}))}`);
      },
    });
    this.#removeSignalHandlers = options.handleSignals
      ? onSignals((signal, code) => {
          for (const watchdog of this.#active) watchdog.abort(new CommandError(code, `interrupted by ${signal}; the server was told to cancel`));
        })
      : () => {};
  }

  get protocolVersion(): string | undefined {
    try {
      return this.client.identity.protocolVersion;
    } catch {
      return undefined;
    }
  }

  get stderrTail(): string | undefined {
    return this.#channel instanceof StdioChannel ? this.#channel.stderrTail : undefined;
  }

  get closed(): boolean {
    return this.client.closedReason !== undefined;
  }

  /** Runs work under a fresh watchdog: it fails with a timeout or an interrupt, whichever comes first. */
  async run<T>(work: (call: Call) => Promise<T>): Promise<T> {
    const watchdog = new Watchdog(this.#timeoutMs);
    this.#active.add(watchdog);
    try {
      return await Promise.race([work(new Call(this.client, watchdog)), watchdog.fired]);
    } finally {
      watchdog.stop();
      this.#active.delete(watchdog);
    }
  }

  async close(): Promise<void> {
    this.#removeSignalHandlers();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.client.close().catch(() => {}),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
}

/** The requests of one unit of work, all bound to its watchdog. */
export class Call {
  constructor(
    readonly client: RawClient,
    readonly watchdog: Watchdog,
  ) {}

  async request(method: string, params: JsonObject): Promise<JsonObject> {
    const result = await this.client.request(method, params, { signal: this.watchdog.signal, onprogress: () => this.watchdog.reset() });
    if (result.resultType === "input_required") {
      // 2026-07-28 multi round-trip: the server wants sampling, elicitation or roots from a client.
      const wanted = Object.values((result.inputRequests ?? {}) as Record<string, { method?: string }>).map((r) => r.method ?? "input");
      throw new CommandError(EXIT.protocol, `the server asked for input this command cannot give (${wanted.join(", ") || "input_required"}); use an interactive client such as mcp-host`, { result });
    }
    return result;
  }

  /** A liveness round trip in the negotiated era, timed. */
  async ping(): Promise<{ roundTripMs: number }> {
    const started = performance.now();
    await this.client.ping({ signal: this.watchdog.signal });
    return { roundTripMs: Math.round((performance.now() - started) * 100) / 100 };
  }

  /** Follows nextCursor through every page, returning all items under `key`. */
  async listAll(method: string, key: string): Promise<JsonObject> {
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await this.request(method, cursor ? { cursor } : {});
      if (Array.isArray(result[key])) items.push(...(result[key] as unknown[]));
      cursor = typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined;
      if (!cursor) return { [key]: items };
    }
    throw new McpError("protocol", `${method} kept returning a next page after ${MAX_LIST_PAGES} pages`);
  }

  identity(): ServerIdentity {
    return this.client.identity;
  }
}

/** --timeout for the whole command; progress from the server restarts it. */
export class Watchdog {
  readonly #controller = new AbortController();
  readonly fired: Promise<never>;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(readonly ms: number) {
    this.fired = new Promise<never>((_, reject) => {
      this.#controller.signal.addEventListener("abort", () => reject(this.#controller.signal.reason), { once: true });
    });
    this.fired.catch(() => {});
    this.reset();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  reset(): void {
    if (this.#controller.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.abort(new McpError("timeout", `no answer within ${this.ms} ms (raise --timeout)`)), this.ms);
  }

  abort(reason: Error): void {
    clearTimeout(this.#timer);
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

function onSignals(handler: (signal: string, exitCode: number) => void): () => void {
  const onInt = () => handler("Ctrl-C", EXIT.interrupted);
  const onTerm = () => handler("SIGTERM", 143);
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}
