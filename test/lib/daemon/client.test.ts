// lib/daemon/client: a daemon session as a MessageChannel, against a fake daemon of the test's own
// on a Unix socket in a temp dir (in this process): the attach frame, the session line, lines both
// ways, every refusal, and the ends of a connection.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { DaemonChannel, surveySessions } from "../../../lib/daemon/client.ts";
import { type DaemonPaths, daemonPaths } from "../../../lib/daemon/paths.ts";
import { type ControlFrame, MAX_CONTROL_FRAME_BYTES, parseControlFrame, SESSION_NOTIFICATION } from "../../../lib/daemon/protocol.ts";
import type { Target } from "../../../lib/targets/target.ts";
import type { JsonRpcMessage } from "../../../lib/wire/jsonrpc.ts";
import type { Result } from "../../../lib/wire/result.ts";
import { FAKE_DAEMON_COMMAND, launches, stopLaunched } from "../../support/fake-daemon.ts";
import { alive, BUN, removeTempDirs, tempDir, until } from "../../support/helpers.ts";

afterAll(removeTempDirs);

/** How the fake daemon answers a connection's opening frame (it may write anything, or nothing). */
type Answer = (frame: Result<ControlFrame>, socket: Socket) => void;

/** A daemon as the socket shows it: the opening frame of each connection, then the session's lines. */
class FakeDaemon {
  readonly frames: Result<ControlFrame>[] = [];
  readonly lines: string[] = [];
  connections = 0;
  /** The server side of the latest connection. */
  socket?: Socket;
  readonly #server: Server;
  #waiters: { ready: () => boolean; resolve: () => void }[] = [];
  #ended = Promise.withResolvers<void>();

  constructor(
    readonly paths: DaemonPaths,
    readonly answer: Answer,
  ) {
    this.#server = createServer((socket) => {
      this.connections++;
      this.socket = socket;
      let buffer = "";
      let framed = false;
      socket.on("data", (chunk) => {
        buffer += chunk.toString();
        for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (framed) this.lines.push(line);
          else {
            framed = true;
            const frame = parseControlFrame(line);
            this.frames.push(frame);
            this.answer(frame, socket);
          }
        }
        this.#check();
      });
      socket.on("error", () => {});
      socket.on("close", () => this.#ended.resolve());
    });
  }

  listen(): Promise<this> {
    return new Promise((resolve) => this.#server.listen(this.paths.socket, () => resolve(this)));
  }

  /** Settles once `ready` holds over what came (checked on every chunk). */
  until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ ready, resolve }));
  }

  /** Settles when the latest connection has closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  write(text: string): void {
    this.socket!.write(text);
  }

  #check(): void {
    this.#waiters = this.#waiters.filter((waiter) => !(waiter.ready() && (waiter.resolve(), true)));
  }

  close(): Promise<void> {
    this.socket?.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const daemons: FakeDaemon[] = [];
const channels: DaemonChannel[] = [];
afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.close()));
  await Promise.all(daemons.splice(0).map((daemon) => daemon.close()));
});

function paths(): DaemonPaths {
  const resolved = daemonPaths({ MCPKIT_DAEMON_DIR: join(tempDir("mcpd-"), "d") });
  if (!resolved.ok) throw new Error(resolved.error);
  return resolved.value;
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const attached =
  (extra: Record<string, unknown> = {}): Answer =>
  (_frame, socket) =>
    void socket.write(line({ type: "attached", session: "key-1", pid: 4242, ...extra }));

async function daemon(answer: Answer): Promise<FakeDaemon> {
  const fake = await new FakeDaemon(paths(), answer).listen();
  daemons.push(fake);
  return fake;
}

const stdioTarget: Target = { kind: "stdio", command: "my-server", args: ["--flag"], env: { TOKEN: "t" } };

/** A channel on the fake daemon, with what it delivered, reported and why it closed. */
function channel(fake: FakeDaemon, target: Target = stdioTarget) {
  const c = new DaemonChannel(target, { paths: fake.paths });
  channels.push(c);
  const messages: { message: JsonRpcMessage; raw: unknown }[] = [];
  const errors: string[] = [];
  const closes: (string | undefined)[] = [];
  let arrived = Promise.withResolvers<void>();
  c.onmessage = (message, raw) => {
    messages.push({ message, raw });
    arrived.resolve();
    arrived = Promise.withResolvers<void>();
  };
  c.onerror = (error) => void errors.push(error.message);
  const closed = Promise.withResolvers<void>();
  c.onclose = (reason) => {
    closes.push(reason);
    closed.resolve();
  };
  return {
    c,
    messages,
    errors,
    closes,
    closed: closed.promise,
    /** Settles with the next message delivered. */
    get next() {
      return arrived.promise;
    },
  };
}

