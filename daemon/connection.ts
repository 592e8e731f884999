// One connection to the daemon's socket: its first line is a control frame (hello, status, stop,
// attach); after an attach, every line is a JSON-RPC message of that session, both ways. The
// connection is also where a slow reader is noticed: it holds its session's server back a while,
// then is let go, so that it never holds back the session's other clients for long.
import type { Socket } from "node:net";
import type { ConsolaInstance } from "consola/core";
import {
  DAEMON_PROTOCOL,
  MAX_CONTROL_FRAME_BYTES,
  parseControlFrame,
  SESSION_EXTENSION,
  SESSION_NOTIFICATION,
  type SurveyAnswer,
  sessionExtension,
} from "../lib/daemon/protocol.ts";
import { type Flow, readChunks } from "../lib/io/reading.ts";
import type { Target } from "../lib/targets/target.ts";
import { oversizeRefusal } from "../lib/wire/json-scan.ts";
import { ErrorCode, errorResponse, type JsonObject, type JsonRpcMessage, parseMessage } from "../lib/wire/jsonrpc.ts";
import { CHANNEL_BUFFER_BYTES } from "../lib/wire/limits.ts";
import { LineWriter } from "../lib/wire/line-writer.ts";
import { type LineError, LineSplitter, MAX_LINE_BYTES } from "../lib/wire/lines.ts";
import type { DaemonSession, SessionClient } from "./session.ts";

/** A client this far behind holds its session's server back until it catches up... */
export const SLOW_CLIENT_BYTES = 1024 * 1024;
/** ...for at most this long; then it is disconnected and the others go on. */
export const SLOW_CLIENT_GRACE_MS = 5_000;

/** What a connection asks of the daemon it came to. */
export interface ConnectionHost {
  readonly log: ConsolaInstance;
  readonly version: string;
  /** The session of one server definition, made if there is none. */
  session(target: Target): DaemonSession;
  /** The session of one server definition when it is up, never made or started. */
  runningSession(target: Target): DaemonSession | undefined;
  status(): JsonObject;
  stop(reason: string): Promise<void>;
  /** The name the connection's client goes by in the session. */
  clientName(): string;
}

export class DaemonConnection {
  #session?: DaemonSession;
  #client?: SessionClient;
  readonly #writer: LineWriter;
  #stalled?: ReturnType<typeof setTimeout>;
  /** Lines that arrive while an attach is still starting the server wait for it, in order. */
  #waiting?: string[];
  #controlBytes = 0;
  /** The one frame over CHANNEL_BUFFER_BYTES still going out (its length), not held against the client until the socket drains. */
  #oversize = 0;
  readonly #splitter: LineSplitter;
  readonly #flow: Flow;

  constructor(
    private readonly socket: Socket,
    private readonly daemon: ConnectionHost,
  ) {
    this.#writer = new LineWriter(socket);
    this.#writer.onroom = () => {
      this.#oversize = 0;
      clearTimeout(this.#stalled);
      this.#stalled = undefined;
      if (this.#session && this.#client) this.#session.release(this.#client);
    };
    this.#splitter = new LineSplitter((line) => this.#line(line), {
      maxLineBytes: MAX_LINE_BYTES,
      onerror: (error) => this.#badLine(error),
    });
    this.#flow = readChunks(socket, { onchunk: (chunk) => this.#chunk(chunk), onend: () => {} });
    socket.on("error", () => {});
    socket.on("end", () => this.#end());
    socket.on("close", () => {
      clearTimeout(this.#stalled);
      if (this.#session && this.#client) this.#session.detach(this.#client);
    });
  }

  #chunk(chunk: Uint8Array): void {
    // Before attaching, only small control frames are expected: a huge one is refused early.
    if (!this.#session) {
      this.#controlBytes += chunk.length;
      if (this.#controlBytes > MAX_CONTROL_FRAME_BYTES) {
        this.#write({ type: "error", message: `control frame over ${MAX_CONTROL_FRAME_BYTES} bytes` });
        this.socket.destroy();
        return;
      }
    }
    this.#splitter.push(chunk);
  }

  #line(line: string): void {
    if (line.trim() === "") return;
    if (this.#waiting) return void this.#waiting.push(line);
    if (this.#session && this.#client) return this.#sessionLine(this.#session, this.#client, line);
    this.#waiting = [];
    void this.#control(line)
      .catch((error: Error) => {
        // One bad frame must never take the daemon (and every session) down.
        this.daemon.log.warn(`refused a control frame: ${error.message}`);
        this.#write({ type: "error", message: `mcp-daemon could not handle that frame: ${error.message}` });
        this.#end();
      })
      .then(() => {
        const queued = this.#waiting ?? [];
        this.#waiting = undefined;
        for (const line of queued) {
          if (this.#session && this.#client) this.#sessionLine(this.#session, this.#client, line);
        }
      });
  }

  #badLine(error: LineError): void {
    this.daemon.log.warn(`dropped a ${error.bytes}-byte line from a client (${error.kind})`);
    const refusal = error.kind === "oversize" ? oversizeRefusal(error, MAX_LINE_BYTES, "mcp-daemon") : undefined;
    if (this.#session && this.#client && refusal) this.#client.send(refusal);
    if (!this.#session) {
      this.#write({ type: "error", message: `that frame was dropped (${error.kind})` });
      this.#end();
    }
  }

  /** One control frame; an attach joins its session before this settles (the lines that came meanwhile go to it next). */
  async #control(line: string): Promise<void> {
    const parsed = parseControlFrame(line);
    if (!parsed.ok) {
      this.#write({ type: "error", message: parsed.error });
      this.#end();
      return;
    }
    const frame = parsed.value;
    switch (frame.type) {
      case "hello":
        this.#write({ type: "hello", protocol: DAEMON_PROTOCOL, pid: process.pid, version: this.daemon.version });
        return;
      case "status":
        this.#write(this.daemon.status());
        this.#end();
        return;
      case "stop":
        this.#write({ type: "stopping", pid: process.pid });
        this.#end();
        void this.daemon.stop("asked to stop");
        return;
      case "survey":
        await this.#survey(frame.servers);
        this.#end();
        return;
      case "attach": {
        const session = this.daemon.session(frame.server);
        try {
          await session.ensureUpstream();
        } catch (error) {
          this.#write({ type: "error", message: `could not start the server: ${(error as Error).message}` });
          this.#end();
          return;
        }
        const granted = sessionExtension(frame.extensions);
        this.#write({
          type: "attached",
          session: session.key,
          pid: session.pid ?? null,
          ...(granted ? { extensions: { [SESSION_EXTENSION]: granted } } : {}),
        });
        // In the same turn, so that the answer and the session line go out in one write: as two, a
        // warm call waited for the second (~0.5 ms).
        this.#attach(session, granted > 0);
        return;
      }
    }
  }

