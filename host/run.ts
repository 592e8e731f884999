// One run of mcp-host: the flags checked, the servers and the provider chosen, then a chat (or one
// answer with -p) until it ends; resolves with the exit code.

import { resolve } from "node:path";
import { authFlags } from "../lib/cli/args.ts";
import { type Invocation, unknownFlagsProblem } from "../lib/cli/argv.ts";
import { fail } from "../lib/cli/fail.ts";
import { checkFlagValues, type FlagDef } from "../lib/cli/values.ts";
import type { LogLevelName } from "../lib/io/log-levels.ts";
import { EXIT, eraChoice, rootFor } from "./options.ts";
import { createProvider, type LLMProvider, PROVIDER_NAMES, type ProviderName, pickProvider } from "./provider.ts";
import { serverTargets } from "./targets.ts";

export interface HostRun {
  invocation: Invocation;
  /** mcp-host.ts's own URL: the reference server is this program run again. */
  entryUrl: string;
  /** The flags mcp-host declares, for unknown-flag and value checks. */
  defs: Record<string, FlagDef>;
}

export async function runHost(args: Record<string, unknown>, run: HostRun): Promise<number> {
  const problem = unknownFlagsProblem(args, run.defs);
  if (problem) return fail(problem);
  const positional = (args._ as string[] | undefined) ?? [];
  if (positional.length > 0)
    return fail(`unexpected argument ${JSON.stringify(positional[0])} (a message goes in -p "...", a server in --server)`);
  const values = checkFlagValues(args, run.defs);
  if (!values.ok) return fail(values.error);
  const era = eraChoice(Boolean(args.legacy), args["protocol-version"] as string | undefined);
  if (!era.ok) return fail(era.error);
  const auth = authFlags(args);
  if (!auth.ok) return fail(auth.error);
  const level = values.value["log-level"] as LogLevelName | undefined;
  const targets = await serverTargets(args, run.invocation, run.entryUrl);
  if (!targets.ok) return fail(targets.error);
  const providerName = (args.provider as string | undefined) ?? pickProvider(process.env);
  if (!PROVIDER_NAMES.includes(providerName as ProviderName))
    return fail(`unknown provider ${JSON.stringify(providerName)} (choose ${PROVIDER_NAMES.join(", ")})`);
  const roots: { uri: string; name: string }[] = [];
  for (const directory of run.invocation.repeated.root?.length ? run.invocation.repeated.root : [process.cwd()])
    roots.push(rootFor(resolve(directory)));
  const oneShot = args.print as string | undefined;
  if (oneShot !== undefined && oneShot.trim() === "") return fail("-p needs a message");

  let provider: LLMProvider;
  try {
    provider = await createProvider(providerName as ProviderName, { model: args.model as string | undefined, env: process.env });
  } catch (error) {
    return fail(`${providerName}: ${(error as Error).message}`, EXIT.model);
  }

  // The MCP SDK and the session load only now, so --help and --version stay instant.
  const { HostSession } = await import("./session.ts");
  const session = new HostSession({
    provider,
    targets: targets.value,
    era: era.value,
    roots,
    auth: { ...auth.value, signIn: args.oauth ? "yes" : "ask", browser: args.browser !== false },
    oneShot: oneShot !== undefined,
    logLevel: level ?? "info",
    logFile: args["log-file"] as string | undefined,
  });
  const connected = await session.connect();
  if (connected === 0) {
    await session.close();
    return fail("no server could be connected", EXIT.connection);
  }
  const code = oneShot !== undefined ? await session.answerOnce(oneShot) : await session.repl();
  await session.close();
  return code;
}
