#!/usr/bin/env bun
// mcpkit: all the tools in one executable. A bun runtime is ~100 MB, so a release ships one binary
// per OS and installs the tool names as links to it; the binary runs the tool it was invoked as
// (`mcp-proxy ...`), or the one named first (`mcpkit mcp-proxy ...`). Only that tool is loaded.
import { basename } from "node:path";
import pkg from "./package.json" with { type: "json" };

const TOOLS: Record<string, () => Promise<unknown>> = {
  "mcp-inspect": () => import("./mcp-inspect.ts"),
  "mcp-proxy": () => import("./mcp-proxy.ts"),
  "mcp-daemon": () => import("./mcp-daemon.ts"),
  "mcp-host": () => import("./mcp-host.ts"),
};
/** mcp-host runs its built-in reference server as this same binary, marked by this variable. */
const SERVE_REFERENCE_ENV = "MCPKIT_SERVE_REFERENCE";

const USAGE = `mcpkit ${pkg.version}: MCP command-line tools in one binary.

Usage: mcpkit <tool> [args]   (or run it through a link named after the tool)

Tools:
  mcp-inspect   an MCP client on the command line, and an MCP server of inspection tools
  mcp-proxy     a transparent, hot-reloading proxy between an MCP client and your server
  mcp-daemon    keeps stateful MCP sessions alive across command-line calls
  mcp-host      a chat host for MCP servers with every client feature (keyless tour: mcp-host)

Examples:
  mcpkit mcp-inspect list-tools -- node server.js
  mcp-proxy --watch src -- node server.js
`;

/** The tool this process should be: from the name it was invoked by, else from its first argument. */
function chooseTool(): string | undefined {
  const invoked = basename(process.argv0 || process.execPath).replace(/\.exe$/i, "");
  if (Object.hasOwn(TOOLS, invoked)) return invoked;
  const named = process.argv[2];
  if (named !== undefined && Object.hasOwn(TOOLS, named)) {
    // The tool reads its own arguments from process.argv, as if it had been invoked directly.
    process.argv.splice(2, 1);
    return named;
  }
  return undefined;
}

const tool = process.env[SERVE_REFERENCE_ENV] === "1" ? "mcp-host" : chooseTool();
if (tool) {
  await TOOLS[tool]!();
} else {
  const first = process.argv[2];
  if (first === "--version" || first === "-v") process.stdout.write(`${pkg.version}\n`);
  else if (first === undefined || first === "--help" || first === "-h") process.stdout.write(USAGE);
  else {
    process.stderr.write(`error: unknown tool ${JSON.stringify(first)} (tools: ${Object.keys(TOOLS).join(", ")}; see mcpkit --help)\n`);
    process.exitCode = 1;
  }
}
