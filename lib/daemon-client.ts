// The client side of mcp-daemon: one of its sessions as a raw message channel, the same code
// path as a direct connection (mcp-inspect reads it raw, mcp-host through ChannelTransport).
// Finding or starting the daemon is lib/daemon-start.ts.
import { connect, type Socket } from "node:net";
import type { MessageChannel } from "./channel.ts";
import { DAEMON_PROTOCOL, MAX_CONTROL_FRAME_BYTES, type DaemonPaths } from "./daemon-protocol.ts";
import { ensureDaemon, resolvePaths, type DaemonOptions } from "./daemon-start.ts";
import { readChunks, type Flow } from "./flow.ts";
import { parseMessage, serializeMessage, type JsonObject, type JsonRpcMessage, type RawMessage } from "./jsonrpc.ts";
import { LineWriter } from "./line-writer.ts";
import { LineSplitter, MAX_LINE_BYTES } from "./lines.ts";
import type { Target } from "./target.ts";

export type { DaemonOptions };

/** Nothing listens on the socket (yet): the caller may start the daemon and try again. */
class DaemonUnreachable extends Error {}

/** One session of the daemon as a message channel: the same code path as a direct connection. */
export class DaemonChannel implements MessageChannel {
  onmessage?: (message: JsonRpcMessage, raw?: RawMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: string) => void;
  ondrain?: () => void;
  /** The session key and the server's pid, once attached. */
  session?: string;
  serverPid?: number | null;

  #socket?: Socket;
  #writer?: LineWriter;
  #flow?: Flow;
  #closed = false;
  #started?: Promise<void>;

  constructor(
    readonly target: Target,
    readonly options: DaemonOptions = {},
  ) {}

  get hasRoom(): boolean {
    return this.#writer?.hasRoom ?? true;
  }

  pause(): void {
    this.#flow?.pause("consumer");
  }

  resume(): void {
    this.#flow?.resume("consumer");
  }

  /** Idempotent: a second call waits for the same attach. */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    // The common case is a daemon already up: attach at once, and start one only if that fails.
    const paths = resolvePaths(this.options);
    try {
      await this.#attach(paths);
    } catch (error) {
      if (!(error instanceof DaemonUnreachable)) throw error;
      await ensureDaemon({ ...this.options, paths });
      await this.#attach(paths);
    }
  }

  async #attach(paths: DaemonPaths): Promise<void> {
    const socket = connect(paths.socket);
    this.#socket = socket;
    const attached = Promise.withResolvers<void>();
    let isAttached = false;
    let frameBytes = 0;
    const splitter = new LineSplitter(
      (line) => {
        if (!isAttached) return this.#onAttachReply(line, attached, () => (isAttached = true));
        const parsed = parseMessage(line);
        if (parsed.ok) this.onmessage?.(parsed.value, line);
        else this.onerror?.(new Error(`skipped a line from mcp-daemon that is not JSON-RPC (${parsed.error})`));
      },
      { maxLineBytes: MAX_LINE_BYTES, onerror: (error) => this.onerror?.(new Error(`dropped a ${error.bytes}-byte line from mcp-daemon (${error.kind})`)) },
    );
    this.#flow = readChunks(socket, {
      onchunk: (chunk) => {
        // Until attached, only one small control frame may come.
        if (!isAttached && (frameBytes += chunk.length) > MAX_CONTROL_FRAME_BYTES && !chunk.includes(0x0a)) {
          attached.reject(new Error(`mcp-daemon sent a control frame over ${MAX_CONTROL_FRAME_BYTES} bytes`));
          socket.destroy();
          return;
        }
        splitter.push(chunk);
      },
      onend: (error) => {
        // A failed connect or a broken socket is reported by the error handler below.
        if (!error) attached.reject(new Error("mcp-daemon closed the connection"));
        if (isAttached) this.#finish("mcp-daemon closed the connection");
      },
    });
    let connected = false;
    socket.on("connect", () => (connected = true));
    socket.on("error", (error) => {
      attached.reject(connected ? new Error(`lost mcp-daemon at ${paths.socket}: ${error.message}`) : new DaemonUnreachable(error.message));
      if (isAttached) this.onerror?.(error);
    });
    // The server must start as a direct spawn would: in our directory, finding its command on our
    // PATH, not on whatever the daemon's first caller had.
    const server =
      this.target.kind === "stdio"
        ? { ...this.target, cwd: this.target.cwd ?? process.cwd(), env: { ...(process.env.PATH ? { PATH: process.env.PATH } : {}), ...this.target.env } }
        : this.target;
    socket.on("connect", () => socket.write(`${JSON.stringify({ type: "attach", protocol: DAEMON_PROTOCOL, server })}\n`));
    this.#writer = new LineWriter(socket);
    this.#writer.onroom = () => this.ondrain?.();
    await attached.promise;
  }

  #onAttachReply(line: string, attached: PromiseWithResolvers<void>, markAttached: () => void): void {
    let frame: JsonObject;
    try {
      frame = JSON.parse(line);
    } catch {
      attached.reject(new Error("mcp-daemon answered with something that is not JSON"));
      return;
    }
    if (frame.type !== "attached") {
      attached.reject(new Error(`mcp-daemon: ${String(frame.message ?? "refused the session")}`));
      return;
    }
    markAttached();
    this.session = String(frame.session);
    this.serverPid = typeof frame.pid === "number" ? frame.pid : null;
    attached.resolve();
  }

  send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    if (!this.#writer || this.#closed) return Promise.reject(new Error("not attached to mcp-daemon"));
    return this.#writer.write(raw ?? serializeMessage(message));
  }

  /** Detaches; the session (and its server) stays alive in the daemon. */
  async close(): Promise<void> {
    const socket = this.#socket;
    // Flush what we wrote, then close both directions: a half-open socket would keep us running.
    if (socket && !socket.destroyed) await new Promise<void>((resolve) => socket.end(() => (socket.destroy(), resolve())));
    this.#finish("detached from mcp-daemon");
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.(reason);
  }
}
