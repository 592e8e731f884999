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
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { waitMs } from "../../lib/io/reading.ts";
import { wholeLines } from "../../lib/io/whole-lines.ts";
import { createReferenceHttpHandler, routed, serveFetch } from "./http.ts";
import { createReferenceServer } from "./server.ts";
import { withTasks } from "./tasks.ts";

// The SDK caps a stdio message at 10 MB by default; proxy tests send 20 MB each way.
const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Serves the reference server on stdio, or over HTTP with `--http PORT` in argv. */
export async function runReferenceServer() {
  const delay = Number(process.env.FIXTURE_STARTUP_DELAY_MS ?? 0);
  if (delay > 0) await waitMs(delay, new AbortController().signal);

  const argv = process.argv.slice(2);
  const httpAt = argv.indexOf("--http");
  if (httpAt === -1) {
    const transport = new StdioServerTransport(wholeLines(process.stdin, { maxLineBytes: MAX_STDIO_MESSAGE_BYTES }), process.stdout, {
      maxBufferSize: MAX_STDIO_MESSAGE_BYTES + 1,
    });
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
