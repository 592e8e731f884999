// mcp-proxy between one client and one (re)startable server: McpProxy puts together the
// forwarder (forwarder.ts: every message, routed by id both ways), the table of requests in flight
// (in-flight.ts: each answered exactly once), the server process of now (child.ts) and its restarts
// (restart.ts). A restart never loses a request: each one in flight is re-sent (if repeating it is
// harmless), or answered with an error; at the end of input every answer still owed is awaited.
//
// The proxy's states (restart.ts moves between them; restart_server is answered in all but closed):
//
// state       what it means                  what moves it, to which state            a client message meanwhile
// ----------  -----------------------------  ---------------------------------------  ---------------------------------------
// starting    the first process starts and   its handshake replayed: running; it      waits in a queue (the client's input
//             is told the client's session   fails: broken, then retried as a crash   pauses past 8 MB), handled in order
//                                            (restarting) if the breaker allows;      once the state changes
//                                            close(): closed
// running     a process is up                restart() (restart_server, a watched     sent on; a request is tracked in
//                                            change, an expired HTTP session) or a    flight until its one answer
//                                            crash with restarts left: restarting;
//                                            a crash with auto-restart off or the
//                                            breaker open: broken; close(): closed
// restarting  kept requests wait, the rest   the new process replayed: running (kept  waits in the queue, as in starting
//             got -32010; the old process    requests sent again, the queue flushed,
//             stops, a backoff after a       list_changed announced); it fails:
//             crash, a new one starts        broken, then retried as in starting;
//                                            close(): closed
// broken      the server is down and stays   restart() (restart_server, a watched     a request is answered -32011 saying
//             down; whatever waited was      change) or a crash retry: restarting;    why; notifications and answers to
//             answered -32011                close(): closed                          the server's questions are dropped
// closed      the client is gone             nothing                                  ignored; nothing more is written
import type { ConsolaInstance } from "consola/core";
import { settlesWithin } from "../lib/io/reading.ts";
import type { CloseOptions, MessageChannel } from "../lib/transport/channel.ts";
import type { LineStream, MessageHead } from "../lib/wire/cut-through.ts";
import { oversizeRefusal } from "../lib/wire/json-scan.ts";
import { ErrorCode, errorResponse, isRequest, type RawMessage } from "../lib/wire/jsonrpc.ts";
import { ServerChild } from "./child.ts";
import { type ClientInput, type ClientOutput, Forwarder, type ForwardOptions } from "./forwarder.ts";
import { InFlightTable, OPEN_ENDED } from "./in-flight.ts";
import { SessionReplay } from "./replay.ts";
import { type Replayed, Restarter } from "./restart.ts";
import { listAllTools, type RestartReport } from "./restart-tool.ts";

export type { ClientInput, ClientOutput };

export interface ProxyOptions extends ForwardOptions {
  /** A fresh, unstarted link to a new server process (or HTTP session) each time. */
  connect: () => Promise<MessageChannel>;
  restartTimeoutMs: number;
  autoRestart: boolean;
  maxRestarts: number;
  restartDelayMs: number;
}

export class McpProxy {
  readonly #options: ProxyOptions;
  readonly #log: ConsolaInstance;
  readonly #replay = new SessionReplay();
  readonly #child: ServerChild;
  readonly #inFlight: InFlightTable;
  readonly #restarter: Restarter;
  readonly #forwarder: Forwarder;

