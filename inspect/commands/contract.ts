// `mcp-inspect snapshot` (a server's contract as stable JSON) and `mcp-inspect diff` (a contract
// against the server now, or against another file: every change classified, exit 10 on a breaking one).
import { type CommandDef, defineCommand } from "citty";
import { withExamples } from "../../lib/cli/help.ts";
import { readFileCapped } from "../../lib/io/read-capped.ts";
import { describeTarget, type Target } from "../../lib/targets/target.ts";
import { atTerminal } from "../../lib/terminal/asker.ts";
import { MAX_PARAMS_BYTES } from "../../lib/wire/limits.ts";
import type { Result } from "../../lib/wire/result.ts";
import { DIFF_ARGS, SNAPSHOT_ARGS } from "../command-flags.ts";
import { type Contract, contractText, parseContract, snapshotOf } from "../contract/snapshot.ts";
import { type Args, channelAuth, checkTarget, type Invocation, logLevelOf, timeoutOf, usageProblem, wantsJson } from "../invocation.ts";
import { CommandError, classify, EXIT } from "../output.ts";
import { reporter } from "../report.ts";

const DIFF_FORMATS = ["json", "text", "markdown"];

export function snapshotCommand(invocation: Invocation, version: string): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "snapshot",
      description:
        "Write the server's contract (tools with schemas and annotations, resources, templates, prompts, capabilities, instructions) " +
        "as stable, sorted JSON: commit it, and `diff` tells what a change breaks.",
    },
    args: SNAPSHOT_ARGS,
    run: ({ args }) => runSnapshot(args as Args, invocation, version),
  });
  return withExamples(command, [
    "mcp-inspect snapshot --out mcp-contract.json -- node server.js",
    "mcp-inspect snapshot --url http://127.0.0.1:3000/mcp > contract.json",
  ]);
}

export function diffCommand(invocation: Invocation, version: string): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "diff",
      description:
        "Compare a contract (from snapshot) with the server now, or with a second file. Breaking: a tool, prompt or required input " +
        "removed, a parameter made required, a type narrowed, an enum value removed, an output field removed. Compatible: added, " +
        "widened, described differently. Exit 10 on a breaking change.",
    },
    args: DIFF_ARGS,
    run: ({ args }) => runDiff(args as Args, invocation, version),
  });
  return withExamples(command, [
    "mcp-inspect diff mcp-contract.json -- node server.js",
    "mcp-inspect diff old.json new.json --format markdown > comment.md",
  ]);
}

async function liveContract(args: Args, target: Target, version: string): Promise<Contract> {
  const auth = channelAuth(args, atTerminal() ? "ask" : "no");
  if (!auth.ok) throw new CommandError(EXIT.usage, auth.error);
  const timeoutMs = timeoutOf(args, target);
  try {
    return await snapshotOf(target, {
      version,
      timeoutMs,
      protocolVersion: args["protocol-version"],
      logLevel: logLevelOf(args),
      logFile: args["log-file"],
      auth: auth.value,
    });
  } catch (error) {
    throw classify(error);
  }
}

async function runSnapshot(args: Args, invocation: Invocation, version: string): Promise<void> {
  const target = await checkTarget(args, invocation);
  const out = typeof args.out === "string" ? args.out : undefined;
  // Without --out the contract itself is stdout; the envelope only with --json.
  const report = reporter("snapshot", Boolean(args.json), target.ok ? describeTarget(target.value) : "");
  const usage = usageProblem(args, SNAPSHOT_ARGS, invocation) ?? (target.ok ? undefined : target.error);
  if (usage || !target.ok) return report.fail(new CommandError(EXIT.usage, usage ?? ""));
  let contract: Contract;
  try {
    contract = await liveContract(args, target.value, version);
  } catch (error) {
    return report.fail(classify(error));
  }
  if (!out) return report.succeed(contract, () => contractText(contract));
  const { replaceFile } = await import("../../lib/io/replace-file.ts");
  const written = replaceFile(out, contractText(contract), 0o600);
  if (!written.ok) return report.fail(new CommandError(EXIT.usage, written.error));
  const counts = `${Object.keys(contract.tools).length} tools, ${Object.keys(contract.prompts).length} prompts`;
  report.succeed({ file: out, contract }, () => `wrote ${out} (${counts})\n`);
}

async function readContract(file: string): Promise<Result<Contract>> {
  const read = await readFileCapped(file, MAX_PARAMS_BYTES);
  if (!read.ok) return { ok: false, error: `cannot read ${file} (${read.error.detail ?? read.error.reason})` };
  return parseContract(read.value, file);
}

async function runDiff(args: Args, invocation: Invocation, version: string): Promise<void> {
  const format = typeof args.format === "string" ? args.format : wantsJson(args) ? "json" : "text";
  const report = reporter("diff", format === "json", "");
  const fail = (error: CommandError, data?: unknown, text?: (data: unknown) => string) => report.fail(error, data, text);
  const problem =
    usageProblem({ ...args, format: undefined }, DIFF_ARGS, invocation) ??
    (DIFF_FORMATS.includes(format) ? undefined : `unknown --format ${JSON.stringify(format)} (use ${DIFF_FORMATS.join(", ")})`) ??
    (args._[0] ? undefined : "missing the contract file (e.g. mcp-inspect diff mcp-contract.json -- node server.js)");
  if (problem) return fail(new CommandError(EXIT.usage, problem));
  const before = await readContract(args._[0]!);
  if (!before.ok) return fail(new CommandError(EXIT.usage, before.error));
  let after: Contract;
  if (args._[1]) {
    const read = await readContract(args._[1]);
    if (!read.ok) return fail(new CommandError(EXIT.usage, read.error));
    report.target = args._[1];
    after = read.value;
  } else {
    const target = await checkTarget(args, invocation);
    if (!target.ok) return fail(new CommandError(EXIT.usage, `${target.error} (or give a second contract file)`));
    report.target = describeTarget(target.value);
    try {
      after = await liveContract(args, target.value, version);
    } catch (error) {
      return fail(classify(error));
    }
  }
  const { changesMarkdown, changesText, diffContracts } = await import("../contract/diff.ts");
  const changes = diffContracts(before.value, after);
  const breaking = changes.filter((c) => c.impact === "breaking");
  const data = { breaking: breaking.length, compatible: changes.length - breaking.length, changes };
  const text = () => (format === "markdown" ? changesMarkdown(changes) : changesText(changes));
  if (breaking.length === 0) return report.succeed(data, text);
  const first = breaking[0]!;
  fail(new CommandError(EXIT.checksFailed, `${breaking.length} breaking change(s), first: ${first.where}: ${first.what}`), data, text);
}