  /**
   * What each running session knows, one answer per server, written as the client takes them: past
   * SLOW_CLIENT_BYTES waiting, the next answer waits until they are out, and a client that takes
   * nothing for SLOW_CLIENT_GRACE_MS is let go. A session answered counts as used (it is not idle).
   */
  async #survey(servers: Target[]): Promise<void> {
    for (const [index, server] of servers.entries()) {
      if (this.#writer.bufferedBytes > SLOW_CLIENT_BYTES) await this.#surveyTaken();
      if (this.socket.destroyed) return;
      const session = this.daemon.runningSession(server);
      session?.touch();
      this.#write({ type: "surveyed", index, ...(session ? { session: session.sessionInfo() } : {}) } satisfies SurveyAnswer);
    }
    // The last answers too: the connection ends only once they are out, or the client is let go.
    if (this.#writer.bufferedBytes > 0) await this.#surveyTaken();
  }

  /** Settles once the survey's answers are out, or SLOW_CLIENT_GRACE_MS after, when the client that took nothing is let go. */
  async #surveyTaken(): Promise<void> {
    const stalled = setTimeout(
      () => this.#letGo(`took nothing of a survey's answers for ${SLOW_CLIENT_GRACE_MS} ms`),
      SLOW_CLIENT_GRACE_MS,
    );
    await this.#writer.flushed();
    clearTimeout(stalled);
  }

  #attach(session: DaemonSession, sessionInfo: boolean): void {
    const client: SessionClient = { name: this.daemon.clientName(), send: (message: JsonRpcMessage) => this.#write(message) };
    this.#session = session;
    this.#client = client;
    session.attach(client);
    // Read as the client joins: a list_changed that drops the cached tools reaches it after this.
    if (sessionInfo) client.send({ jsonrpc: "2.0", method: SESSION_NOTIFICATION, params: { ...session.sessionInfo() } });
    if (this.socket.destroyed) session.detach(client);
  }

  #sessionLine(session: DaemonSession, client: SessionClient, line: string): void {
    const parsed = parseMessage(line);
    if (!parsed.ok) {
      client.send(errorResponse(null, ErrorCode.ParseError, `mcp-daemon: ${parsed.error}`));
      return;
    }
    void session.fromClient(client, parsed.value);
    // The server reads slowly: this client waits in its socket until the server has room.
    if (!session.upstreamHasRoom) {
      this.#flow.pause("upstream");
      session.whenUpstreamHasRoom(() => this.#flow.resume("upstream"));
    }
  }

  /**
   * A client that reads slowly holds its session's server back (the server waits, nothing piles
   * up here); one that reads nothing for SLOW_CLIENT_GRACE_MS, or lets CHANNEL_BUFFER_BYTES pile
   * up, is let go: its calls are cancelled upstream, and the other clients go on. One frame goes
   * whole even when it is bigger than that (a result may be up to MAX_MESSAGE_BYTES), and is not
   * counted against the client while it goes out: it is CHANNEL_BUFFER_BYTES of other frames
   * waiting that lets the client go, so a connection holds at most that and one frame.
   */
  #write(frame: unknown): void {
    if (this.socket.destroyed) return;
    const waiting = this.#writer.bufferedBytes - this.#oversize;
    if (waiting >= CHANNEL_BUFFER_BYTES) return this.#letGo(`read nothing while ${waiting} bytes waited for it`);
    const line = JSON.stringify(frame);
    void this.#writer.write(line);
    // Queued, it waits for the socket to drain (onroom); one the socket took whole is gone already.
    if (this.#oversize === 0 && line.length >= CHANNEL_BUFFER_BYTES && this.#writer.bufferedBytes > 0) this.#oversize = line.length + 1;
    if (this.#writer.bufferedBytes > SLOW_CLIENT_BYTES && this.#session && this.#client && !this.#stalled) {
      this.#session.hold(this.#client);
      this.#stalled = setTimeout(() => this.#letGo(`read nothing for ${SLOW_CLIENT_GRACE_MS} ms`), SLOW_CLIENT_GRACE_MS);
    }
  }

  #letGo(why: string): void {
    this.daemon.log.warn(`${this.#session ? `a client of ${this.#session.key}` : "a client"} ${why}; disconnected`);
    this.socket.destroy();
  }

  /** Frames are written in batches: what was written goes out before the connection ends. */
  #end(): void {
    void this.#writer.flushed();
    this.socket.end();
  }
}
