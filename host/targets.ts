// Which servers mcp-host connects to: every --server (an entry of --config when it is given, else a
// configured server's name, a URL or a command line), every entry of --config when no --server
// picks some, every --url and a command after `--`; with none, the reference server built into
// this very program. -H, --env, --cwd, --transport and --stateful apply to each that they fit.
import { fileURLToPath } from "node:url";
import type { Invocation } from "../lib/cli/argv.ts";
import { loadConfigTarget, loadConfigTargets } from "../lib/targets/config-entry.ts";
import { applyOverrides, discoveredTarget, parseOverrides, serverTarget } from "../lib/targets/resolve.ts";
import type { StdioTarget, Target } from "../lib/targets/target.ts";
import { atTerminal, terminalAsker } from "../lib/terminal/asker.ts";
import type { Result } from "../lib/wire/result.ts";
import { SERVE_REFERENCE_ENV } from "./serve-reference.ts";

export async function serverTargets(args: Record<string, unknown>, invocation: Invocation, entryUrl: string): Promise<Result<Target[]>> {
  const targets: Target[] = [];
  const config = args.config as string | undefined;
  const servers = invocation.repeated.server ?? [];
  if (config !== undefined) {
    if (servers.length === 0) {
      const loaded = loadConfigTargets(config);
      if (!loaded.ok) return loaded;
      targets.push(...loaded.value);
    }
    for (const name of servers) {
      const loaded = loadConfigTarget(config, name);
      if (!loaded.ok) return loaded;
      targets.push(loaded.value);
    }
  } else {
    for (const value of servers) {
      // A configured server's name first (DESIGN.md's order), else a URL or a command line.
      const given = (await discoveredTarget(value, process.env, atTerminal() ? { ask: terminalAsker() } : {})) ?? serverTarget(value);
      if (!given.ok) return given;
      targets.push(given.value);
    }
  }
  for (const url of invocation.repeated.url ?? []) {
    const given = serverTarget(url);
    if (!given.ok || given.value.kind !== "http")
      return { ok: false, error: `bad --url ${JSON.stringify(url)} (give a full http:// or https:// URL)` };
    targets.push(given.value);
  }
  const [command, ...commandArgs] = invocation.command;
  if (command) targets.push({ kind: "stdio", command, args: commandArgs, env: {} });
  if (targets.length === 0) return { ok: true, value: [referenceServer(entryUrl)] };
  const overrides = parseOverrides({
    header: invocation.repeated.header,
    env: invocation.repeated.env,
    cwd: args.cwd as string | undefined,
    transport: args.transport as string | undefined,
  });
  if (!overrides.ok) return overrides;
  const problem = applyOverrides(targets, overrides.value);
  if (problem) return { ok: false, error: problem };
  if (args.stateful) for (const target of targets) target.stateful = true;
  return { ok: true, value: targets };
}

/** This very program, run as the reference server (compiled binaries carry it inside): `entryUrl` is mcp-host.ts's own URL. */
function referenceServer(entryUrl: string): StdioTarget {
  const script = process.argv[1] ?? "";
  const compiled = script.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(script);
  const runtimeArgs = compiled ? [] : "Deno" in globalThis ? ["run", "-A", fileURLToPath(entryUrl)] : [fileURLToPath(entryUrl)];
  return { kind: "stdio", command: process.execPath, args: runtimeArgs, env: { [SERVE_REFERENCE_ENV]: "1" }, name: "reference" };
}
