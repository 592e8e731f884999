// `mcp-inspect servers`: every configured server (inspect/servers.ts lists them), --approve NAME.
import { type CommandDef, defineCommand } from "citty";
import { withExamples } from "../../lib/cli/help.ts";
import { SERVERS_ARGS } from "../command-flags.ts";
import { type Args, type Invocation, usageProblem, wantsJson } from "../invocation.ts";

export function serversCommand(invocation: Invocation): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "servers",
      description:
        "List every MCP server configured for this user and project (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, " +
        "Gemini CLI): file, client, scope, transport, env and header names (never values), approval, sign-in. Exit 9 when there are " +
        "none.",
    },
    args: SERVERS_ARGS,
    async run({ args }) {
      const parsed = args as Args;
      const stray =
        parsed._[0] === undefined
          ? undefined
          : `unexpected argument ${JSON.stringify(parsed._[0])} (servers takes no arguments; --approve NAME approves one)`;
      const { runServers } = await import("../servers.ts");
      process.exitCode = await runServers({
        approve: parsed.approve as string | undefined,
        json: wantsJson(parsed),
        problem: usageProblem(parsed, SERVERS_ARGS, invocation) ?? stray,
      });
    },
  });
  return withExamples(command, [
    "mcp-inspect servers",
    "mcp-inspect servers --json",
    "mcp-inspect servers --approve github",
    "mcp-inspect list-tools --server github        # a listed server, by name",
  ]);
}