  constructor(options: ProxyOptions) {
    this.#options = options;
    this.#log = options.log;
    this.#child = new ServerChild(options.connect);
    this.#child.onclose = (why) => {
      if (this.state === "closed") return;
      // Our own requests (a handshake under way) learn at once, not at their timeout.
      this.#child.abandonRequests(why);
      this.#log.error(why);
      this.#restarter.crashed(why);
    };
    // Messages queued for a restart are owed answers too.
    this.#inFlight = new InFlightTable(() => this.#restarter.queued > 0);
    this.#inFlight.onforget = (entry) => {
      if (entry.method === OPEN_ENDED) this.#replay.listenEnded(entry.id);
    };
    this.#restarter = new Restarter(options, {
      inFlight: this.#inFlight,
      neverStarted: () => this.#child.neverStarted,
      listTools: (timeoutMs) => listAllTools((params) => this.#child.request("tools/list", this.#replay.params(params), timeoutMs)),
      answer: (entry, message) => this.#forwarder.answer(entry, message),
      abandon: (reason) => {
        this.#forwarder.voidQuestions(reason);
        this.#child.abandonRequests("the server restarted");
      },
      stopChild: () => this.#child.stop(),
      startChild: async () => {
        await this.#child.start(() => this.state === "closed");
        return this.#replaySession();
      },
      resend: (entry) => this.#forwarder.toChild(entry.message, entry.raw),
      dispatch: (message, raw) => this.#forwarder.dispatch(message, raw),
      era: () => this.#replay.era(),
      send: (message) => this.#forwarder.send(message),
    });
    this.#forwarder = new Forwarder(options, {
      child: this.#child,
      inFlight: this.#inFlight,
      replay: this.#replay,
      restarter: this.#restarter,
    });
  }

  get state(): string {
    return this.#restarter.state;
  }

  /** Starts the first server process; messages that arrive meanwhile wait in the queue. */
  async start(): Promise<void> {
    await this.restart("start");
  }

  /** Restarts the server (Restarter.restart: overlapping triggers share one; `again` queues one more). */
  restart(reason: string, options: { again?: boolean; delayMs?: number; resetsBreaker?: boolean } = {}): Promise<RestartReport> {
    return this.#restarter.restart(reason, options);
  }

  /** One line from the client: its text, or its bytes as they arrived (not necessarily UTF-8). */
  fromClient(raw: RawMessage): void {
    this.#forwarder.fromClient(raw);
  }

  /**
   * Cut-through: a client line past HOLD_BYTES (lib/wire/cut-through.ts), with what its first bytes
   * say. A stream takes the rest on to the server as it comes; undefined has it held whole (then in fromClient).
   */
  longFromClient(head: MessageHead): LineStream | undefined {
    return this.#forwarder.longFromClient(head);
  }

  /** Tells the new process what the old one had been told (replay.ts). */
  async #replaySession(): Promise<Replayed> {
    const replayed = await this.#replay.replay(
      (method, params) => this.#child.request(method, params, this.#options.restartTimeoutMs),
      (method) => void this.#child.channel?.send({ jsonrpc: "2.0", method }).catch(() => {}),
    );
    this.#forwarder.capabilities = replayed.capabilities;
    return replayed;
  }

  /** A client line too large to take: answered with an error when its id can be read. */
  refuseOversize(head: string, tail: string, bytes: number, limit: number): void {
    const refusal = oversizeRefusal({ bytes, head, tail }, limit, "mcp-proxy");
    if (refusal) void this.#forwarder.send(refusal);
  }

  /**
   * The client's input ended: nothing new will come. Waits (at most `timeoutMs`) until every
   * request still owed an answer has one, answering the rest with an error when time runs out.
   * Open-ended requests (subscriptions/listen) are not waited for; they are answered at the end.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.#forwarder.endInput();
    const expired = !(await settlesWithin(this.#inFlight.idle(), timeoutMs));
    const why = expired
      ? `the server did not answer within ${timeoutMs} ms of the end of the client's input`
      : "the client closed its input";
    for (const entry of this.#inFlight.entries())
      void this.#forwarder.answer(entry, errorResponse(entry.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${why}`));
    for (const message of this.#restarter.takeQueued()) {
      if (isRequest(message)) void this.#forwarder.send(errorResponse(message.id, ErrorCode.ServerUnavailable, `mcp-proxy: ${why}`));
    }
  }

  /** Our client is gone: stop the server and answer nothing more. */
  async close(options?: CloseOptions): Promise<void> {
    if (this.state === "closed") return;
    this.#restarter.close();
    this.#child.closeRequests("the proxy is closing");
    await this.#child.stop(options);
  }

  /**
   * Tells the client something went wrong outside any request (a failed build), as a logging
   * notification, where the protocol allows one: a 2025-era client of a server with logging.
   */
  async notifyClient(level: "info" | "warning" | "error", text: string): Promise<boolean> {
    if (this.#replay.era() !== "legacy" || !this.#forwarder.capabilities.logging) return false;
    await this.#forwarder.send({ jsonrpc: "2.0", method: "notifications/message", params: { level, logger: "mcp-proxy", data: text } });
    return true;
  }
}
