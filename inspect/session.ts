// One connection to one server: the channel for the target's kind, the raw client on top, and
// watchdogs for --timeout (progress resets them). A one-shot command runs its whole life under
// one watchdog; `mcp` mode gives each tool call its own.
// One concept past 250 lines: one connection and the work done on it (Session, Call, Watchdog are
// its three faces: the link, one unit of work, that unit's clock).

import type { ConsolaInstance } from "consola/core";
import { McpError, RawClient, type ServerIdentity } from "../lib/client/raw-client.ts";
import type { SessionInfo } from "../lib/daemon/protocol.ts";
import { PARK_ERROR_MESSAGE, PARKED_NOTIFICATION, PARKED_TTL_MS } from "../lib/daemon/questions.ts";
import type { LogLevelName } from "../lib/io/log-levels.ts";
import { settlesWithin } from "../lib/io/reading.ts";
import { ownStderr } from "../lib/io/stderr.ts";
import { stripControl } from "../lib/io/text.ts";
import { type ChannelAuth, openChannel } from "../lib/open.ts";
import type { Target } from "../lib/targets/target.ts";
import { type CloseOptions, DroppedLineError, type MessageChannel } from "../lib/transport/channel.ts";
import { ErrorCode, type JsonObject, type JsonRpcRequest } from "../lib/wire/jsonrpc.ts";
import { adoptEarlyServer } from "./early-server.ts";
import { CommandError, EXIT } from "./output.ts";
import {
  ANSWERABLE_CAPABILITIES,
  answerLegacyQuestion,
  answersForParked,
  inputRequired,
  type QuestionPolicy,
  withAnswers,
} from "./questions.ts";
import { TASK_CLIENT_CAPABILITIES } from "./tasks.ts";

/** A server that pages forever must not keep us looping. */
export const MAX_LIST_PAGES = 1_000;
/** How long closing the connection may hold up the exit. */
export const CLOSE_WAIT_MS = 3_000;

export interface SessionOptions {
  version: string;
  timeoutMs: number;
  protocolVersion?: string;
  /** Our own log level (warn by default); debug also shows the server's stderr and notifications. */
  logLevel?: LogLevelName;
  logFile?: string;
  /** Through mcp-daemon (also when the target says so). */
  stateful?: boolean;
  /** How to sign in to an HTTP server that wants OAuth (default: stored tokens only). */
  auth?: ChannelAuth;
  /** Who answers a server's questions mid-call (default: nobody here; the command ends with exit 8). */
  questions?: QuestionPolicy;
  /**
   * A call that a 2025 HTTP server may answer with a question on its standalone GET stream (not on the
   * call's own): that stream is opened, so the question is seen and the command ends with exit 8 (or it is answered).
   */
  listen?: boolean;
}

/** Whether to show what the server says besides its answers (debug and trace). */
function chatty(options: SessionOptions): boolean {
  return options.logLevel === "debug" || options.logLevel === "trace";
}

/** Where a session says what the server says besides its answers: lines at debug level, so only a chatty session has one. */
type SessionLog = Pick<ConsolaInstance, "debug" | "info">;

/** A session for the target, not yet connected: direct, or through mcp-daemon. */
export async function openSession(target: Target, given: SessionOptions): Promise<Session> {
  // A config entry's "stateful": true means the daemon as --stateful does, for the questions it may park too.
  const options = target.stateful ? { ...given, stateful: true } : given;
  // At debug level the server's stderr reaches ours, line by line and cleaned; below it nothing would be logged, so the
  // logger (consola, and node:fs for --log-file) loads only then.
  const log = chatty(options)
    ? (await import("../lib/io/log.ts")).createLogger({ level: options.logLevel, file: options.logFile, tag: "mcp-inspect" })
    : undefined;
  const onstderr = log ? (line: string) => ownStderr().write(`${line}\n`) : undefined;
  // The server mcp-inspect spawned before it loaded all this (so the two start-ups overlap), when it is this very target.
  const early = adoptEarlyServer(target, Boolean(options.stateful), onstderr, (channel) => new Session(options, channel, log));
  if (early) return early;
  return new Session(
    options,
    await openChannel(target, { stateful: options.stateful, onstderr, auth: options.auth, listen: options.listen }),
    log,
  );
}

/** What mcp-daemon sent of the session when we attached (DaemonChannel's session extension), if anything. */
function daemonCache(channel: MessageChannel): SessionInfo | undefined {
  return (channel as { cached?: SessionInfo }).cached;
}

/** A server connection, not yet connected: `connect` negotiates under the given watchdog. */
export class Session {
  readonly client: RawClient;
  readonly #channel: MessageChannel;
  readonly #timeoutMs: number;
  readonly #active = new Set<Watchdog>();
  readonly #questions: QuestionPolicy;
  readonly #stateful: boolean;
  /** Connected on mcp-daemon's cached handshake: its cached tool list holds for us too. */
  #onDaemonCache = false;

