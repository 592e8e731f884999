// The daemon process: a Unix socket in a private directory, one DaemonSession per server
// definition, idle eviction, and records of every server process it started so that a daemon
// killed with SIGKILL is cleaned up after by the next one.

import { chmodSync, existsSync, lstatSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { ConsolaInstance } from "consola/core";
import type { DaemonPaths } from "../lib/daemon/paths.ts";
import {
  DAEMON_PROTOCOL,
  MAX_CONTROL_FRAME_BYTES,
  parseControlFrame,
  SESSION_EXTENSION,
  SESSION_NOTIFICATION,
  sessionExtension,
  sessionKey,
} from "../lib/daemon/protocol.ts";
import { probeDaemon } from "../lib/daemon/start.ts";
import { processAlive, processStartTime } from "../lib/io/process.ts";
import { type Flow, readChunks, settlesWithin } from "../lib/io/reading.ts";
import type { Target } from "../lib/targets/target.ts";
import type { CloseOptions } from "../lib/transport/channel.ts";
import { idFromEdges } from "../lib/wire/json-scan.ts";
import { ErrorCode, errorResponse, type JsonObject, type JsonRpcMessage, parseMessage } from "../lib/wire/jsonrpc.ts";
import { LineWriter } from "../lib/wire/line-writer.ts";
import { LineSplitter, MAX_LINE_BYTES } from "../lib/wire/lines.ts";
import { DaemonSession, type SessionClient } from "./session.ts";

export interface DaemonOptions {
  paths: DaemonPaths;
  log: ConsolaInstance;
  version: string;
  /** A session nobody used for this long is closed. */
  idleTimeoutMs: number;
  /** With no sessions for this long, the daemon exits. */
  exitWhenIdleMs: number;
}

/** How often idle sessions are looked for. */
const IDLE_CHECK_MAX_MS = 30_000;
/** How long stopping waits for servers to exit before the daemon exits anyway. */
const STOP_GRACE_MS = 5_000;
/** A client this far behind holds its session's server back until it catches up... */
export const SLOW_CLIENT_BYTES = 1024 * 1024;
/** ...for at most this long; then it is disconnected and the others go on. */
export const SLOW_CLIENT_GRACE_MS = 5_000;

interface ChildRecord {
  pid: number;
  session: string;
  command: string;
  /** When the process started (clock ticks since boot, from /proc): a reused pid has another. */
  startTime?: string;
}

export class Daemon {
  readonly #options: DaemonOptions;
  readonly #log: ConsolaInstance;
  readonly #sessions = new Map<string, DaemonSession>();
  readonly #connections = new Set<Socket>();
  #server?: Server;
  #idleSince = Date.now();
  #timer?: ReturnType<typeof setInterval>;
  #stopping?: Promise<void>;
  /** The socket file we created: a successor's socket at the same path is never ours to remove. */
  #socketInode?: number;
  readonly startedAt = Date.now();
  readonly stopped = Promise.withResolvers<void>();

  constructor(options: DaemonOptions) {
    this.#options = options;
    this.#log = options.log;
  }

  /** Binds the socket. Refuses when another daemon answers there or the path is not ours to replace. */
  async listen(): Promise<void> {
    const { socket } = this.#options.paths;
    if (existsSync(socket) || isDanglingLink(socket)) {
      const stats = lstatSync(socket);
      if (!stats.isSocket())
        throw new Error(
          `${socket} exists and is not a socket (a ${stats.isSymbolicLink() ? "symbolic link" : "file"}); remove it yourself if it is safe`,
        );
      const alive = await probeDaemon(socket);
      if (alive) throw new Error(`another mcp-daemon (pid ${alive.pid}) is already serving ${socket}`);
      unlinkSync(socket); // A socket left behind by a daemon that died.
    }
    this.#cleanUpAfterKilledDaemon();
    const server = createServer((connection) => this.#accept(connection));
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, () => resolve());
    });
    try {
      chmodSync(socket, 0o600);
      this.#socketInode = lstatSync(socket).ino;
      writeFileSync(this.#options.paths.pidFile, `${process.pid}\n`, { mode: 0o600 });
    } catch (error) {
      // A full or read-only disk: nothing of ours stays behind to confuse the next start.
      server.close();
      for (const path of [socket, this.#options.paths.pidFile]) {
        try {
          unlinkSync(path);
        } catch {
          // Never made.
        }
      }
      throw new Error(
        `cannot record the daemon in ${this.#options.paths.dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const check = Math.min(
      IDLE_CHECK_MAX_MS,
      Math.max(1_000, Math.floor(Math.min(this.#options.idleTimeoutMs, this.#options.exitWhenIdleMs) / 4)),
    );
    this.#timer = setInterval(() => this.#evictIdle(), check);
    this.#log.info(`mcp-daemon ${this.#options.version} (pid ${process.pid}) listening on ${socket}`);
  }

  #accept(connection: Socket): void {
    this.#connections.add(connection);
    let session: DaemonSession | undefined;
    let client: SessionClient | undefined;
    const writer = new LineWriter(connection);
    // A client that reads slowly holds its session's server back (the server waits, nothing piles
    // up here); one that reads nothing for SLOW_CLIENT_GRACE_MS, or lets CHANNEL_BUFFER_BYTES pile
    // up, is let go: its calls are cancelled upstream, and the other clients go on.
    let stalled: ReturnType<typeof setTimeout> | undefined;
    const letGo = (why: string) => {
      this.#log.warn(`a client of ${session?.key ?? "no session"} ${why}; disconnected`);
      connection.destroy();
    };
    writer.onroom = () => {
      clearTimeout(stalled);
      stalled = undefined;
      if (session && client) session.release(client);
    };
    const write = (frame: unknown) => {
      if (connection.destroyed) return;
      void writer.write(JSON.stringify(frame));
      if (!writer.hasRoom) return letGo(`read nothing while ${writer.bufferedBytes} bytes waited for it`);
      if (writer.bufferedBytes > SLOW_CLIENT_BYTES && session && client && !stalled) {
        session.hold(client);
        stalled = setTimeout(() => letGo(`read nothing for ${SLOW_CLIENT_GRACE_MS} ms`), SLOW_CLIENT_GRACE_MS);
      }
    };
    // Frames are written in batches: what was written goes out before the connection ends.
    const end = () => {
      void writer.flushed();
      connection.end();
    };
    // Lines that arrive while an attach is still starting the server wait for it, in order.
    let waiting: string[] | undefined;
    const splitter = new LineSplitter(
      (line) => {
        if (line.trim() === "") return;
        if (waiting) return void waiting.push(line);
        if (session && client) return this.#sessionLine(session, client, line, flow);
        waiting = [];
        void this.#control(line, write, end)
          .catch((error: Error) => {
            // One bad frame must never take the daemon (and every session) down.
            this.#log.warn(`refused a control frame: ${error.message}`);
            write({ type: "error", message: `mcp-daemon could not handle that frame: ${error.message}` });
            end();
            return undefined;
          })
          .then((attached) => {
            const queued = waiting ?? [];
            waiting = undefined;
            if (attached) {
              session = attached.session;
              client = { name: `client-${this.#connections.size}`, send: (message: JsonRpcMessage) => write(message) };
              session.attach(client);
              // Read as the client joins: a list_changed that drops the cached tools reaches it after this.
              if (attached.sessionInfo) client.send({ jsonrpc: "2.0", method: SESSION_NOTIFICATION, params: { ...session.sessionInfo() } });
              if (connection.destroyed) session.detach(client);
            }
            for (const line of queued) {
              if (session && client) this.#sessionLine(session, client, line, flow);
            }
          });
      },
      {
        maxLineBytes: MAX_LINE_BYTES,
        onerror: (error) => {
          this.#log.warn(`dropped a ${error.bytes}-byte line from a client (${error.kind})`);
          const id = error.kind === "oversize" ? idFromEdges(error.head, error.tail) : undefined;
          if (session && client && id !== undefined) {
            client.send(
              errorResponse(
                id,
                ErrorCode.InvalidRequest,
                `mcp-daemon: a ${error.bytes}-byte message is over the ${MAX_LINE_BYTES}-byte limit`,
              ),
            );
          }
          if (!session) {
            write({ type: "error", message: `that frame was dropped (${error.kind})` });
            end();
          }
        },
      },
    );
    let controlBytes = 0;
    const flow = readChunks(connection, {
      onchunk: (chunk) => {
        // Before attaching, only small control frames are expected: a huge one is refused early.
        if (!session) {
          controlBytes += chunk.length;
          if (controlBytes > MAX_CONTROL_FRAME_BYTES) {
            write({ type: "error", message: `control frame over ${MAX_CONTROL_FRAME_BYTES} bytes` });
            connection.destroy();
            return;
          }
        }
        splitter.push(chunk);
      },
      onend: () => {},
    });
    connection.on("error", () => {});
    connection.on("end", () => end());
    connection.on("close", () => {
      clearTimeout(stalled);
      this.#connections.delete(connection);
      if (session && client) session.detach(client);
    });
  }

  /** One control frame; resolves with the session when the connection attaches, and whether it asked for the session extension. */
  async #control(
    line: string,
    write: (frame: unknown) => void,
    end: () => void,
  ): Promise<{ session: DaemonSession; sessionInfo: boolean } | undefined> {
    const parsed = parseControlFrame(line);
    if (!parsed.ok) {
      write({ type: "error", message: parsed.error });
      end();
      return undefined;
    }
    const frame = parsed.value;
    switch (frame.type) {
      case "hello":
        write({ type: "hello", protocol: DAEMON_PROTOCOL, pid: process.pid, version: this.#options.version });
        return undefined;
      case "status":
        write(this.status());
        end();
        return undefined;
      case "stop":
        write({ type: "stopping", pid: process.pid });
        end();
        void this.stop("asked to stop");
        return undefined;
      case "attach": {
        const session = this.#session(frame.server);
        try {
          await session.ensureUpstream();
        } catch (error) {
          write({ type: "error", message: `could not start the server: ${(error as Error).message}` });
          end();
          return undefined;
        }
        const granted = sessionExtension(frame.extensions);
        write({
          type: "attached",
          session: session.key,
          pid: session.pid ?? null,
          ...(granted ? { extensions: { [SESSION_EXTENSION]: granted } } : {}),
        });
        return { session, sessionInfo: granted > 0 };
      }
    }
  }

  #sessionLine(session: DaemonSession, client: SessionClient, line: string, flow: Flow): void {
    const parsed = parseMessage(line);
    if (!parsed.ok) {
      client.send(errorResponse(null, ErrorCode.ParseError, `mcp-daemon: ${parsed.error}`));
      return;
    }
    void session.fromClient(client, parsed.value);
    // The server reads slowly: this client waits in its socket until the server has room.
    if (!session.upstreamHasRoom) {
      flow.pause("upstream");
      session.whenUpstreamHasRoom(() => flow.resume("upstream"));
    }
  }

  #session(target: Target): DaemonSession {
    const key = sessionKey(target);
    let session = this.#sessions.get(key);
    if (!session || session.state === "closed") {
      session = new DaemonSession(key, target, this.#log, () => this.#writeChildren());
      this.#sessions.set(key, session);
    }
    return session;
  }

  #evictIdle(): void {
    const now = Date.now();
    for (const [key, session] of this.#sessions) {
      if (session.clients.size === 0 && now - session.lastUse > this.#options.idleTimeoutMs) {
        this.#log.info(`[${key}] idle for ${Math.round((now - session.lastUse) / 1000)} s; closing ${session.description}`);
        this.#sessions.delete(key);
        void session.close().then(() => this.#writeChildren());
      }
    }
    if (this.#sessions.size > 0 || this.#connections.size > 0) this.#idleSince = now;
    else if (now - this.#idleSince > this.#options.exitWhenIdleMs) void this.stop("no sessions left");
  }

  status(): JsonObject {
    return {
      type: "status",
      protocol: DAEMON_PROTOCOL,
      pid: process.pid,
      version: this.#options.version,
      socket: this.#options.paths.socket,
      uptimeMs: Date.now() - this.startedAt,
      rssBytes: process.memoryUsage().rss,
      sessions: [...this.#sessions.values()].map((session) => session.status()),
    };
  }

  #ownsPaths(): boolean {
    try {
      return (
        lstatSync(this.#options.paths.socket).ino === this.#socketInode &&
        readFileSync(this.#options.paths.pidFile, "utf8").trim() === String(process.pid)
      );
    } catch {
      return false;
    }
  }

  /** Records the process groups of our servers, so a later daemon can end them if we are killed. */
  #writeChildren(): void {
    const records: ChildRecord[] = [];
    for (const session of this.#sessions.values()) {
      if (session.pid && session.target.kind === "stdio") {
        const startTime = processStartTime(session.pid);
        records.push({ pid: session.pid, session: session.key, command: session.target.command, ...(startTime ? { startTime } : {}) });
      }
    }
    try {
      writeFileSync(this.#options.paths.childrenFile, JSON.stringify(records), { mode: 0o600 });
    } catch (error) {
      this.#log.warn(`could not write ${this.#options.paths.childrenFile}: ${(error as Error).message}`);
    }
  }

  /** Ends the server process groups a killed daemon left behind (each checked against its command). */
  #cleanUpAfterKilledDaemon(): void {
    let records: ChildRecord[];
    try {
      records = JSON.parse(readFileSync(this.#options.paths.childrenFile, "utf8"));
    } catch {
      return;
    }
    for (const record of Array.isArray(records) ? records : []) {
      if (!Number.isInteger(record.pid) || record.pid <= 1 || !stillOurs(record)) continue;
      this.#log.info(`ending server ${record.command} (pid ${record.pid}) left by a previous daemon`);
      try {
        process.kill(-record.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    writeFileSync(this.#options.paths.childrenFile, "[]", { mode: 0o600 });
  }

  /** `quick`: a signal is ending us, and every server is stopped within a second. */
  stop(reason: string, options: CloseOptions = {}): Promise<void> {
    this.#stopping ??= (async () => {
      this.#log.info(`stopping (${reason})`);
      clearInterval(this.#timer);
      this.#server?.close();
      for (const connection of this.#connections) connection.destroy();
      const closing = Promise.all([...this.#sessions.values()].map((session) => session.close(options)));
      await settlesWithin(closing, STOP_GRACE_MS);
      this.#sessions.clear();
      // A new daemon may have started since we closed the socket: touch only what is still ours.
      if (this.#ownsPaths()) {
        this.#writeChildren();
        for (const path of [this.#options.paths.socket, this.#options.paths.pidFile]) {
          try {
            unlinkSync(path);
          } catch {
            // Already gone.
          }
        }
      }
      this.stopped.resolve();
    })();
    return this.#stopping;
  }
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Whether pid still runs the command we recorded (pids are reused). Without /proc, trust the record. */
function stillOurs(record: ChildRecord): boolean {
  if (!processAlive(record.pid)) return false;
  const startTime = processStartTime(record.pid);
  if (startTime && record.startTime) return startTime === record.startTime;
  try {
    const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, "utf8");
    return cmdline.includes(record.command.split("/").pop() ?? record.command);
  } catch {
    return process.platform !== "linux";
  }
}
