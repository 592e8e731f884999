/**
 * Runs the reference server (server.ts):
 *
 *   bun host/reference/main.ts               # stdio
 *   bun host/reference/main.ts --http PORT   # Streamable HTTP on 127.0.0.1:PORT/mcp (0 = any free port)
 *   bun host/reference/main.ts --http PORT --stateless
 *
 * On stdio, `serveStdio` answers 2026-07-28 requests and pins a 2025 connection to a legacy
 * instance; HTTP is http.ts. mcp-host embeds it (run again with MCPKIT_SERVE_REFERENCE=1).
 *
 * Env: FIXTURE_STARTUP_DELAY_MS sleeps before serving.
 */

import process from "node:process";
import { PassThrough, type Readable } from "node:stream";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { waitMs } from "../../lib/io/reading.ts";
import { ByteLineSplitter } from "../../lib/wire/lines.ts";
import { createReferenceHttpHandler, routed, serveFetch } from "./http.ts";
import { createReferenceServer } from "./server.ts";
import { withTasks } from "./tasks.ts";

// The SDK caps a stdio message at 10 MB by default; proxy tests send 20 MB each way.
const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;
const NEWLINE = new Uint8Array([0x0a]);

/**
 * stdin as one chunk per whole line, for the SDK's transport: its buffer joins each chunk to all it holds and
 * searches it again from the start, so a 40 MB line arriving in 64 KB pieces cost seconds of copying; the splitter
 * joins a line once. A line over the cap ends the stream with an error, as the SDK's own cap does.
 */
function wholeLines(input: Readable): Readable {
  const lines = new PassThrough();
  const splitter = new ByteLineSplitter((line) => lines.write(Buffer.concat([line, NEWLINE])), {
    maxLineBytes: MAX_STDIO_MESSAGE_BYTES,
    validateUtf8: false,
    chunksAreOwned: true,
    onerror: (error) => lines.destroy(new Error(`a message of ${error.bytes} bytes is over the ${MAX_STDIO_MESSAGE_BYTES} cap`)),
  });
  input.on("data", (chunk: Buffer) => splitter.push(chunk));
  input.on("end", () => {
    splitter.end();
    lines.end();
  });
  input.on("error", (error) => lines.destroy(error));
  // The transport pauses its stdin when it closes, so that a server with nothing else to do exits.
  lines.on("pause", () => input.pause());
  lines.on("close", () => input.pause());
  lines.on("resume", () => input.resume());
  return lines;
}

/** Serves the reference server on stdio, or over HTTP with `--http PORT` in argv. */
export async function runReferenceServer() {
  const delay = Number(process.env.FIXTURE_STARTUP_DELAY_MS ?? 0);
  if (delay > 0) await waitMs(delay, new AbortController().signal);

  const argv = process.argv.slice(2);
  const httpAt = argv.indexOf("--http");
  if (httpAt === -1) {
    const transport = new StdioServerTransport(wholeLines(process.stdin), process.stdout, { maxBufferSize: MAX_STDIO_MESSAGE_BYTES + 1 });
    serveStdio((ctx) => createReferenceServer(ctx), {
      transport: withTasks(transport),
      onerror: (e) => process.stderr.write(`[reference-server] ${e.message}\n`),
    });
    return;
  }
  const port = Number(argv[httpAt + 1] ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`[reference-server] invalid port: ${argv[httpAt + 1]}\n`);
    process.exit(1);
  }
  const handler = createReferenceHttpHandler({ stateless: argv.includes("--stateless") });
  const address = (await serveFetch(routed(handler.fetch), port)).address();
  const bound = typeof address === "object" && address ? address.port : port;
  process.stderr.write(`listening http://127.0.0.1:${bound}/mcp\n`);
  const stop = () => void handler.close().finally(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (import.meta.main) await runReferenceServer();