describe("the attach frame", () => {
  test("attach, protocol 1, the session extension asked for, and a stdio server in our cwd with our PATH", async () => {
    const fake = await daemon(attached());
    await channel(fake).c.start();
    expect(fake.frames).toEqual([
      {
        ok: true,
        value: {
          type: "attach",
          server: { ...stdioTarget, cwd: process.cwd(), env: { PATH: process.env.PATH!, TOKEN: "t" } } as Target,
          extensions: { session: 1 },
        },
      },
    ]);
  });

  test("a stdio server's own cwd and PATH win over ours", async () => {
    const fake = await daemon(attached());
    const target: Target = { ...stdioTarget, cwd: "/srv", env: { PATH: "/opt/bin" } } as Target;
    await channel(fake, target).c.start();
    const frame = fake.frames[0]!;
    expect(frame.ok && frame.value.type === "attach" && frame.value.server).toEqual(target);
  });

  test("an http server goes as it is", async () => {
    const fake = await daemon(attached());
    const target: Target = { kind: "http", url: "https://example.com/mcp", headers: { A: "b" }, transport: "auto" };
    await channel(fake, target).c.start();
    const frame = fake.frames[0]!;
    expect(frame.ok && frame.value.type === "attach" && frame.value.server).toEqual(target);
  });

  test("start() twice is one attach on one connection", async () => {
    const fake = await daemon(attached());
    const { c } = channel(fake);
    const [first, second] = [c.start(), c.start()];
    expect(second).toBe(first);
    await first;
    expect(fake.connections).toBe(1);
  });
});

describe("attached", () => {
  test("without the session extension: the session key and pid, then lines both ways, with raw text", async () => {
    const fake = await daemon(attached());
    const ch = channel(fake);
    await ch.c.start();
    expect([ch.c.session, ch.c.serverPid, ch.c.cached]).toEqual(["key-1", 4242, undefined]);

    await ch.c.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await ch.c.send({ jsonrpc: "2.0", id: 2, method: "ping" }, '{"jsonrpc":"2.0","id":2,"method":"ping"}');
    await fake.until(() => fake.lines.length === 2);
    expect(fake.lines.map((text) => JSON.parse(text))).toEqual([
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);

    const answer = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}';
    const next = ch.next;
    fake.write(`${answer}\n`);
    await next;
    expect(ch.messages).toEqual([{ message: JSON.parse(answer), raw: answer }]);
  });

  test("a pid that is not a number is null (a session whose server is not running)", async () => {
    const fake = await daemon(attached({ pid: null }));
    const { c } = channel(fake);
    await c.start();
    expect(c.serverPid).toBeNull();
  });

  const identity = { era: "legacy", protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } } };
  const tools = [{ name: "echo", inputSchema: { type: "object" } }];
  const sessionLine = (params: unknown) => line({ jsonrpc: "2.0", method: SESSION_NOTIFICATION, params });
  const granted =
    (text: string): Answer =>
    (_frame, socket) =>
      void socket.write(line({ type: "attached", session: "k", pid: 1, extensions: { session: 1 } }) + text);

  test("with it: the session line is the cached identity and tools, never a message; any later line drops the tools", async () => {
    const fake = await daemon(granted(sessionLine({ version: 1, identity, tools })));
    const ch = channel(fake);
    await ch.c.start();
    expect(ch.c.cached).toEqual({ version: 1, identity, tools } as never);
    const next = ch.next;
    fake.write(line({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }));
    await next;
    expect(ch.c.cached).toEqual({ version: 1, identity } as never);
    expect(ch.messages.map(({ message }) => message)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);
  });

  // [what, the session line's params, what is cached]
  const shapes: [string, unknown, unknown][] = [
    ["no identity: nothing but the version", { version: 1 }, { version: 1 }],
    [
      "an identity without an era: no identity, and so no tools",
      { version: 1, identity: { ...identity, era: undefined }, tools },
      { version: 1 },
    ],
    ["capabilities that are not an object", { version: 1, identity: { ...identity, capabilities: [] }, tools }, { version: 1 }],
    ["tools that are not all objects: the identity only", { version: 1, identity, tools: [tools[0], "echo"] }, { version: 1, identity }],
    ["no version: this client's", { identity }, { version: 1, identity }],
  ];
  for (const [what, params, cached] of shapes)
    test(`the session line checked for shape: ${what}`, async () => {
      const fake = await daemon(granted(sessionLine(params)));
      const { c } = channel(fake);
      await c.start();
      expect(c.cached).toEqual(cached as never);
    });

  test("a granted session line that is another message: nothing cached, and the message is delivered", async () => {
    const other: JsonRpcMessage = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } };
    const fake = await daemon(granted(line(other)));
    const ch = channel(fake);
    const next = ch.next;
    await ch.c.start();
    await next;
    expect(ch.c.cached).toBeUndefined();
    expect(ch.messages.map(({ message }) => message)).toEqual([other]);
  });

  test("a line that is not JSON-RPC is reported and skipped; the lines after it arrive", async () => {
    const fake = await daemon(attached());
    const ch = channel(fake);
    await ch.c.start();
    const next = ch.next;
    fake.write('not json\n{"id":1}\n{"jsonrpc":"2.0","id":1,"result":{}}\n');
    await next;
    expect(ch.errors).toHaveLength(2);
    for (const error of ch.errors) expect(error).toStartWith("skipped a line from mcp-daemon that is not JSON-RPC (");
    expect(ch.messages.map(({ message }) => message)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });
});

