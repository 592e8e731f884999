// The proxy's states and the moves between them (the table is in core.ts): the first start, every
// restart whoever asks for it (restart_server, a watched change, an expired HTTP session, a crash),
// the backoff and circuit breaker after crashes, and the queue of client messages that arrive
// while no process can take them, flushed in one place whichever way a restart ends. One concept
// past 250 lines: each of these decides the next state, so they read and set it together. The
// server process, the requests in flight and the way to the client are the rest of the proxy's,
// reached through RestartHost.
import type { ConsolaInstance } from "consola/core";
import { waitMs } from "../lib/io/reading.ts";
import {
  ErrorCode,
  errorResponse,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type RawMessage,
} from "../lib/wire/jsonrpc.ts";
import { CHANNEL_BUFFER_BYTES } from "../lib/wire/limits.ts";
import { SAFE_TO_REPEAT_METHODS } from "../lib/wire/protocol.ts";
import { startAnnouncements } from "./announce.ts";
import { CircuitBreaker, CRASH_WINDOW_MS } from "./breaker.ts";
import type { InFlight, InFlightTable } from "./in-flight.ts";
import { diffTools, RESTART_TOOL, type RestartReport, withListChanged } from "./restart-tool.ts";

/** A hung server must not hold a restart up for long just to compute the tool diff. */
export const TOOL_DIFF_TIMEOUT_MS = 2_000;

export type ProxyState = "starting" | "running" | "restarting" | "broken" | "closed";

/** A new process, told the client's session again: its capabilities and, on 2025 revisions, its initialize result. */
export interface Replayed {
  capabilities: JsonObject;
  initialized?: JsonObject;
}

/** What a restart does through the forwarder, which owns the server process and the way to the client. */
export interface RestartHost {
  readonly inFlight: InFlightTable;
  /** No process has run yet: this is the first start, not a restart. */
  neverStarted(): boolean;
  /** Every tool of the current process, through the proxy's own requests. */
  listTools(timeoutMs: number): Promise<Map<string, string>>;
  /** The one answer a request in flight gets. */
  answer(entry: InFlight, message: JsonRpcMessage): Promise<void>;
  /** The old process's questions to the client, and the proxy's own requests to it, are void. */
  abandon(reason: string): void;
  stopChild(): Promise<void>;
  /** Starts a new process and tells it the client's session. */
  startChild(): Promise<Replayed>;
  /** Sends a kept request in flight to the new process. */
  resend(entry: InFlight): void;
  /** A client message that waited in the queue, handled as if it arrived now. */
  dispatch(message: JsonRpcMessage, raw: RawMessage): void;
  /** Which notifications the client may receive (announce.ts). */
  era(): "legacy" | "modern" | "none";
  send(message: JsonRpcNotification): Promise<void>;
}

export interface RestartOptions {
  log: ConsolaInstance;
  /** The client's input, paused while the queue is full. */
  clientInput?: { pause(reason?: string): void; resume(reason?: string): void };
  autoRestart: boolean;
  maxRestarts: number;
  restartDelayMs: number;
}

const closing = (reason: string): RestartReport => ({ ok: false, reason, durationMs: 0, error: "the proxy is closing" });

export class Restarter {
  readonly #host: RestartHost;
  readonly #options: RestartOptions;
  readonly #log: ConsolaInstance;
  readonly #breaker: CircuitBreaker;
  #state: ProxyState = "starting";
  #brokenReason = "";
  #queue: { message: JsonRpcMessage; raw: RawMessage }[] = [];
  #queuedBytes = 0;
  #restarting?: Promise<RestartReport>;
  #restartAgain?: string;
  #crashDuringRestart?: string;
  #wakeFromBackoff?: () => void;

  constructor(options: RestartOptions, host: RestartHost) {
    this.#options = options;
    this.#log = options.log;
    this.#host = host;
    this.#breaker = new CircuitBreaker(options.maxRestarts, options.restartDelayMs);
  }

  get state(): ProxyState {
    return this.#state;
  }

  /** Why the server is down, while it is broken. */
  get brokenReason(): string {
    return this.#brokenReason;
  }

  /** How many client messages wait for a process to take them. */
  get queued(): number {
    return this.#queue.length;
  }

