// One run of mcp-proxy between our stdin/stdout (the client) and the server: the client's lines
// read as the bytes that came, answers written with a bound, the watcher and builder wired to
// restarts. At the end of input every answer still owed is awaited and written first; a signal,
// or a client that stops reading for good, ends it at once.

import { EXIT } from "../lib/cli/exit-codes.ts";
import { errorLine } from "../lib/cli/fail.ts";
import { createLogger } from "../lib/io/log.ts";
import { readChunks } from "../lib/io/reading.ts";
import { stdinSource, stdoutSink } from "../lib/io/runtime.ts";
import { onExitSignals } from "../lib/io/signals.ts";
import { ownStderr } from "../lib/io/stderr.ts";
import { openChannel } from "../lib/open.ts";
import { describeTarget } from "../lib/targets/target.ts";
import { CutThroughSplitter } from "../lib/wire/cut-through.ts";
import { FORWARD_BUFFER_BYTES } from "../lib/wire/limits.ts";
import { LineWriter } from "../lib/wire/line-writer.ts";
import { MAX_LINE_BYTES } from "../lib/wire/lines.ts";
import { McpProxy } from "./core.ts";
import { watchForRebuilds } from "./rebuild.ts";
import type { Settings } from "./settings.ts";

/** Runs the proxy until the client goes away; resolves with the exit code. */
export async function runProxy(settings: Settings): Promise<number> {
  const log = createLogger({ level: settings.logLevel, file: settings.logFile, tag: "mcp-proxy" });
  const target = settings.target;
  const stdout = stdoutSink();
  const toClient = new LineWriter(stdout, { bufferBytes: FORWARD_BUFFER_BYTES });
  const stderr = ownStderr();
  const inputEnded = Promise.withResolvers<void>();
  const clientGone = Promise.withResolvers<void>();
  const signalled = Promise.withResolvers<number>();
  let signalCode: number | undefined;
  let recorder: import("./record.ts").Recorder | undefined;
  if (settings.record) {
    const { Recorder } = await import("./record.ts");
    const opened = Recorder.open(settings.record.file, settings.record.maxBytes, target, log);
    if (!opened.ok) {
      stderr.write(errorLine(opened.error));
      return EXIT.usage;
    }
    recorder = opened.value;
    // What the client is sent, as it is sent: every line goes through this one writer.
    const write = toClient.write.bind(toClient);
    toClient.write = (line) => {
      recorder?.message("server", line);
      return write(line);
    };
    // A recording needs every line whole: nothing is cut through toward the client either.
    toClient.openLine = () => undefined;
  }
  onExitSignals((_signal, code) => {
    signalCode ??= code;
    signalled.resolve(code);
  });

  // The client's lines, as the bytes that arrived (UTF-8 or not: the server answers what it gets);
  // a long one goes on as it comes when the proxy need not read it whole (cut-through), unless the
  // session is recorded, which needs every line whole.
  const splitter = new CutThroughSplitter({
    online: (line) => (recorder?.message("client", line), proxy.fromClient(line)),
    onlong: (head) => (recorder ? undefined : proxy.longFromClient(head)),
    onerror: (error) => {
      log.warn(`dropped a ${error.bytes}-byte line from the client (${error.kind})`);
      if (error.kind === "oversize") proxy.refuseOversize(error.head, error.tail, error.bytes, MAX_LINE_BYTES);
    },
  });
  const stdin = stdinSource();
  const input = readChunks(stdin, {
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

  const stopWatching = watchForRebuilds(
    settings,
    target.kind === "stdio" ? (target.cwd ?? process.cwd()) : process.cwd(),
    () => [proxy],
    log,
  );

  // A client that stops reading for good (EPIPE) is a client that left: no answer can reach it.
  stdout.onfailure = () => clientGone.resolve();

  void proxy.start();
  const interrupted = Promise.race([signalled.promise, clientGone.promise]);
  const ending = await Promise.race([inputEnded.promise.then(() => "end of input" as const), interrupted]);
  input.pause("ended");
  stopWatching();
  if (ending === "end of input") {
    // Every answer still owed is written before the server stops; a signal cuts this short.
    await Promise.race([proxy.drain(settings.drainTimeoutMs).then(() => toClient.flushed()), interrupted]);
  }
  await proxy.close({ quick: signalCode !== undefined });
  stdin.destroy();
  recorder?.close();
  return signalCode ?? 0;
}