  constructor(options: SessionOptions, channel: MessageChannel, log?: SessionLog) {
    this.#timeoutMs = options.timeoutMs;
    this.#channel = channel;
    this.#channel.onerror = (error) => {
      // A message too big to take would otherwise look like a silent server until the timeout.
      if (error instanceof DroppedLineError && error.kind === "oversize") this.abortAll(new CommandError(EXIT.protocol, error.message));
      else log?.debug(stripControl(error.message));
    };
    const questions = options.questions ?? { terminal: false, server: "the server" };
    this.#questions = questions;
    this.#stateful = Boolean(options.stateful);
    // 2026-07-28 questions can always be answered, on a later call if need be; a 2025 one only
    // here and now (a terminal), or later through the daemon, which keeps the call waiting.
    const canAnswerLegacy = questions.terminal || Boolean(options.stateful) || questions.answers !== undefined;
    this.client = new RawClient(this.#channel, {
      clientInfo: { name: "mcp-inspect", version: options.version },
      capabilities: { ...ANSWERABLE_CAPABILITIES, ...TASK_CLIENT_CAPABILITIES },
      legacyCapabilities: canAnswerLegacy ? ANSWERABLE_CAPABILITIES : {},
      onrequest: (request) => this.#answerServer(request),
      protocolVersion: options.protocolVersion,
      timeoutMs: options.timeoutMs,
      ...(chatty(options) ? { logLevel: "debug" } : {}),
      onnotification: (notification) => {
        if (notification.method === PARKED_NOTIFICATION) return this.#parked(notification.params ?? {});
        // Progress restarts every watchdog: the server is demonstrably working.
        if (notification.method === "notifications/progress") for (const watchdog of this.#active) watchdog.reset();
        log?.info(`${notification.method} ${stripControl(JSON.stringify(notification.params ?? {}))}`);
      },
    });
  }

  /** The daemon parked a 2025 server's question: this command ends with it, for a later call to answer. */
  #parked(params: JsonObject): void {
    const key = String(params.key);
    const question = { method: "elicitation/create", params: (params.params ?? {}) as JsonObject };
    const minutes = Math.round(PARKED_TTL_MS / 60_000);
    this.abortAll(
      inputRequired(
        { [key]: question },
        undefined,
        false,
        `The call waits in mcp-daemon for ${minutes} minutes: fill in details.answers and run the same command with --stateful ` +
          `--input-responses @answers.json; that call gets this call's result`,
      ),
    );
  }

  /** A request from a 2025 server mid-call: ping, or a question (the command ends with exit 8 if nobody can answer it). */
  async #answerServer(request: JsonRpcRequest): Promise<JsonObject> {
    if (request.method === "ping") return {};
    if (request.method === "elicitation/create") {
      if (this.#stateful && !this.#questions.terminal) {
        // The daemon keeps the question and the call waiting; its notification names the key to answer.
        throw new McpError("protocol", PARK_ERROR_MESSAGE, { code: ErrorCode.ParkQuestion, message: PARK_ERROR_MESSAGE });
      }
      const signal = [...this.#active][0]?.signal ?? new AbortController().signal;
      try {
        return await answerLegacyQuestion((request.params ?? {}) as JsonObject, this.#questions, signal);
      } catch (error) {
        this.abortAll(error as Error);
        return { action: "cancel" };
      }
    }
    const message = `mcp-inspect does not support ${request.method}`;
    throw new McpError("protocol", message, { code: ErrorCode.MethodNotFound, message });
  }

  /** Starts the server and negotiates; through mcp-daemon, takes the session's handshake as the daemon knows it. */
  connect(watchdog?: Watchdog): Promise<ServerIdentity> {
    return this.run(async () => {
      const identity = await this.client.connect({ known: () => daemonCache(this.#channel)?.identity });
      this.#onDaemonCache = identity === daemonCache(this.#channel)?.identity;
      return identity;
    }, watchdog);
  }

  get protocolVersion(): string | undefined {
    try {
      return this.client.identity.protocolVersion;
    } catch {
      return undefined;
    }
  }

  get stderrTail(): string | undefined {
    // A stdio server's (its transport is not loaded here: a warm --stateful call never needs it).
    return "stderrTail" in this.#channel ? (this.#channel as { stderrTail: string }).stderrTail : undefined;
  }

  get closed(): boolean {
    return this.client.closedReason !== undefined;
  }

  /** Runs work under a watchdog (the caller's, or a fresh one): a timeout or an interrupt ends it. */
  async run<T>(work: (call: Call) => Promise<T>, shared?: Watchdog): Promise<T> {
    const watchdog = shared ?? new Watchdog(this.#timeoutMs);
    this.#active.add(watchdog);
    try {
      // Work its watchdog ended reports what the watchdog says, once any last words are said.
      const cachedTools = () => (this.#onDaemonCache ? daemonCache(this.#channel)?.tools : undefined);
      const done = work(new Call(this.client, watchdog, this.#questions, cachedTools)).catch(async (error: unknown) => {
        if (watchdog.signal.aborted) await watchdog.fired;
        throw error;
      });
      return await Promise.race([done, watchdog.fired]);
    } finally {
      this.#active.delete(watchdog);
      if (!shared) watchdog.stop();
    }
  }

  /** Ends every unit of work under way with this error (Ctrl-C, an unusable message). */
  abortAll(error: Error): void {
    for (const watchdog of this.#active) watchdog.abort(error);
  }

  async close(options?: CloseOptions): Promise<void> {
    await settlesWithin(this.client.close(options), CLOSE_WAIT_MS);
  }
}

/** The requests of one unit of work, all bound to its watchdog. */
export class Call {
  constructor(
    readonly client: RawClient,
    readonly watchdog: Watchdog,
    readonly questions: QuestionPolicy = { terminal: false, server: "the server" },
    /** The session's tool list as mcp-daemon sent it at the attach, while nothing else has come since. */
    readonly cachedTools: () => JsonObject[] | undefined = () => undefined,
  ) {}

  /** One request; on 2026-07-28 its `input_required` rounds are answered (or end the command with the questions). */
  async request(method: string, params: JsonObject): Promise<JsonObject> {
    const send = (attempt: JsonObject) =>
      this.client.request(method, attempt, { signal: this.watchdog.signal, onprogress: () => this.watchdog.reset() });
    // 2025, through the daemon: answers to a parked question travel in the call that brings them.
    if (this.client.identity.era !== "modern") return send(answersForParked(method, params, this.questions));
    return withAnswers(method, params, send, this.questions, this.watchdog.signal);
  }

  /** A liveness round trip in the negotiated era, timed. */
  async ping(): Promise<{ roundTripMs: number }> {
    const started = performance.now();
    await this.client.ping({ signal: this.watchdog.signal });
    return { roundTripMs: Math.round((performance.now() - started) * 100) / 100 };
  }

  /** Follows nextCursor through every page, returning all items under `key`. */
  async listAll(method: string, key: string): Promise<JsonObject> {
    const cached = method === "tools/list" ? this.cachedTools() : undefined;
    if (cached) return { [key]: cached };
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await this.request(method, cursor ? { cursor } : {});
      const pageItems = result[key];
      if (
        pageItems !== undefined &&
        (!Array.isArray(pageItems) || pageItems.some((item) => typeof item !== "object" || item === null || Array.isArray(item)))
      ) {
        throw new McpError("protocol", `the server's ${method} result is malformed: "${key}" must be a list of objects`);
      }
      items.push(...((pageItems as unknown[] | undefined) ?? []));
      cursor = typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined;
      if (!cursor) return { [key]: items };
    }
    throw new McpError("protocol", `${method} kept returning a next page after ${MAX_LIST_PAGES} pages`);
  }

  identity(): ServerIdentity {
    return this.client.identity;
  }
}

/** --timeout: fires once, unless progress from the server restarts it first. */
export class Watchdog {
  readonly #controller = new AbortController();
  readonly fired: Promise<never>;
  #timer?: ReturnType<typeof setTimeout>;
  readonly #holds = new Set<(reason: Error) => Promise<Error>>();

  constructor(readonly ms: number) {
    this.fired = new Promise<never>((_, reject) => {
      this.#controller.signal.addEventListener(
        "abort",
        () => {
          const reason = this.#controller.signal.reason as Error;
          if (this.#holds.size === 0) reject(reason);
          else void this.#lastWords(reason).then(reject);
        },
        { once: true },
      );
    });
    this.fired.catch(() => {});
    this.reset();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Stops the clock while the person is busy (signing in); reset() starts it again. */
  pause(): void {
    clearTimeout(this.#timer);
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

  /**
   * Holds the firing back until `lastWords` has run, which may still talk to the server and restate
   * the reason (a task: tasks/cancel on Ctrl-C, its id at --timeout). Returns the release.
   */
  hold(lastWords: (reason: Error) => Promise<Error>): () => void {
    this.#holds.add(lastWords);
    return () => void this.#holds.delete(lastWords);
  }

  async #lastWords(reason: Error): Promise<Error> {
    let said = reason;
    for (const lastWords of [...this.#holds]) said = await lastWords(said).catch(() => said);
    return said;
  }
}
