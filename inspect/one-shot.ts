// The one-shot commands' one flow: each reads its input from its parsed flags (prepare: arguments,
// files, stdin, all before any server is asked), connects to one server, runs one operation
// (inspect/operations.ts), prints one result, then closes and exits with the code that says what
// happened. Nothing here loads citty: inspect/commands/one-shot.ts (argv through citty) and
// inspect/early-call.ts (argv as early-server read it) both end here.
import { McpError } from "../lib/client/raw-client.ts";
import { writeStdout } from "../lib/io/runtime.ts";
import { onExitSignals } from "../lib/io/signals.ts";
import { describeTarget, type Target } from "../lib/targets/target.ts";
import { atTerminal } from "../lib/terminal/asker.ts";
import { pairsToArguments, readParams } from "./arguments.ts";
import { earlyInterruption } from "./early-server.ts";
import { type OneShotName, TASK_ACTIONS } from "./flags.ts";
import { type Args, channelAuth, logLevelOf, requirePositional, taskStatusWriter, timeoutOf } from "./invocation.ts";
import * as operations from "./operations.ts";
import { CommandError, classify, EXIT, renderText } from "./output.ts";
import type { GivenAnswers } from "./questions.ts";
import type { Report } from "./report.ts";
import { type Call, openSession, Watchdog } from "./session.ts";
import { signature, type ToolLike } from "./signatures.ts";
import * as tasks from "./tasks.ts";

/** What a command does: `prepare` checks and reads everything local first; `act` then asks the server. */
interface OneShot<P> {
  prepare(args: Args, signal: AbortSignal, target: Target): Promise<P> | P;
  act(call: Call, prepared: P, target: Target): Promise<unknown>;
}

const nothing = () => undefined;
const plain = (act: (call: Call) => Promise<unknown>): OneShot<undefined> => ({ prepare: nothing, act });

const COMMANDS: { [N in OneShotName]: OneShot<any> } = {
  "list-tools": plain(operations.listTools),
  "list-resources": plain(operations.listResources),
  "list-resource-templates": plain(operations.listResourceTemplates),
  "list-prompts": plain(operations.listPrompts),
  "server-info": plain(operations.serverInfo),
  ping: plain(operations.ping),
  "call-tool": {
    async prepare(args, signal, target): Promise<operations.ToolCallInput> {
      const name = requirePositional(args, "tool name", "call-tool echo message=hi -- node server.js");
      const pairs = args._.slice(1);
      // The pairs' form is checked now; their types need the schema, so they are built later.
      const form = pairsToArguments(pairs, undefined);
      if (!form.ok) throw new CommandError(EXIT.usage, form.error);
      if (args.detach) requireLastingServer(args, target, "--detach");
      const mode: tasks.TaskMode = args.detach ? "detach" : args.task ? "wait" : "auto";
      const lasting = tasks.outlivesProcess(target, Boolean(args.stateful));
      return {
        name,
        base: await paramsOf(args, signal),
        pairs,
        validate: args.validate !== false,
        mode,
        lasting,
        onstatus: taskStatusWriter(args),
      };
    },
    act: operations.callTool,
  },
  "read-resource": {
    prepare: (args) => requirePositional(args, "resource URI", "read-resource ref://hello -- node server.js"),
    act: operations.readResource,
  },
  "get-prompt": {
    async prepare(args, signal) {
      const name = requirePositional(args, "prompt name", "get-prompt greet name=alice -- node server.js");
      // Prompt arguments are strings by the spec: no coercion.
      const built = pairsToArguments(args._.slice(1), undefined, await paramsOf(args, signal), { strings: true });
      if (!built.ok) throw new CommandError(EXIT.usage, built.error);
      return {
        name,
        values: Object.fromEntries(Object.entries(built.value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])),
      };
    },
    act: operations.getPrompt,
  },
  complete: {
    prepare(args) {
      if (Boolean(args.prompt) === Boolean(args.resource))
        throw new CommandError(EXIT.usage, "give exactly one of --prompt <name> or --resource <uri-template>");
      if (typeof args.argument !== "string") throw new CommandError(EXIT.usage, "--argument name=value is required");
      const equals = args.argument.indexOf("=");
      if (equals <= 0) throw new CommandError(EXIT.usage, `bad --argument ${JSON.stringify(args.argument)} (write name=value)`);
      let context: Record<string, string> | undefined;
      if (typeof args.context === "string") {
        const given = pairsToArguments(args.context.split(",").filter(Boolean), undefined, {}, { strings: true });
        if (!given.ok) throw new CommandError(EXIT.usage, given.error.replace("argument", "--context"));
        context = given.value as Record<string, string>;
      }
      return operations.completionParams({
        ...(args.prompt ? { prompt: String(args.prompt) } : { resource: String(args.resource) }),
        argument: { name: args.argument.slice(0, equals), value: args.argument.slice(equals + 1) },
        ...(context ? { context } : {}),
      });
    },
    act: operations.complete,
  },
  task: {
    prepare(args, _signal, target) {
      const action = args._[0] as tasks.TaskAction | undefined;
      if (!action || !TASK_ACTIONS.includes(action))
        throw new CommandError(
          EXIT.usage,
          `task needs one of ${TASK_ACTIONS.join(", ")} (e.g. mcp-inspect task get <id> --url http://127.0.0.1:3000/mcp)`,
        );
      const taskId = args._[1];
      if (!taskId)
        throw new CommandError(EXIT.usage, `missing the task's id (e.g. mcp-inspect task ${action} <id> --url http://127.0.0.1:3000/mcp)`);
      requireLastingServer(args, target, "task");
      return { action, taskId, onstatus: taskStatusWriter(args) };
    },
    act: operations.followTask,
  },
};