  /** A client message that arrived while starting or restarting: it waits for the new process. */
  hold(message: JsonRpcMessage, raw: RawMessage): void {
    this.#queue.push({ message, raw });
    this.#queuedBytes += raw.length;
    // A long restart: the client waits in its own pipe rather than in our memory.
    if (this.#queuedBytes >= CHANNEL_BUFFER_BYTES) this.#options.clientInput?.pause("restart");
  }

  /** The client's input ended and time is up: what still waits will never be sent. */
  takeQueued(): JsonRpcMessage[] {
    const queued = this.#queue.map(({ message }) => message);
    this.#queue = [];
    this.#queuedBytes = 0;
    return queued;
  }

  /**
   * Restarts the server. Overlapping triggers share one restart; `again` queues one more after it
   * (a file saved while we restart). A manual or watched restart that succeeds resets the breaker.
   */
  restart(reason: string, options: { again?: boolean; delayMs?: number; resetsBreaker?: boolean } = {}): Promise<RestartReport> {
    if (this.#state === "closed") return Promise.resolve(closing(reason));
    if (this.#restarting) {
      if (options.again) this.#restartAgain = reason;
      return this.#restarting;
    }
    this.#restarting = this.#restartOnce(reason, options.delayMs ?? 0).then((report) => {
      if (report.ok && options.resetsBreaker) this.#breaker.reset();
      return report;
    });
    void this.#restarting.finally(() => {
      this.#restarting = undefined;
      const crashed = this.#crashDuringRestart;
      const again = this.#restartAgain;
      this.#crashDuringRestart = undefined;
      this.#restartAgain = undefined;
      // A new process that died while we were still finishing its restart is handled like any crash.
      if (crashed && this.#state !== "closed") this.crashed(crashed);
      else if (again) void this.restart(again, { resetsBreaker: true });
      this.#host.inFlight.checkIdle();
    });
    return this.#restarting;
  }

  async #restartOnce(reason: string, delayMs: number): Promise<RestartReport> {
    const host = this.#host;
    const started = performance.now();
    const first = host.neverStarted();
    const wasRunning = this.#state === "running";
    this.#state = first ? "starting" : "restarting";
    if (!first) this.#log.info(`restarting the server (${reason})`);
    const toolsBefore = wasRunning ? await host.listTools(TOOL_DIFF_TIMEOUT_MS).catch(() => undefined) : undefined;

    // In flight: harmless requests go again to the new process (and those an expired HTTP session
    // never saw); an initialize is answered by the new process's handshake; anything else is
    // refused, since repeating it could do its work twice. What is kept stays owed (in flight).
    const resend: InFlight[] = [];
    const initializing: InFlight[] = [];
    for (const entry of host.inFlight.entries()) {
      if (entry.method === "initialize") initializing.push(entry);
      else if (SAFE_TO_REPEAT_METHODS.has(entry.method) || host.inFlight.isExpired(entry)) resend.push(entry);
      else
        void host.answer(
          entry,
          errorResponse(
            entry.id,
            ErrorCode.ServerRestarted,
            `mcp-proxy: the server restarted (${reason}) while ${entry.method} was running; it was not repeated, since that could do ` +
              `its work twice`,
          ),
        );
    }
    host.abandon(reason);

    await host.stopChild();
    if (delayMs > 0) {
      const wake = new AbortController();
      this.#wakeFromBackoff = () => wake.abort();
      await waitMs(delayMs, wake.signal);
    }
    this.#wakeFromBackoff = undefined;
    // The client may have left while we waited (TypeScript cannot see that state changes across await).
    if ((this.#state as string) === "closed") return closing(reason);

    let replayed: Replayed;
    try {
      replayed = await host.startChild();
      if ((this.#state as string) === "closed") throw new Error("the proxy is closing");
    } catch (error) {
      const message = (error as Error).message;
      if ((this.#state as string) !== "closed") this.#log.error(`the server did not ${first ? "start" : "come back"}: ${message}`);
      await host.stopChild();
      this.#fail(`the server did not ${first ? "start" : "come back after a restart"}: ${message}`);
      // Counted like a crash: retried with backoff until the circuit breaker says enough.
      this.#crashDuringRestart = message;
      return { ok: false, reason, durationMs: Math.round(performance.now() - started), error: message };
    }

    this.#state = "running";
    for (const entry of initializing)
      void host.answer(entry, { jsonrpc: "2.0", id: entry.id, result: withListChanged(replayed.initialized ?? {}) });
    host.inFlight.clearExpired();
    // Cancelled by the client while we restarted: not sent again.
    for (const entry of resend) if (host.inFlight.holds(entry)) host.resend(entry);
    this.#flushQueue();
    if (!first) {
      for (const notification of startAnnouncements(replayed.capabilities, host.era(), resend)) await host.send(notification);
    }

    const durationMs = Math.round(performance.now() - started);
    const report: RestartReport = { ok: true, reason, durationMs };
    if (toolsBefore) {
      const toolsAfter = await host.listTools(TOOL_DIFF_TIMEOUT_MS).catch(() => undefined);
      if (toolsAfter) report.tools = diffTools(toolsBefore, toolsAfter);
    }
    if (!first) this.#log.info(`the server is back after ${durationMs} ms`);
    return report;
  }

  /** The server process went away on its own. */
  crashed(reason: string): void {
    if (this.#state === "closed") return;
    if (this.#restarting) {
      this.#crashDuringRestart = reason;
      return;
    }
    const verdict = this.#breaker.crashed();
    if (!this.#options.autoRestart) return this.#fail(`${reason}; automatic restart is off`);
    if ("open" in verdict) {
      this.#log.error(
        `the server crashed ${verdict.crashes} times within ${CRASH_WINDOW_MS / 1000} s; not restarting it until ${RESTART_TOOL} is ` +
          `called or a watched file changes`,
      );
      return this.#fail(`it crashed ${verdict.crashes} times within ${CRASH_WINDOW_MS / 1000} s (last: ${reason})`);
    }
    void this.restart(`the server crashed: ${reason}`, { delayMs: verdict.restartInMs });
  }

  /** The server is down and stays down: everything waiting gets an answer that says why. */
  #fail(reason: string): void {
    if (this.#state === "closed") return;
    this.#state = "broken";
    this.#brokenReason = reason;
    for (const entry of this.#host.inFlight.entries())
      void this.#host.answer(entry, errorResponse(entry.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${reason}`));
    this.#flushQueue();
    this.#host.inFlight.checkIdle();
  }

  /** A restart ended, either way: what waited is handled now (sent on when running, refused when broken). */
  #flushQueue(): void {
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    for (const { message, raw } of queued) this.#host.dispatch(message, raw);
    this.#options.clientInput?.resume("restart");
  }

  /** The client is gone: no state but this one from now on, and a backoff under way ends at once. */
  close(): void {
    this.#state = "closed";
    this.#wakeFromBackoff?.();
  }
}
