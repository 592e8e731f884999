// `mcp-inspect test`: the checks any server must pass (inspect/checks/), against one target, told
// as one envelope (data.checks), as text, and as JUnit XML; exit 10 when a check of error
// severity fails that --baseline does not name.
import { type CommandDef, defineCommand } from "citty";
import { withExamples } from "../../lib/cli/help.ts";
import { onExitSignals } from "../../lib/io/signals.ts";
import { describeTarget } from "../../lib/targets/target.ts";
import { atTerminal } from "../../lib/terminal/asker.ts";
import { failed, type Result } from "../../lib/wire/result.ts";
import { readParams } from "../arguments.ts";
import type { Named } from "../checks/calls.ts";
import { failed as checksFailed } from "../checks/model.ts";
import { TEST_ARGS } from "../command-flags.ts";
import { type Args, channelAuth, checkTarget, type Invocation, timeoutOf, usageProblem, wantsJson } from "../invocation.ts";
import { CommandError, classify, EXIT } from "../output.ts";
import { reporter } from "../report.ts";

export function testCommand(invocation: Invocation, version: string): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "test",
      description:
        "Check that a server does what any MCP server must: clean stdout, valid schemas and tool names, errors, pagination, ping, " +
        "cancellation, 20 requests at once, resources, prompts, completion, shutdown, and over HTTP sessions and Origin. Each check " +
        "names its spec clause, severity and status. Only readOnlyHint tools that need no input are called, and those named with --call. " +
        "--conformance adds the official suite's server scenarios, one check each. Exit 10 when a check of error severity fails.",
    },
    args: TEST_ARGS,
    run: ({ args }) => runTest(args as Args, invocation, version),
  });
  return withExamples(command, [
    "mcp-inspect test -- node server.js",
    `mcp-inspect test --call search --params '{"q":"x"}' --prompt greet --params '{"name":"a"}' -- node server.js`,
    "mcp-inspect test --json --junit checks.xml --url http://127.0.0.1:3000/mcp",
    "mcp-inspect test --baseline known-failures.json -- node server.js",
    "mcp-inspect test --conformance --node ~/.nvm/versions/node/v24.0.0/bin/node -- python server.py",
  ]);
}

async function runTest(args: Args, invocation: Invocation, version: string): Promise<void> {
  const target = await checkTarget(args, invocation);
  const report = reporter("test", wantsJson(args), target.ok ? describeTarget(target.value) : "");
  const fail = (error: CommandError, data?: unknown) => report.fail(error, data);
  const usage = usageProblem(args, TEST_ARGS, invocation) ?? (target.ok ? undefined : target.error);
  if (usage || !target.ok) return fail(new CommandError(EXIT.usage, usage ?? ""));
  const named = await namedCalls(invocation.rawArgs);
  if (!named.ok) return fail(new CommandError(EXIT.usage, named.error));
  let known: string[] | undefined;
  const { applyBaseline, checksText, junitXml, readBaseline } = await import("../checks/report.ts");
  if (typeof args.baseline === "string") {
    const read = await readBaseline(args.baseline);
    if (!read.ok) return fail(new CommandError(EXIT.usage, read.error));
    known = read.value;
  }
  const auth = channelAuth(args, atTerminal() ? "ask" : "no");
  if (!auth.ok) return fail(new CommandError(EXIT.usage, auth.error));
  const suite = args.conformance ? await conformanceSuite(args) : undefined;
  if (suite && !suite.ok) return fail(suite.error);
  // A signal stops the server (quickly) and ends the run with its code.
  const interrupted = new AbortController();
  onExitSignals((signal, code) => interrupted.abort(new CommandError(code, `interrupted by ${signal === "SIGINT" ? "Ctrl-C" : signal}`)));
  const { runChecks } = await import("../checks/run.ts");
  let run: Awaited<ReturnType<typeof runChecks>>;
  try {
    run = await runChecks({
      target: target.value,
      version,
      timeoutMs: timeoutOf(args, target.value),
      protocolVersion: args["protocol-version"],
      auth: auth.value,
      signal: interrupted.signal,
      ...named.value,
    });
    if (suite?.ok) {
      const { runConformance } = await import("../conformance/run.ts");
      run.checks.push(...(await runConformance({ target: target.value, ...suite.value, signal: interrupted.signal })));
    }
  } catch (error) {
    return fail(classify(interrupted.signal.aborted ? interrupted.signal.reason : error));
  }
  if (interrupted.signal.aborted) return fail(interrupted.signal.reason);
  const checks = known ? applyBaseline(run.checks, known) : run.checks;
  report.protocolVersion = run.protocolVersion;
  const data = { checks, ...(run.serverInfo ? { serverInfo: run.serverInfo } : {}) };
  if (typeof args.junit === "string") {
    const { replaceFile } = await import("../../lib/io/replace-file.ts");
    const written = replaceFile(args.junit, junitXml(checks, report.target, report.metadata().durationMs), 0o600);
    if (!written.ok) return fail(new CommandError(EXIT.usage, written.error), data);
  }
  const text = () => checksText(checks);
  if (!checksFailed(checks)) return report.succeed(data, text);
  const failing = checks.filter((c) => c.status === "fail" && c.severity === "error" && !c.known).map((c) => c.id);
  report.fail(
    new CommandError(EXIT.checksFailed, `${failing.length} check(s) of error severity failed: ${failing.join(", ")}`),
    data,
    text,
  );
}

/** The node and the installed suite --conformance runs: found and installed before any check runs. */
async function conformanceSuite(args: Args): Promise<Result<{ node: string; suite: string }, CommandError>> {
  const { findNode, installedSuite } = await import("../conformance/suite.ts");
  const node = await findNode(typeof args.node === "string" ? args.node : undefined);
  if (!node.ok) return failed(new CommandError(EXIT.usage, node.error));
  const suite = await installedSuite();
  if (!suite.ok) return failed(new CommandError(EXIT.connection, suite.error));
  return { ok: true, value: { node: node.value, suite: suite.value } };
}

/** --call NAME and --prompt NAME in argv's order, each with the --params that follows it (before the next name). */
async function namedCalls(argv: string[]): Promise<Result<{ calls: Named[]; prompts: Named[] }>> {
  const calls: Named[] = [];
  const prompts: Named[] = [];
  let last: Named | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.startsWith("--") && argv[i]!.includes("=") ? argv[i]!.split(/=(.*)/s) : [argv[i]!, undefined];
    if (flag !== "--call" && flag !== "--prompt" && flag !== "--params") continue;
    const value = inline ?? argv[++i];
    if (value === undefined) return { ok: false, error: `${flag} needs a value` };
    if (flag === "--params") {
      if (!last) return { ok: false, error: "--params goes after the --call NAME or --prompt NAME it is for" };
      if (Object.keys(last.params).length > 0) return { ok: false, error: `two --params for ${last.name}` };
      const read = await readParams(value);
      if (!read.ok) return read;
      last.params = read.value;
      continue;
    }
    last = { name: value, params: {} };
    (flag === "--call" ? calls : prompts).push(last);
  }
  return { ok: true, value: { calls, prompts } };
}
