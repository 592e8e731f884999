// One run of mcp-proxy between our stdin/stdout (the client) and the server: the client's lines
// read as the bytes that came, answers written with a bound, the watcher and builder wired to
// restarts. At the end of input every answer still owed is awaited and written first; a signal,
// or a client that stops reading for good, ends it at once.

import { createLogger, ownStderr } from "../lib/io/log.ts";
import { readChunks } from "../lib/io/reading.ts";
import { stdoutSink } from "../lib/io/runtime.ts";
import { onExitSignals } from "../lib/io/signals.ts";
import { openChannel } from "../lib/open.ts";
import { describeTarget } from "../lib/targets/target.ts";
import { CutThroughSplitter } from "../lib/wire/cut-through.ts";
import { LineWriter } from "../lib/wire/line-writer.ts";
import { MAX_LINE_BYTES } from "../lib/wire/lines.ts";
import { McpProxy } from "./core.ts";
import { rebuilder } from "./rebuild.ts";
import type { Settings } from "./settings.ts";
import { Builder, startWatching } from "./watch.ts";

/** Runs the proxy until the client goes away; resolves with the exit code. */
export async function runProxy(settings: Settings): Promise<number> {
  const log = createLogger({ level: settings.logLevel, file: settings.logFile, tag: "mcp-proxy" });
  const target = settings.target;
  const stdout = stdoutSink();
  const toClient = new LineWriter(stdout);
  const stderr = ownStderr();
  const inputEnded = Promise.withResolvers<void>();
  const clientGone = Promise.withResolvers<void>();
  const signalled = Promise.withResolvers<number>();
  let signalCode: number | undefined;
  onExitSignals((_signal, code) => {
    signalCode ??= code;
    signalled.resolve(code);
  });

  // The client's lines, as the bytes that arrived (UTF-8 or not: the server answers what it gets);
  // a long one goes on as it comes when the proxy need not read it whole (cut-through).
  const splitter = new CutThroughSplitter({
    online: (line) => proxy.fromClient(line),
    onlong: (head) => proxy.longFromClient(head),
    onerror: (error) => {
      log.warn(`dropped a ${error.bytes}-byte line from the client (${error.kind})`);
      if (error.kind === "oversize") proxy.refuseOversize(error.head, error.tail, error.bytes, MAX_LINE_BYTES);
    },
  });
  const input = readChunks(process.stdin, {
    onchunk: (chunk) => splitter.push(chunk),
    onend: () => {
      splitter.end();
      inputEnded.resolve();
    },
  });

  const proxy = new McpProxy({
    connect: () =>
      openChannel(target, {
        forwarding: true,
        listen: true,
        inheritEnvironment: settings.inheritEnvironment,
        auth: settings.auth,
        onstderr: (line) => stderr.write(`[server] ${line}\n`),
      }),
    toClient,
    clientInput: input,
    log,
    restartTimeoutMs: settings.restartTimeoutMs,
    autoRestart: settings.autoRestart,
    maxRestarts: settings.maxRestarts,
    restartDelayMs: settings.restartDelayMs,
    resendsUnseen: target.kind === "http",
  });
  log.info(`proxying ${describeTarget(target)}`);

  const builder = settings.build
    ? new Builder(settings.build, target.kind === "stdio" ? (target.cwd ?? process.cwd()) : process.cwd())
    : undefined;
  const onchange = rebuilder({ proxy, builder, log, debounceMs: settings.debounceMs });
  const stopWatching =
    settings.watch.length > 0
      ? startWatching({
          patterns: settings.watch,
          cwd: process.cwd(),
          debounceMs: settings.debounceMs,
          onerror: (message) => log.warn(message),
          onignored: (path, why, pending) => log.debug(`ignored a change to ${path} (${why}; ${pending} change(s) pending)`),
          onchange: (paths) => void onchange(paths),
        })
      : () => {};

  // A client that stops reading for good (EPIPE) is a client that left: no answer can reach it.
  stdout.onfailure = () => clientGone.resolve();

  void proxy.start();
  const interrupted = Promise.race([signalled.promise, clientGone.promise]);
  const ending = await Promise.race([inputEnded.promise.then(() => "end of input" as const), interrupted]);
  input.pause("ended");
  stopWatching();
  builder?.stop();
  if (ending === "end of input") {
    // Every answer still owed is written before the server stops; a signal cuts this short.
    await Promise.race([proxy.drain(settings.drainTimeoutMs).then(() => toClient.flushed()), interrupted]);
  }
  await proxy.close({ quick: signalCode !== undefined });
  process.stdin.destroy();
  return signalCode ?? 0;
}
