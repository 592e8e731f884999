// The client side of mcp-daemon: one of its sessions as a raw message channel, the same code
// path as a direct connection (mcp-inspect reads it raw, mcp-host through ChannelTransport).
// Finding or starting the daemon is lib/daemon/start.ts.
import { type Flow, readChunks } from "../io/reading.ts";
import { connectUnix, type UnixSocket } from "../io/runtime.ts";
import type { Target } from "../targets/target.ts";
import type { MessageChannel } from "../transport/channel.ts";
import {
  isJsonObject,
  isNotification,
  type JsonObject,
  type JsonRpcMessage,
  parseMessage,
  type RawMessage,
  serializeMessage,
} from "../wire/jsonrpc.ts";
import { LineWriter } from "../wire/line-writer.ts";
import { LineSplitter, MAX_LINE_BYTES } from "../wire/lines.ts";
import { type DaemonPaths, likelyPaths, locateDaemon } from "./location.ts";
import {
  encodeFrame,
  MAX_CONTROL_FRAME_BYTES,
  MAX_SURVEY_SERVERS,
  SESSION_EXTENSION,
  SESSION_EXTENSION_VERSION,
  SESSION_NOTIFICATION,
  type SessionInfo,
  sessionExtension,
} from "./protocol.ts";
import type { DaemonOptions } from "./start.ts";

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

  #socket?: UnixSocket;
  #writer?: LineWriter;
  #flow?: Flow;
  #closed = false;
  #attached = false;
  /** Aborted by close(): a start still finding or starting the daemon gives up instead of attaching later. */
  readonly #abandoned = new AbortController();
  #started?: Promise<void>;
  #cached?: SessionInfo;
  readonly #sent = Promise.withResolvers<void>();

  constructor(
    readonly target: Target,
    readonly options: DaemonOptions = {},
  ) {}

  get hasRoom(): boolean {
    return this.#writer?.hasRoom ?? true;
  }

  /**
   * What the daemon sent of the session right after attaching (the session extension): its
   * handshake, and its cached tool list until any other line comes from the session.
   */
  get cached(): SessionInfo | undefined {
    return this.#cached;
  }

  pause(): void {
    this.#flow?.pause("consumer");
  }

  resume(): void {
    this.#flow?.resume("consumer");
  }

  /** Idempotent: a second call waits for the same attach. */
  start(): Promise<void> {
    if (!this.#started) {
      this.#started = this.#start();
      this.#started.then(this.#sent.resolve, this.#sent.resolve);
    }
    return this.#started;
  }

  /**
   * Settles once the attach frame is in the kernel on its way to the daemon, or the first try has
   * failed: a socket connects, and takes what was written before, only on a turn of the event loop.
   * mcp-inspect waits for this before it loads the rest, so that the daemon answers meanwhile.
   */
  get attachSent(): Promise<void> {
    return this.#sent.promise;
  }

  async #start(): Promise<void> {
    // The common case is a daemon already up: attach at once, and start one only if that fails. Its
    // socket is connected to while its directory is proven private (the stats take a turn of the
    // thread pool, ~1 ms of a warm call); nothing is written to it before.
    const located = locateDaemon(this.options);
    // Awaited below on every path; a refusal while the socket is still being opened is not lost.
    located.catch(() => {});
    const likely = this.options.paths ?? likelyPaths(this.options.env);
    let paths: DaemonPaths;
    try {
      paths = likely ? await this.#attach(likely, located) : await located;
      if (paths !== likely) await this.#attach(paths);
    } catch (error) {
      if (!(error instanceof DaemonUnreachable)) throw error;
      // Finding and starting a daemon (node:net, child_process, the lock) loads only when one must start.
      paths = await located;
      const { ensureDaemon } = await import("./start.ts");
      await ensureDaemon({ ...this.options, paths, signal: this.#abandoned.signal });
      await this.#attach(paths);
    }
  }

  /**
   * Attaches through the socket in `paths`. With `proven`, the proof of the directory is still being
   * made: the socket connects meanwhile, and the attach frame waits for it. Resolves with the proven
   * paths; when they are not these (another directory, or one the quick proof could not make), the
   * socket is let go unwritten and the caller attaches again there.
   */
  async #attach(paths: DaemonPaths, proven?: Promise<DaemonPaths>): Promise<DaemonPaths> {
    this.#abandoned.signal.throwIfAborted();
    const socket = await connectUnix(paths.socket);
    this.#socket = socket;
    const attached = Promise.withResolvers<void>();
    // It may be refused while the proof is still being made, before anyone waits for it.
    attached.promise.catch(() => {});
    // The control frame, then (when the session extension was granted) the session line, then the session.
    let state: "control" | "session" | "attached" = "control";
    let frameBytes = 0;
    const splitter = new LineSplitter(
      (line) => {
        if (state === "control") {
          const granted = this.#onAttachReply(line, attached);
          if (granted === undefined) return;
          state = granted ? "session" : "attached";
          if (!granted) attached.resolve();
          return;
        }
        const parsed = parseMessage(line);
        if (state === "session") {
          state = "attached";
          this.#cached = parsed.ok ? sessionInfoOf(parsed.value) : undefined;
          attached.resolve();
          if (this.#cached) return;
        }
        // The sent list is the session as it was when we attached: anything that comes after it (a
        // tools/list_changed, a restarted server's error, an answer) may be news, so it is dropped.
        if (this.#cached?.tools) delete this.#cached.tools;
        if (!parsed.ok) return this.onerror?.(new Error(`skipped a line from mcp-daemon that is not JSON-RPC (${parsed.error})`));
        this.onmessage?.(parsed.value, line);
      },
      {
        maxLineBytes: MAX_LINE_BYTES,
        onerror: (error) => this.onerror?.(new Error(`dropped a ${error.bytes}-byte line from mcp-daemon (${error.kind})`)),
      },
    );
    this.#flow = readChunks(socket, {
      onchunk: (chunk) => {
        // Until attached, only one small control frame may come.
        if (state === "control" && (frameBytes += chunk.length) > MAX_CONTROL_FRAME_BYTES && !chunk.includes(0x0a)) {
          attached.reject(new Error(`mcp-daemon sent a control frame over ${MAX_CONTROL_FRAME_BYTES} bytes`));
          socket.destroy();
          return;
        }
        splitter.push(chunk);
      },
      onend: (error) => {
        // A failed connect or a broken socket is reported by the error handler below.
        if (!error) attached.reject(new Error("mcp-daemon closed the connection"));
        if (state === "attached") this.#finish("mcp-daemon closed the connection");
      },
    });
    let connected = false;
    let written = false;
    socket.on("connect", () => {
      connected = true;
      // The socket hands the kernel the attach frame in the same turn, right after telling us: whoever
      // awaits attachSent resumes after that.
      if (written) this.#sent.resolve();
    });
    socket.on("error", (error) => {
      // No daemon (yet): whoever waits for the attach to be sent need not wait for one to start.
      this.#sent.resolve();
      // A connection reset before any answer is a daemon that died with it unaccepted or unread
      // (SIGKILL leaves its socket behind): as good as none, so one is started.
      const heard = connected && frameBytes > 0;
      attached.reject(heard ? new Error(`lost mcp-daemon at ${paths.socket}: ${error.message}`) : new DaemonUnreachable(error.message));
      if (state === "attached") this.onerror?.(error);
    });
    let provenPaths: DaemonPaths;
    try {
      provenPaths = proven ? await proven : paths;
      // Detached (close()) while the proof was made: nothing is sent.
      this.#abandoned.signal.throwIfAborted();
    } catch (error) {
      socket.destroy();
      throw error;
    }
    if (provenPaths.socket !== paths.socket) {
      socket.destroy();
      return provenPaths;
    }
    const server = daemonTarget(this.target);
    const extensions = { [SESSION_EXTENSION]: SESSION_EXTENSION_VERSION };
    // Written now, not on "connect": the socket holds it until connected, and the daemon can answer
    // while this process is still busy loading (mcp-inspect attaches before the rest of it loads).
    socket.write(encodeFrame({ type: "attach", server, extensions }));
    written = true;
    // Connected while the proof was made: the frame went to the kernel just now.
    if (connected || socket.destroyed) this.#sent.resolve();
    this.#writer = new LineWriter(socket);
    this.#writer.onroom = () => this.ondrain?.();
    try {
      await attached.promise;
    } catch (error) {
      // Refused or cut off: the connection is let go (it would keep us running), and nothing more is sent on it.
      socket.destroy();
      this.#writer = undefined;
      throw error;
    }
    this.#attached = true;
    return paths;
  }

  /** The answer to our attach frame: whether a session line follows, or undefined (and `attached` rejected) when refused. */
  #onAttachReply(line: string, attached: PromiseWithResolvers<void>): boolean | undefined {
    let frame: JsonObject;
    try {
      frame = JSON.parse(line);
    } catch {
      attached.reject(new Error("mcp-daemon answered with something that is not JSON"));
      return undefined;
    }
    if (frame.type !== "attached") {
      attached.reject(new Error(`mcp-daemon: ${String(frame.message ?? "refused the session")}`));
      return undefined;
    }
    this.session = String(frame.session);
    this.serverPid = typeof frame.pid === "number" ? frame.pid : null;
    return sessionExtension(frame.extensions) > 0;
  }

  send(message: JsonRpcMessage, raw?: RawMessage): Promise<void> {
    if (!this.#writer || this.#closed) return Promise.reject(new Error("not attached to mcp-daemon"));
    return this.#writer.write(raw ?? serializeMessage(message));
  }

  /** Detaches (or gives up attaching); the session (and its server) stays alive in the daemon. */
  async close(): Promise<void> {
    this.#abandoned.abort(new Error("detached from mcp-daemon"));
    const socket = this.#socket;
    // Flush what we wrote, then close both directions: a half-open socket would keep us running.
    // With nothing left to flush (the usual end of a call, or an attach not yet answered) the
    // kernel already holds every byte of ours, so the socket goes at once.
    if (socket && !socket.destroyed) {
      if (this.#attached && socket.writableLength > 0)
        await new Promise<void>((resolve) => socket.end(() => (socket.destroy(), resolve())));
      else socket.destroy();
    }
    this.#finish("detached from mcp-daemon");
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.(reason);
  }
}

/**
 * The server as the daemon is told of it: a stdio one starts as a direct spawn would, in our
 * directory, finding its command on our PATH, not on whatever the daemon's first caller had.
 * Attach and survey name a server the same way, so both find the same session.
 */
function daemonTarget(target: Target): Target {
  if (target.kind !== "stdio") return target;
  return { ...target, cwd: target.cwd ?? process.cwd(), env: { ...(process.env.PATH ? { PATH: process.env.PATH } : {}), ...target.env } };
}

/**
 * What the daemon's running sessions know of these servers, in one round trip (the socket
 * protocol's survey): each one's session info, or undefined where no session is up, where the
 * daemon does not answer within `timeoutMs`, or where it is an older one that knows no survey.
 * Nothing is started.
 */
export async function surveySessions(
  targets: Target[],
  timeoutMs: number,
  options: DaemonOptions = {},
): Promise<(SessionInfo | undefined)[]> {
  const known: (SessionInfo | undefined)[] = targets.map(() => undefined);
  if (targets.length === 0 || targets.length > MAX_SURVEY_SERVERS) return known;
  let socket: UnixSocket;
  try {
    socket = await connectUnix((await locateDaemon(options)).socket);
  } catch {
    return known;
  }
  const done = Promise.withResolvers<void>();
  let answered = 0;
  const splitter = new LineSplitter(
    (line) => {
      const answer = surveyAnswerOf(line, targets.length);
      if (answer?.session) known[answer.index] = sessionInfoFrom(answer.session);
      if (answer && ++answered === targets.length) done.resolve();
    },
    { maxLineBytes: MAX_LINE_BYTES, onerror: () => {} },
  );
  readChunks(socket, { onchunk: (chunk) => splitter.push(chunk), onend: () => done.resolve() });
  socket.on("error", () => done.resolve());
  socket.write(encodeFrame({ type: "survey", servers: targets.map(daemonTarget) }));
  const timer = setTimeout(() => done.resolve(), timeoutMs);
  await done.promise;
  clearTimeout(timer);
  socket.destroy();
  return known;
}

/** One line of the daemon's answer to a survey, checked: its index in range, its session an object. */
function surveyAnswerOf(line: string, count: number): { index: number; session?: JsonObject } | undefined {
  let frame: unknown;
  try {
    frame = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isJsonObject(frame) || frame.type !== "surveyed") return undefined;
  const index = frame.index;
  if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) return undefined;
  return { index: index as number, ...(isJsonObject(frame.session) ? { session: frame.session } : {}) };
}

/** The session line, checked for shape (RawClient decides whether it speaks the identity's revision). */
function sessionInfoOf(message: JsonRpcMessage): SessionInfo | undefined {
  if (!isNotification(message) || message.method !== SESSION_NOTIFICATION) return undefined;
  return sessionInfoFrom((message.params ?? {}) as Record<string, unknown>);
}

/** The session line's params (or a survey's session), checked for shape. */
function sessionInfoFrom(params: Record<string, unknown>): SessionInfo {
  const identity = params.identity as Record<string, unknown> | undefined;
  const identityOk =
    isJsonObject(identity) &&
    typeof identity.era === "string" &&
    typeof identity.protocolVersion === "string" &&
    isJsonObject(identity.capabilities);
  const toolsOk = Array.isArray(params.tools) && params.tools.every(isJsonObject);
  return {
    version: Number(params.version) || SESSION_EXTENSION_VERSION,
    ...(identityOk ? { identity: identity as unknown as SessionInfo["identity"] } : {}),
    ...(identityOk && toolsOk ? { tools: params.tools as JsonObject[] } : {}),
  };
}
