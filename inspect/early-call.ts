// A one-shot command whose argv inspect/early-server.ts read whole (its server spawned, or its
// daemon session attached, before the rest loaded) runs from that reading: the flags as citty would
// have parsed them, the target as the command would have resolved it, then the one flow of
// inspect/one-shot.ts. citty, the target resolver and argv preparation are never loaded: at a warm
// --stateful call's ~10 ms, they were a third of it. The output is the flow's, so it is the same
// bytes and exit code either way (test/e2e/inspect/early-call.test.ts compares the two).
import { describeTarget } from "../lib/targets/target.ts";
import type { EarlyCall } from "./early-server.ts";
import { oneShotArgs } from "./flags.ts";
import { type Args, wantsJson } from "./invocation.ts";
import { runOneShot } from "./one-shot.ts";
import { reporter } from "./report.ts";

export async function runEarlyCall(call: EarlyCall, version: string): Promise<void> {
  const args = parsedArgs(call);
  await runOneShot(call.command, args, call.target, reporter(call.command, wantsJson(args), describeTarget(call.target)), version);
}

/** What citty makes of the same argv: the declared defaults, the positionals by name and in `_`, then each flag given. */
function parsedArgs(call: EarlyCall): Args {
  const args: Args = { _: [...call.positionals] };
  let position = 0;
  for (const [name, def] of Object.entries(oneShotArgs(call.command))) {
    if (def.type === "positional") {
      if (position < call.positionals.length) args[name] = call.positionals[position++];
    } else if ("default" in def && def.default !== undefined) args[name] = def.default;
  }
  return Object.assign(args, call.flags);
}
