#!/usr/bin/env bun
// mcpkit: all the tools in one executable. A bun runtime is ~100 MB, so a release ships one binary
// per OS and installs the tool names as links to it; the binary runs the tool it was invoked as
// (`mcp-proxy ...`), or the one named first (`mcpkit mcp-proxy ...`, or as reloaderoo names them,
// `mcpkit proxy ...` and `mcpkit inspect ...`). Only that tool is loaded.
import { SERVE_REFERENCE_ENV } from "./host/serve-reference.ts";
import pkg from "./package.json" with { type: "json" };

type Tool = { run(argv: string[]): Promise<void> };
const TOOLS: Record<string, () => Promise<Tool>> = {
  "mcp-inspect": () => import("./mcp-inspect.ts"),
  "mcp-proxy": () => import("./mcp-proxy.ts"),
  "mcp-daemon": () => import("./mcp-daemon.ts"),
  "mcp-host": () => import("./mcp-host.ts"),
};
/** reloaderoo's words, so its users move over by changing one: `reloaderoo proxy` -> `mcpkit proxy`. */
const ALIASES: Record<string, string> = { inspect: "mcp-inspect", proxy: "mcp-proxy", daemon: "mcp-daemon", host: "mcp-host" };

const USAGE = `mcpkit ${pkg.version}: MCP command-line tools in one binary.

Usage: mcpkit <tool> [args]   (or run it through a link named after the tool)

Tools:
  mcp-inspect (inspect)   an MCP client on the command line, and an MCP server of inspection tools
  mcp-proxy (proxy)       a transparent, hot-reloading proxy between an MCP client and your server
  mcp-daemon (daemon)     keeps stateful MCP sessions alive across command-line calls
  mcp-host (host)         a chat host for MCP servers with every client feature (keyless tour: mcp-host)

Examples:
  mcpkit mcp-inspect list-tools -- node server.js
  mcpkit proxy --watch src -- node server.js
  mcp-proxy --watch src -- node server.js
`;

/** The last component of a path. Not node:path's basename: its first call cost every start ~1 ms. */
function fileName(path: string): string {
  const separators = process.platform === "win32" ? /[\\/]/ : /\//;
  return path.split(separators).at(-1) ?? path;
}

/** The tool to run and its arguments: from the name we were invoked by, else from the first argument. */
function chooseTool(argv: string[]): { tool: string; args: string[] } | undefined {
  if (process.env[SERVE_REFERENCE_ENV] === "1") return { tool: "mcp-host", args: argv };
  const invoked = fileName(process.argv0 || process.execPath).replace(/\.exe$/i, "");
  if (Object.hasOwn(TOOLS, invoked)) return { tool: invoked, args: argv };
  const named = argv[0] === undefined ? undefined : (ALIASES[argv[0]] ?? argv[0]);
  if (named !== undefined && Object.hasOwn(TOOLS, named)) return { tool: named, args: argv.slice(1) };
  return undefined;
}

const argv = process.argv.slice(2);
const chosen = chooseTool(argv);
if (chosen) {
  // mcp-inspect's server starts before the rest of mcp-inspect loads, so the two start-ups overlap.
  if (chosen.tool === "mcp-inspect") await (await import("./inspect/early-server.ts")).startEarly(chosen.args);
  (await import("./lib/io/runtime.ts")).normalJitAfterStartUp();
  await (await TOOLS[chosen.tool]!()).run(chosen.args);
} else {
  const first = argv[0];
  // Through Bun, not process.stdout: its first touch builds a node stream, most of a --version's time.
  const { writeStdout } = await import("./lib/io/runtime.ts");
  if (first === "--version" || first === "-v") writeStdout(`${pkg.version}\n`);
  else if (first === undefined || first === "--help" || first === "-h") writeStdout(USAGE);
  else {
    const { fail } = await import("./lib/cli/fail.ts");
    fail(`unknown tool ${JSON.stringify(first)} (tools: ${Object.keys(TOOLS).join(", ")}; see mcpkit --help)`);
  }
}
