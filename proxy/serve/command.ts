// `mcp-proxy serve`'s command line: its flags and help, and the run they start.
import { type CommandDef, defineCommand } from "citty";
import type { Invocation } from "../../lib/cli/argv.ts";
import { fail } from "../../lib/cli/fail.ts";
import { withExamples } from "../../lib/cli/help.ts";
import { readServeSettings, SERVE_ARGS } from "./settings.ts";

/** After serve is done, how long a lingering handle may keep the process alive. */
const EXIT_GRACE_MS = 200;

export function serveCommand(invocation: Invocation, version: string): CommandDef<typeof SERVE_ARGS> {
  const command = defineCommand({
    meta: {
      name: "mcp-proxy serve",
      version,
      description:
        "Puts a stdio MCP server on Streamable HTTP at /mcp, for any number of HTTP clients: each 2025-11-25 session gets its own " +
        "server process (a stateful server keeps every client's state apart), 2026-07-28 requests share one. Hot reload, restart_server " +
        "and nothing lost across restarts, as in the stdio proxy. Loopback by default; another --host needs --token-env.",
    },
    args: SERVE_ARGS,
    async run({ args }) {
      const settings = await readServeSettings(args as Record<string, unknown>, invocation);
      if (!settings.ok) {
        fail(settings.error);
        return;
      }
      const { runServe } = await import("./run.ts");
      process.exitCode = await runServe(settings.value);
      setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
    },
  });
  return withExamples(command, [
    "mcp-proxy serve -- node server.js",
    "mcp-proxy serve --port 3000 --watch src -- node dist/server.js",
    "MCP_TOKEN=$(openssl rand -hex 16) mcp-proxy serve --host 0.0.0.0 --port 3000 --token-env MCP_TOKEN -- python server.py",
    "mcp-proxy serve --server my-server   (a stdio server from a client's config)",
    "then: mcp-inspect list-tools --url http://127.0.0.1:3000/mcp",
  ]);
}
