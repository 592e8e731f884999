// `mcp-inspect mcp`: the target's inspection as a stdio MCP server (inspect/mcp-mode.ts).
import { type CommandDef, defineCommand } from "citty";
import { fail } from "../../lib/cli/fail.ts";
import { withExamples } from "../../lib/cli/help.ts";
import type { Target } from "../../lib/targets/target.ts";
import { MCP_ARGS } from "../command-flags.ts";
import { type Args, checkTarget, type Invocation, logLevelOf, timeoutOf, usageProblem } from "../invocation.ts";

export function mcpCommand(invocation: Invocation, version: string): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "mcp",
      description:
        "Run as a stdio MCP server whose tools inspect the target: list_tools, call_tool, list_resources, list_resource_templates, " +
        "read_resource, list_prompts, get_prompt, complete, get_server_info, ping, get_task, get_task_result, cancel_task. " +
        "One connection to the target is kept across calls; each tool does what the command of the same name does.",
    },
    args: MCP_ARGS,
    async run({ args }) {
      const parsed = args as Args;
      const target = await checkTarget(parsed, invocation);
      const problem = usageProblem(parsed, MCP_ARGS, invocation) ?? (target.ok ? undefined : target.error);
      if (problem || !target.ok) {
        fail(problem ?? "");
        return;
      }
      const { serveInspector } = await import("../mcp-mode.ts");
      process.exitCode = await serveInspector(withClientEnvironment(target.value, invocation), {
        version,
        timeoutMs: timeoutOf(parsed, target.value),
        protocolVersion: parsed["protocol-version"],
        logLevel: logLevelOf(parsed),
        logFile: parsed["log-file"],
        stateful: Boolean(parsed.stateful),
      });
    },
  });
  return withExamples(command, [
    "mcp-inspect mcp -- node server.js",
    "mcp-inspect mcp node server.js                          # as Gemini CLI's mcp add writes it",
    "mcp-inspect mcp --url http://127.0.0.1:3000/mcp",
    `{ "mcpServers": { "inspect-mine": { "command": "mcp-inspect", "args": ["mcp", "--", "node", "/path/to/server.js"] } } }`,
  ]);
}

/**
 * A server given as a command line gets our whole environment, as mcp-proxy's does (DESIGN.md,
 * "Environment"): the client started us with the `env` its entry sets, meant for that server.
 */
function withClientEnvironment(target: Target, invocation: Invocation): Target {
  if (target.kind !== "stdio" || invocation.command.length === 0) return target;
  const inherited = Object.fromEntries(Object.entries(process.env).filter((pair): pair is [string, string] => pair[1] !== undefined));
  return { ...target, env: { ...inherited, ...target.env } };
}
