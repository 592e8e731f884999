// `mcp-inspect auth`: sign in to an OAuth server now (inspect/auth.ts), --logout, --list.
import { type CommandDef, defineCommand } from "citty";
import { withExamples } from "../../lib/cli/help.ts";
import { onExitSignals } from "../../lib/io/signals.ts";
import { describeTarget } from "../../lib/targets/target.ts";
import { AUTH_COMMAND_ARGS } from "../command-flags.ts";
import { type Args, channelAuth, checkTarget, type Invocation, usageProblem, wantsJson } from "../invocation.ts";
import { CommandError, EXIT } from "../output.ts";
import { reporter } from "../report.ts";

export function authCommand(invocation: Invocation): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "auth",
      description:
        "Sign in to an OAuth server now and keep its tokens in ~/.mcpkit/auth (MCPKIT_AUTH_DIR), for every tool and later call; " +
        "--logout revokes and forgets them; --list shows what is stored.",
    },
    args: AUTH_COMMAND_ARGS,
    run: ({ args }) => runAuth(args as Args, invocation),
  });
  return withExamples(command, [
    "mcp-inspect auth --url https://mcp.example.com/mcp",
    "mcp-inspect auth --config ~/.cursor/mcp.json --server linear",
    "mcp-inspect auth --url https://mcp.example.com/mcp --no-browser      # over SSH: paste the redirect URL back",
    "mcp-inspect auth --url https://mcp.example.com/mcp --client-id my-app --client-secret-env MY_APP_SECRET",
    "mcp-inspect auth --list",
    "mcp-inspect auth --logout --url https://mcp.example.com/mcp",
  ]);
}

async function runAuth(args: Args, invocation: Invocation): Promise<void> {
  const json = wantsJson(args);
  const report = reporter(args.list ? "auth --list" : args.logout ? "auth --logout" : "auth", json);
  const failed = (error: CommandError) => report.fail(error);
  const done = (data: unknown, target?: string) => {
    if (target !== undefined) report.target = target;
    report.succeed(data, (shown) => `${JSON.stringify(shown, null, 2)}\n`);
  };
  const problem = usageProblem(args, AUTH_COMMAND_ARGS, invocation);
  if (problem) return failed(new CommandError(EXIT.usage, problem));
  const { listSignIns, logout, signIn } = await import("../auth.ts");
  const interrupted = new AbortController();
  let signalCode: number | undefined;
  try {
    if (args.list) return done(listSignIns());
    const target = await checkTarget(args, invocation);
    if (!target.ok) return failed(new CommandError(EXIT.usage, target.error));
    if (target.value.kind !== "http")
      return failed(new CommandError(EXIT.usage, "auth is for HTTP servers (give --url, or a --config entry with a url)"));
    const auth = channelAuth(args, "ask");
    if (!auth.ok) return failed(new CommandError(EXIT.usage, auth.error));
    // Ctrl-C (SIGTERM, SIGHUP) ends the wait for the browser, and the listener with it.
    onExitSignals((signal, code) => {
      signalCode = code;
      interrupted.abort(new Error(`interrupted by ${signal}`));
    });
    auth.value.signal = interrupted.signal;
    const shown = describeTarget(target.value);
    if (args.logout) return done(await logout(target.value, auth.value), shown);
    done(await signIn(target.value, auth.value), shown);
  } catch (error) {
    if (error instanceof CommandError && signalCode === undefined) return failed(error);
    failed(new CommandError(signalCode ?? EXIT.auth, (error as Error).message));
  }
}