describe("refused", () => {
  const refusals: [string, (socket: Socket) => void, string][] = [
    [
      "an error frame",
      (socket) => socket.write(line({ type: "error", message: "attach needs a valid server definition: x" })),
      "mcp-daemon: attach needs a valid server definition: x",
    ],
    ["an error frame without a message", (socket) => socket.write(line({ type: "error" })), "mcp-daemon: refused the session"],
    ["a hello where attached belongs", (socket) => socket.write(line({ type: "hello", pid: 1 })), "mcp-daemon: refused the session"],
    ["a line that is not JSON", (socket) => socket.write("<html>\n"), "mcp-daemon answered with something that is not JSON"],
    ["the connection closed unanswered", (socket) => socket.end(), "mcp-daemon closed the connection"],
    [
      "a control frame without end",
      (socket) => socket.write("x".repeat(MAX_CONTROL_FRAME_BYTES + 1)),
      `mcp-daemon sent a control frame over ${MAX_CONTROL_FRAME_BYTES} bytes`,
    ],
  ];
  for (const [what, answer, error] of refusals)
    test(`${what}: start rejects with "${error}", and lets the connection go`, async () => {
      const fake = await daemon((_frame, socket) => answer(socket));
      const { c } = channel(fake);
      await expect(c.start()).rejects.toThrow(error);
      // Whether or not the daemon hangs up: a connection left open would keep the process running.
      await fake.ended;
      await expect(c.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow("not attached to mcp-daemon");
    });
});

describe("the ends of a connection", () => {
  test("the daemon going away closes the channel, once, saying so; nothing can be sent after", async () => {
    const fake = await daemon(attached());
    const ch = channel(fake);
    await ch.c.start();
    fake.socket!.end();
    await ch.closed;
    await ch.c.close();
    expect(ch.closes).toEqual(["mcp-daemon closed the connection"]);
    await expect(ch.c.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow("not attached to mcp-daemon");
  });

  test("close() detaches: the daemon sees the connection end, onclose fires once, a second close is harmless", async () => {
    const fake = await daemon(attached());
    const ch = channel(fake);
    await ch.c.start();
    await ch.c.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await Promise.all([ch.c.close(), ch.c.close()]);
    await fake.ended;
    expect(fake.lines).toEqual(['{"jsonrpc":"2.0","method":"notifications/initialized"}']);
    expect(ch.closes).toEqual(["detached from mcp-daemon"]);
  });

  test("close() while the attach is unanswered gives up: start rejects, the socket goes, onclose fires once", async () => {
    const framed = Promise.withResolvers<void>();
    const fake = await daemon(() => framed.resolve()); // reads the frame, never answers
    const ch = channel(fake);
    const started = ch.c.start().then(
      () => "attached",
      (error: Error) => error.message,
    );
    await framed.promise;
    await ch.c.close();
    expect(await started).toBe("mcp-daemon closed the connection");
    await fake.ended;
    expect(ch.closes).toEqual(["detached from mcp-daemon"]);
  });
});

describe("no daemon running", () => {
  test("the daemon is started (once), then attached to, and the session's lines go both ways", async () => {
    const where = paths();
    const c = new DaemonChannel(stdioTarget, { paths: where, env: { MCPKIT_DAEMON_COMMAND: JSON.stringify(FAKE_DAEMON_COMMAND) } });
    try {
      const echoed = Promise.withResolvers<JsonRpcMessage>();
      c.onmessage = (message) => echoed.resolve(message);
      await c.start();
      expect(c.session).toBe("fake-session");
      expect(launches(where.dir)).toHaveLength(1);
      await c.send({ jsonrpc: "2.0", id: 1, method: "ping" });
      expect(await echoed.promise).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" }); // the fake echoes
    } finally {
      await c.close();
      stopLaunched(where.dir);
    }
  });
});

describe("a daemon that died", () => {
  /** Takes connections and never reads them: a daemon busy or hung, until the test kills it. */
  const NEVER_READS = `require("node:net").createServer({ pauseOnConnect: true }, () => {}).listen(process.argv[1]);`;

  test("killed with our attach frame unread (its socket left behind): a reset means none, so one is started and attached to", async () => {
    const where = paths();
    const hung = Bun.spawn([BUN, "-e", NEVER_READS, where.socket], { stdout: "ignore", stderr: "inherit" });
    const c = new DaemonChannel(stdioTarget, { paths: where, env: { MCPKIT_DAEMON_COMMAND: JSON.stringify(FAKE_DAEMON_COMMAND) } });
    try {
      await until(() => existsSync(where.socket), "the hung daemon's socket");
      const started = c.start();
      await c.attachSent;
      // The frame is with the kernel, in a connection the daemon will never read: it dies with it.
      hung.kill("SIGKILL");
      await hung.exited;
      await started;
      expect(c.session).toBe("fake-session");
      expect(launches(where.dir)).toHaveLength(1);
    } finally {
      if (alive(hung.pid)) hung.kill("SIGKILL");
      await c.close();
      stopLaunched(where.dir);
    }
  });
});

describe("the daemon's directory", () => {
  test("one others may enter is refused, with the fix, before the attach is written: a socket planted there hears nothing", async () => {
    const dir = join(tempDir("mcpd-"), "d");
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o755);
    const heard = Promise.withResolvers<string>();
    let opened = 0;
    let closed = 0;
    const listener = createServer((socket) => {
      opened++;
      socket.on("data", () => heard.resolve("the planted socket heard a byte"));
      socket.on("error", () => {});
      socket.on("close", () => void closed++);
    });
    await new Promise<void>((resolve) => listener.listen(join(dir, "daemon.sock"), resolve));
    const c = new DaemonChannel(stdioTarget, { env: { MCPKIT_DAEMON_DIR: dir } });
    try {
      const started = c.start().then(
        () => "attached",
        (error: Error) => error.message,
      );
      expect(await Promise.race([started, heard.promise])).toContain(`chmod 700 ${dir}`);
      // A connection made while the proof was under way is let go, unwritten.
      await until(() => closed === opened, "every connection to the planted socket closed");
      expect(await Promise.race([heard.promise, Promise.resolve("silent")])).toBe("silent");
    } finally {
      await c.close();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});

describe("survey", () => {
  const identity = { era: "modern" as const, protocolVersion: "2026-07-28", capabilities: { tools: { listChanged: true } } };
  const tools = [{ name: "echo", inputSchema: { type: "object" } }];
  const other: Target = { kind: "stdio", command: "other-server", args: [], env: {} };

  test("one frame names every server as attach would; each answer lands at its index, a server with no session is undefined", async () => {
    const fake = await daemon((_frame, socket) => {
      socket.write(line({ type: "surveyed", index: 1 }));
      socket.end(line({ type: "surveyed", index: 0, session: { version: 1, identity, tools } }));
    });
    const known = await surveySessions([stdioTarget, other], 10_000, { paths: fake.paths });
    expect(known).toEqual([{ version: 1, identity, tools }, undefined]);
    expect(fake.connections).toBe(1);
    const frame = fake.frames[0]!;
    if (!frame.ok || frame.value.type !== "survey") throw new Error("expected a survey frame");
    expect(frame.value.servers[0]).toEqual({ ...stdioTarget, cwd: process.cwd(), env: { PATH: process.env.PATH!, TOKEN: "t" } });
  });

  test("an older daemon that refuses the frame, junk, indexes out of range and a session that is no object give nothing", async () => {
    const refusing = await daemon((_frame, socket) => void socket.end(line({ type: "error", message: 'unknown frame type "survey"' })));
    expect(await surveySessions([stdioTarget], 10_000, { paths: refusing.paths })).toEqual([undefined]);
    const hostile = await daemon((_frame, socket) => {
      socket.write("not json\n");
      socket.write(line({ type: "surveyed", index: 7, session: { version: 1, identity, tools } }));
      socket.write(line({ type: "surveyed", index: -1 }));
      socket.end(line({ type: "surveyed", index: 0, session: "all of them" }));
    });
    expect(await surveySessions([stdioTarget], 10_000, { paths: hostile.paths })).toEqual([undefined]);
  });

  test("a daemon that never answers is given up on after the timeout; no daemon at all gives nothing at once", async () => {
    const silent = await daemon(() => {});
    expect(await surveySessions([stdioTarget, other], 50, { paths: silent.paths })).toEqual([undefined, undefined]);
    expect(await surveySessions([stdioTarget], 10_000, { paths: paths() })).toEqual([undefined]);
  });
});
