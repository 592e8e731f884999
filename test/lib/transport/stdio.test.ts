// lib/transport/stdio: a server process as a channel, against tiny children (`sh -c` and `bun -e`
// one-liners that print lines, write junk, close their stdout or stdin, ignore SIGTERM), never an
// MCP server. The shutdown's grace periods run on a hand-moved clock: each step of the escalation
// (stdin closed, SIGTERM, SIGKILL) is seen by the child before the test lets the next come.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../../../lib/io/process.ts";
import { DroppedLineError } from "../../../lib/transport/channel.ts";
import { serverEnvironment } from "../../../lib/transport/environment.ts";
import {
  CLOSE_AFTER_EXIT_MS,
  QUICK_GRACE_MS,
  SIGTERM_GRACE_MS,
  STDIN_CLOSE_GRACE_MS,
  StdioChannel,
  type StdioServerOptions,
} from "../../../lib/transport/stdio.ts";
import type { JsonRpcMessage, RawMessage } from "../../../lib/wire/jsonrpc.ts";
import { BUN, removeTempDirs, tempDir } from "../../support/helpers.ts";
import { manualClock, realClock } from "../../support/manual-clock.ts";

afterEach(realClock);
afterAll(removeTempDirs);

const sh = (script: string): StdioServerOptions => ({ command: "sh", args: ["-c", script] });
const bunE = (code: string): StdioServerOptions => ({ command: BUN, args: ["-e", code] });
const OK_LINE = '{"jsonrpc":"2.0","id":1,"result":{}}';

const channels: StdioChannel[] = [];
afterEach(async () => {
  realClock();
  await Promise.all(channels.splice(0).map((channel) => channel.close({ quick: true })));
});

/** A started channel with everything it reported kept, and events to wait on. */
async function started(options: StdioServerOptions) {
  const stderr: string[] = [];
  const stderrWaiters: { line: string; resolve: () => void }[] = [];
  const channel = new StdioChannel({
    ...options,
    onstderr: (line) => {
      stderr.push(line);
      for (const waiter of stderrWaiters.filter(({ line: wanted }) => line === wanted)) waiter.resolve();
    },
  });
  channels.push(channel);
  const messages: { message: JsonRpcMessage; raw: RawMessage | undefined }[] = [];
  const errors: Error[] = [];
  const closes: (string | undefined)[] = [];
  const closed = Promise.withResolvers<string | undefined>();
  let message = Promise.withResolvers<void>();
  channel.onmessage = (value, raw) => {
    messages.push({ message: value, raw });
    message.resolve();
    message = Promise.withResolvers<void>();
  };
  channel.onerror = (error) => void errors.push(error);
  channel.onclose = (reason) => {
    closes.push(reason);
    closed.resolve(reason);
  };
  await channel.start();
  return {
    channel,
    messages,
    errors,
    stderr,
    closes,
    closed: closed.promise,
    /** Settles with the next message (or at once, if `count` have come already). */
    messagesUpTo(count: number): Promise<void> {
      return messages.length >= count ? Promise.resolve() : message.promise.then(() => this.messagesUpTo(count));
    },
    /** Settles when the child has written `line` on its stderr (or already had). */
    saidOnStderr(line: string): Promise<void> {
      if (stderr.includes(line)) return Promise.resolve();
      return new Promise((resolve) => stderrWaiters.push({ line, resolve }));
    },
  };
}

