// The daemon process: a Unix socket in a private directory, one DaemonSession per server
// definition, idle eviction, and records of every server process it started (children.ts) so that
// a daemon killed with SIGKILL is cleaned up after by the next one. Each connection to the socket
// is a DaemonConnection (connection.ts).

import { chmodSync, existsSync, lstatSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { ConsolaInstance } from "consola/core";
import type { DaemonPaths } from "../lib/daemon/paths.ts";
import { DAEMON_PROTOCOL } from "../lib/daemon/protocol.ts";
import { sessionKey } from "../lib/daemon/session-key.ts";
import { probeDaemon } from "../lib/daemon/start.ts";
import { settlesWithin } from "../lib/io/reading.ts";
import type { Target } from "../lib/targets/target.ts";
import type { CloseOptions } from "../lib/transport/channel.ts";
import type { JsonObject } from "../lib/wire/jsonrpc.ts";
import { ChildRecords } from "./children.ts";
import { type ConnectionHost, DaemonConnection } from "./connection.ts";
import { DaemonSession } from "./session.ts";

/** What `mcp-daemon run` starts the daemon with (lib/daemon/start.ts's DaemonOptions are a client's, to find or start one). */
export interface DaemonServerOptions {
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

export class Daemon {
  readonly #options: DaemonServerOptions;
  readonly #log: ConsolaInstance;
  readonly #children: ChildRecords;
  readonly #connectionHost: ConnectionHost;
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

  constructor(options: DaemonServerOptions) {
    this.#options = options;
    this.#log = options.log;
    this.#children = new ChildRecords(options.paths.childrenFile, options.log);
    this.#connectionHost = {
      log: options.log,
      version: options.version,
      session: (target) => this.#session(target),
      runningSession: (target) => {
        const session = this.#sessions.get(sessionKey(target));
        return session?.state === "ready" ? session : undefined;
      },
      status: () => this.status(),
      stop: (reason) => this.stop(reason),
      clientName: () => `client-${this.#connections.size}`,
    };
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
    this.#children.cleanUpAfterKilledDaemon();
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

  #accept(socket: Socket): void {
    this.#connections.add(socket);
    socket.on("close", () => this.#connections.delete(socket));
    new DaemonConnection(socket, this.#connectionHost);
  }

  #session(target: Target): DaemonSession {
    const key = sessionKey(target);
    let session = this.#sessions.get(key);
    if (!session || session.state === "closed") {
      session = new DaemonSession(key, target, this.#log, () => {
        this.#children.forget(key);
        this.#writeChildren();
      });
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

  #writeChildren(): void {
    this.#children.write(this.#sessions.values());
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
