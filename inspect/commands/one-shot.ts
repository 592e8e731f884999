// The one-shot commands as citty commands: argv read by the declarations, the target resolved and
// checked, then the flow of inspect/one-shot.ts. (A call whose argv early-server read whole skips
// citty: inspect/early-call.ts.)
import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import { withExamples } from "../../lib/cli/help.ts";
import { describeTarget } from "../../lib/targets/target.ts";
import { ONE_SHOT, type OneShotName, oneShotArgs } from "../flags.ts";
import { type Args, checkTarget, type Invocation, usageProblem, wantsJson } from "../invocation.ts";
import { runOneShot } from "../one-shot.ts";
import { CommandError, EXIT, renderText } from "../output.ts";
import { reporter } from "../report.ts";

/** The citty command for one of the one-shot commands, reading this run's argv. */
export function oneShotCommand(name: OneShotName, invocation: Invocation, version: string): CommandDef<any> {
  const args = oneShotArgs(name);
  return withExamples(
    defineCommand({
      meta: { name, description: ONE_SHOT[name].description },
      args,
      run: ({ args: parsed }) => checkThenRun(name, parsed as Args, args, invocation, version),
    }),
    ONE_SHOT[name].examples,
  );
}

/** The usage checks and the target argv names; a problem ends the command as a usage error. */
async function checkThenRun(name: OneShotName, args: Args, defs: ArgsDef, invocation: Invocation, version: string): Promise<void> {
  const target = await checkTarget(args, invocation);
  const report = reporter(name, wantsJson(args), target.ok ? describeTarget(target.value) : "");
  const usage = usageProblem(args, defs, invocation) ?? (target.ok ? undefined : target.error);
  if (usage || !target.ok)
    return report.fail(new CommandError(EXIT.usage, usage ?? ""), undefined, (data) => `${renderText(name, data)}\n`);
  await runOneShot(name, args, target.value, report, version);
}