describe("the environment a server gets", () => {
  test("only allow-listed variables, never API keys or exported bash functions, plus what was configured", () => {
    const env = serverEnvironment(
      { TOKEN: "configured" },
      { PATH: "/bin", HOME: "/h", ANTHROPIC_API_KEY: "secret", OPENAI_API_KEY: "secret", SHELL: "() { :; }; echo pwned" },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", TOKEN: "configured" });
  });

  const printEnv = bunE('console.log(JSON.stringify({ jsonrpc: "2.0", method: "env", params: process.env }))');
  const base = { PATH: process.env.PATH, HOME: "/h", OPENAI_API_KEY: "secret", FOO: "bar" };
  const cases: [string, Partial<StdioServerOptions>, Record<string, string | undefined>][] = [
    ["the allow-list of ours, and its own", { env: { TOKEN: "t" } }, { PATH: process.env.PATH, HOME: "/h", TOKEN: "t" }],
    [
      "all of ours when told to inherit (mcp-proxy's -- cmd), and its own",
      { env: { TOKEN: "t" }, inheritEnvironment: true },
      {
        ...base,
        TOKEN: "t",
      },
    ],
  ];
  for (const [what, options, env] of cases)
    test(`a spawned server sees ${what}`, async () => {
      const child = await started({ ...printEnv, ...options, baseEnv: base });
      await child.messagesUpTo(1);
      expect((child.messages[0]!.message as { params: unknown }).params).toEqual(env);
    });
});

describe("starting", () => {
  test("a command that does not exist fails with a clear message, and close waits out no grace period", async () => {
    const channel = new StdioChannel({ command: "no-such-command-mcpkit" });
    await expect(channel.start()).rejects.toThrow("command not found: no-such-command-mcpkit (check the name and PATH)");
    manualClock(); // every timer held: a close that waited for one would never return
    await channel.close();
  });

  test("a file that is not executable is named", async () => {
    const file = join(tempDir("mcpkit-stdio-"), "server.sh");
    writeFileSync(file, "#!/bin/sh\n");
    chmodSync(file, 0o644);
    await expect(new StdioChannel({ command: file }).start()).rejects.toThrow(`permission denied running ${file} (is it executable?)`);
  });

  test("a missing working directory is named", async () => {
    await expect(new StdioChannel({ command: BUN, cwd: "/nonexistent/dir" }).start()).rejects.toThrow(
      "working directory not found: /nonexistent/dir",
    );
  });

  test("start() twice is one process", async () => {
    const channel = new StdioChannel(sh("cat >/dev/null"));
    channels.push(channel);
    const [first, second] = [channel.start(), channel.start()];
    expect(second).toBe(first);
    await first;
    expect(channel.pid).toBeGreaterThan(0);
  });
});

describe("reading", () => {
  test("junk lines are reported as skipped, messages arrive with their raw text, close is idempotent", async () => {
    const child = await started(sh(`echo 'not json'; echo '{"a":1}'; echo; echo '${OK_LINE}'; cat >/dev/null`));
    await child.messagesUpTo(1);
    expect(child.messages).toEqual([{ message: JSON.parse(OK_LINE), raw: OK_LINE }]);
    expect(child.errors).toHaveLength(2); // the blank line is no error
    for (const error of child.errors) {
      expect(error).toBeInstanceOf(DroppedLineError);
      expect((error as DroppedLineError).kind).toBe("not-json-rpc");
    }
    expect(child.errors[0]!.message).toStartWith("skipped a line from the server that is not JSON-RPC (invalid JSON (");
    expect(child.errors[0]!.message).toEndWith('): "not json"');
    await Promise.all([child.channel.close(), child.channel.close()]);
    await child.channel.close();
    expect(child.closes).toEqual(["the server exited with code 0"]);
    // It exited when its stdin closed: no signal was needed.
    expect(child.channel.exit).toEqual({ code: 0, signal: null });
  });

  test("a line over the cap is dropped with its edges, and the line after it arrives", async () => {
    const child = await started({ ...sh(`printf '%0100d\\n'; echo '${OK_LINE}'; cat >/dev/null`), maxLineBytes: 64 });
    await child.messagesUpTo(1);
    expect(child.errors).toHaveLength(1);
    const error = child.errors[0] as DroppedLineError;
    expect(error.kind).toBe("oversize");
    expect(error.message).toBe("dropped a 100-byte message from the server (over the 64-byte limit)");
    expect(error.head).toStartWith("0000");
    expect(child.messages.map(({ raw }) => raw)).toEqual([OK_LINE]);
  });

  const badByte = `printf '{"jsonrpc":"2.0","method":"m","params":{"s":"\\377"}}\\n'; cat >/dev/null`;

  test("a stray byte that is not UTF-8 does not cost the message it is in", async () => {
    const child = await started(sh(badByte));
    await child.messagesUpTo(1);
    expect(child.messages[0]!.message).toEqual({ jsonrpc: "2.0", method: "m", params: { s: "\uFFFD" } });
    expect(child.errors).toEqual([]);
  });

  test("forwarding: each line's bytes are handed on exactly as they came", async () => {
    const child = await started({ ...sh(badByte), forwarding: true });
    await child.messagesUpTo(1);
    const { message, raw } = child.messages[0]!;
    expect((message as { method: string }).method).toBe("m");
    expect(raw).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(raw as Uint8Array).equals(Buffer.from('{"jsonrpc":"2.0","method":"m","params":{"s":"\xff"}}', "latin1"))).toBe(true);
  });

  test("each message goes out as one line: a server that echoes its stdin sends them back whole", async () => {
    const child = await started(sh("exec cat"));
    await child.channel.send({ jsonrpc: "2.0", id: 1, result: { text: "a\nb" } });
    await child.channel.send({ jsonrpc: "2.0", id: 2, result: {} }, '{"jsonrpc":"2.0","id":2,"result":{}}');
    await child.messagesUpTo(2);
    expect(child.messages.map(({ message }) => message)).toEqual([
      { jsonrpc: "2.0", id: 1, result: { text: "a\nb" } },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });
});

describe("a server that ends or breaks on its own", () => {
  test("one that exits: closed with its code, its stderr kept, and nothing more can be sent", async () => {
    const child = await started(sh("echo boom >&2; exit 3"));
    expect(await child.closed).toBe("the server exited with code 3");
    expect(child.channel.exit).toEqual({ code: 3, signal: null });
    expect(child.channel.stderrTail).toBe("boom");
    await expect(child.channel.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow("the server's stdin is closed");
  });

  test("one killed by a signal: closed saying which", async () => {
    const child = await started(sh("kill -9 $$"));
    expect(await child.closed).toBe("the server was killed by SIGKILL");
  });

  test("one that closes its stdout and keeps running is a crashed server, after a moment to exit; then stopped", async () => {
    const clock = manualClock((ms) => ms === CLOSE_AFTER_EXIT_MS);
    const child = await started(sh("exec >&-; exec sleep 1000"));
    await clock.whenPending(CLOSE_AFTER_EXIT_MS); // a server that exits closes its stdout too: it gets that long to
    expect(child.closes).toEqual([]);
    clock.elapse();
    expect(await child.closed).toBe("the server closed its stdout but kept running");
    await child.channel.close();
    expect(child.channel.exit?.signal).toBe("SIGTERM"); // it could not hear its stdin close: no grace for that
  });

  test("one that stops reading its stdin and keeps running: closed at the first write refused, then stopped", async () => {
    const clock = manualClock((ms) => ms === CLOSE_AFTER_EXIT_MS);
    const child = await started(sh("exec <&-; echo deaf >&2; exec sleep 1000"));
    await child.saidOnStderr("deaf");
    // More than the kernel buffers: the write is refused (EPIPE), if not at once then as it is flushed.
    await child.channel.send({ jsonrpc: "2.0", method: "notifications/message", params: { data: "x".repeat(1 << 20) } }).catch(() => {});
    await clock.whenPending(CLOSE_AFTER_EXIT_MS); // the moment a server that is exiting gets
    expect(child.closes).toEqual([]);
    clock.elapse();
    expect(await child.closed).toBe("the server stopped reading its stdin but kept running");
    await child.channel.close();
    expect(child.channel.exit?.signal).toBe("SIGTERM");
    await expect(child.channel.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow(
      "the server stopped reading its stdin but kept running",
    );
  });
});

describe("shutting down: stdin closed, then SIGTERM, then SIGKILL, to the whole group", () => {
  /** Reports each step it sees on stderr, ignores SIGTERM, and leaves a grandchild in its group that ignores it too. */
  const stubborn = sh(
    "trap 'echo TERM >&2' TERM; sh -c 'trap \"\" TERM; exec sleep 1000' & echo \"grandchild $!\" >&2; " +
      "echo ready >&2; cat >/dev/null; echo stdin-eof >&2; while :; do wait; done",
  );
  const grandchildOf = (stderr: string[]) => Number(stderr.find((line) => line.startsWith("grandchild "))!.split(" ")[1]);

  test("each step comes only after the grace period of the one before, and SIGKILL ends the group", async () => {
    const clock = manualClock((ms) => ms === STDIN_CLOSE_GRACE_MS || ms === SIGTERM_GRACE_MS);
    const child = await started(stubborn);
    await child.saidOnStderr("ready");
    const pid = child.channel.pid!;
    const grandchild = grandchildOf(child.stderr);
    const closing = child.channel.close();

    await child.saidOnStderr("stdin-eof");
    expect(child.stderr).not.toContain("TERM");
    expect(clock.pending).toEqual([STDIN_CLOSE_GRACE_MS]);
    clock.elapse();

    await child.saidOnStderr("TERM");
    expect(clock.pending).toEqual([SIGTERM_GRACE_MS]);
    clock.elapse();

    await closing;
    expect(child.channel.exit?.signal).toBe("SIGKILL");
    expect(child.closes).toEqual(["the server was killed by SIGKILL"]);
    expect(processAlive(pid)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
  });

  test("a quick close asked for while a normal one waits cuts the wait short, and takes the quick steps", async () => {
    const held = [STDIN_CLOSE_GRACE_MS, SIGTERM_GRACE_MS, QUICK_GRACE_MS];
    const clock = manualClock((ms) => held.includes(ms));
    // The same steps seen, in one process (no grandchild to wait for).
    const child = await started(
      bunE(
        'process.on("SIGTERM", () => console.error("TERM")); process.stdin.on("end", () => console.error("stdin-eof")); ' +
          'process.stdin.resume(); console.error("ready"); setInterval(() => {}, 1e9);',
      ),
    );
    await child.saidOnStderr("ready");
    const normal = child.channel.close();
    await clock.whenPending(STDIN_CLOSE_GRACE_MS);
    const quick = child.channel.close({ quick: true });
    expect(quick).toBe(normal); // the same shutdown, hurried
    await clock.whenPending(QUICK_GRACE_MS);
    expect(clock.pending).toEqual([QUICK_GRACE_MS]); // the normal wait was cut, not run out
    expect(child.stderr).not.toContain("TERM");
    clock.elapse();
    await child.saidOnStderr("TERM");
    await clock.whenPending(QUICK_GRACE_MS);
    clock.elapse();
    await quick;
    expect(child.channel.exit?.signal).toBe("SIGKILL");
  });

  test("what a server leaves behind in its group is swept when it exits", async () => {
    const child = await started(sh('sleep 1000 & echo "grandchild $!" >&2; echo ready >&2; cat >/dev/null'));
    await child.saidOnStderr("ready");
    const grandchild = grandchildOf(child.stderr);
    await child.channel.close();
    expect(child.channel.exit).toEqual({ code: 0, signal: null });
    expect(processAlive(grandchild)).toBe(false);
  });

  test("discard: a server nobody wrote to gets SIGTERM at once, with no grace for its stdin", async () => {
    manualClock((ms) => ms === STDIN_CLOSE_GRACE_MS); // a wait for its stdin would never end
    const child = await started(sh("echo ready >&2; exec sleep 1000"));
    await child.saidOnStderr("ready");
    await child.channel.discard();
    expect(child.channel.exit?.signal).toBe("SIGTERM");
  });
});