/**
 * The one-shot flow every command shares, once argv is read and the target known: prepare, connect,
 * act, print, then close and exit. `report` names the target already.
 */
export async function runOneShot(name: OneShotName, args: Args, target: Target, report: Report, version: string): Promise<void> {
  const { prepare, act } = COMMANDS[name];
  const text = (data: unknown) => `${renderText(name, data)}\n`;
  const fail = (error: CommandError, data?: unknown) => report.fail(error, data, text);

  // --timeout and signals cover everything from here on, reading --params included.
  const timeoutMs = timeoutOf(args, target);
  const watchdog = new Watchdog(timeoutMs);
  let signalled = false;
  onExitSignals((signal, code) => {
    signalled = true;
    watchdog.abort(new CommandError(code, `interrupted by ${signal === "SIGINT" ? "Ctrl-C" : signal}; the server was told to cancel`));
  });
  // A signal that came while this command loaded was taken by the early path's guard (which stopped
  // the server it started): this command ends with it, as with one that comes from now on.
  const early = earlyInterruption();
  if (early) {
    signalled = true;
    watchdog.abort(
      new CommandError(
        early.code,
        `interrupted by ${early.signal === "SIGINT" ? "Ctrl-C" : early.signal} before the server was asked anything`,
      ),
    );
  }
  let prepared: unknown;
  try {
    prepared = await Promise.race([prepare(args, watchdog.signal, target), watchdog.fired]);
  } catch (error) {
    watchdog.stop();
    const timedOut = error instanceof McpError && error.kind === "timeout";
    return fail(
      timedOut ? new CommandError(EXIT.timeout, `reading the arguments took longer than --timeout (${timeoutMs} ms)`) : classify(error),
    );
  }

  let answers: GivenAnswers | undefined;
  try {
    answers = await Promise.race([answersOf(args, watchdog.signal), watchdog.fired]);
  } catch (error) {
    watchdog.stop();
    return fail(classify(error));
  }
  const auth = channelAuth(args, atTerminal() ? "ask" : "no");
  if (!auth.ok) {
    watchdog.stop();
    return fail(new CommandError(EXIT.usage, auth.error));
  }
  // Ctrl-C (or --timeout) ends a sign-in too; the time a person spends in the browser is not the server's.
  auth.value.signal = watchdog.signal;
  auth.value.onuserwait = (waiting) => (waiting ? watchdog.pause() : watchdog.reset());
  const questions = { terminal: atTerminal(), server: describeTarget(target), ...(answers ? { answers } : {}) };
  const sessionOptions = {
    version,
    timeoutMs,
    protocolVersion: args["protocol-version"],
    logLevel: logLevelOf(args),
    logFile: args["log-file"],
    stateful: Boolean(args.stateful),
    auth: auth.value,
    questions,
    listen: name === "call-tool" || name === "get-prompt" || name === "read-resource",
  };
  const session = await openSession(target, sessionOptions);
  try {
    await session.connect(watchdog);
    report.protocolVersion = session.protocolVersion;
    const data = await session.run((call) => act(call, prepared, target), watchdog);
    if ((name === "call-tool" || name === "task") && (data as { isError?: boolean }).isError === true) {
      const said = ((data as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === "text")?.text;
      fail(new CommandError(EXIT.toolError, `the tool reported an error${said ? `: ${said.slice(0, 200)}` : ""}`), data);
    } else if (args.format === "signatures" && name === "list-tools") writeStdout(signatureLines((data as { tools: ToolLike[] }).tools));
    else report.succeed(data, text);
  } catch (error) {
    report.protocolVersion = session.protocolVersion;
    fail(classify(error, session.stderrTail));
  } finally {
    watchdog.stop();
    // The answer is out; only now wait for the server to go away (quickly, when a signal ends us).
    await session.close({ quick: signalled });
  }
}

/** One signature per line (with a newline after the last), or nothing for no tools. */
function signatureLines(tools: ToolLike[]): string {
  return tools.map((tool) => `${signature(tool)}\n`).join("");
}

/** A one-shot stdio server exits with this command, and its tasks with it. */
function requireLastingServer(args: Args, target: Target, what: string): void {
  if (tasks.outlivesProcess(target, Boolean(args.stateful))) return;
  throw new CommandError(
    EXIT.usage,
    `${what} needs a server that outlives this command: a one-shot stdio server exits with mcp-inspect, and its tasks with it (use an ` +
      `HTTP server, or --stateful to keep it in mcp-daemon)`,
  );
}

/** --input-responses, read like --params (JSON, @file, or - for stdin). */
async function answersOf(args: Args, signal: AbortSignal): Promise<GivenAnswers | undefined> {
  const given = args["input-responses"];
  if (typeof given !== "string") return undefined;
  if (given === "-" && args.params === "-") throw new CommandError(EXIT.usage, "--params - and --input-responses - cannot both read stdin");
  const read = await readParams(given, signal);
  if (!read.ok && signal.aborted) throw signal.reason;
  if (!read.ok) throw new CommandError(EXIT.usage, read.error.replace("--params", "--input-responses"));
  const { parseAnswers } = await import("./questions.ts");
  return parseAnswers(read.value);
}

async function paramsOf(args: Args, signal: AbortSignal): Promise<Record<string, unknown>> {
  if (typeof args.params !== "string") return {};
  const read = await readParams(args.params, signal);
  // An abort (--timeout, a signal) is reported by the watchdog that caused it.
  if (!read.ok && signal.aborted) throw signal.reason;
  if (!read.ok) throw new CommandError(EXIT.usage, read.error);
  return read.value;
}
