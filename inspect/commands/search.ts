// `mcp-inspect grep` and `mcp-inspect skill`: both ask many servers at once for their tools
// (inspect/grep.ts), the same servers chosen the same way: one given server, every entry of
// --config, else every configured server `--server NAME` would reach.
import { type CommandDef, defineCommand } from "citty";
import { withExamples } from "../../lib/cli/help.ts";
import { writeStdout } from "../../lib/io/runtime.ts";
import { stripControl } from "../../lib/io/text.ts";
import { loadConfigTargets } from "../../lib/targets/config-entry.ts";
import { describeTarget, type Target } from "../../lib/targets/target.ts";
import type { Result } from "../../lib/wire/result.ts";
import { GREP_ARGS, SKILL_ARGS } from "../command-flags.ts";
import type { NamedTarget } from "../grep.ts";
import { type Args, checkTarget, type Invocation, usageProblem, wantsJson } from "../invocation.ts";
import { CommandError, EXIT } from "../output.ts";
import { reporter } from "../report.ts";

export function grepCommand(invocation: Invocation, version: string): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "grep",
      description:
        "Search the tools of every configured server (or one --config, or one server) by name, title, description and parameter names. " +
        "Servers are asked in parallel, each under --timeout (default 15000); one that fails is listed with its error. Exit 0 with " +
        "matches, 9 with none.",
    },
    args: GREP_ARGS,
    run: ({ args }) => runGrep(args as Args, invocation, version),
  });
  return withExamples(command, [
    "mcp-inspect grep issue                                   # every configured server",
    "mcp-inspect grep 'create|update' --format signatures      # one line per matching tool",
    "mcp-inspect grep search --config ~/.cursor/mcp.json",
    "mcp-inspect grep echo -- node server.js",
  ]);
}

export function skillCommand(invocation: Invocation, version: string): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "skill",
      description:
        "Write a SKILL.md (Agent Skills format) that teaches an agent to use mcp-inspect with this user's servers: the servers, their " +
        "tools as one-line signatures, and the commands for calling, answering questions and tasks. No secrets; the servers' text is " +
        "marked as theirs.",
    },
    args: SKILL_ARGS,
    run: ({ args }) => runSkill(args as Args, invocation, version),
  });
  return withExamples(command, ["mcp-inspect skill --out ~/.claude/skills/mcp-servers", "mcp-inspect skill --out - --config .mcp.json"]);
}

async function runGrep(args: Args, invocation: Invocation, version: string): Promise<void> {
  const json = wantsJson(args);
  const report = reporter("grep", json);
  const fail = (error: CommandError) => report.fail(error);
  const problem = usageProblem(args, GREP_ARGS, invocation);
  if (problem) return fail(new CommandError(EXIT.usage, problem));
  const pattern = args._[0];
  if (!pattern) return fail(new CommandError(EXIT.usage, "missing a pattern (e.g. mcp-inspect grep issue)"));
  const targets = await searchedServers(args, invocation);
  if (!targets.ok) return fail(targets.error);
  const { grep } = await import("../grep.ts");
  const found = await grep(targets.value, pattern, surveyOptions(args, version));
  const nothing =
    `no tool matches ${JSON.stringify(pattern)} on the ${found.searched - found.failures.length} of ${found.searched} ` +
    `servers that answered`;
  // The servers that failed are said on stderr as text; in the envelope they are part of the data.
  if (!json)
    for (const failure of found.failures)
      process.stderr.write(`${stripControl(failure.server)}: ${failure.code}: ${stripControl(failure.error)}\n`);
  const lines = () => found.matches.map((match) => `${stripControl(match.server)}: ${match.signature}\n`).join("");
  // No match is a failure of the search (exit 9), in the contract's shape: success false, and the data still there.
  if (found.matches.length > 0) report.succeed(found, lines);
  else report.fail(new CommandError(EXIT.nothingThere, nothing), found, lines);
}

async function runSkill(args: Args, invocation: Invocation, version: string): Promise<void> {
  const json = wantsJson(args);
  // With --out - stdout is the skill itself, so an error goes to stderr even for an agent.
  const report = reporter("skill", json && args.out !== "-");
  const fail = (error: CommandError) => report.fail(error);
  const problem =
    usageProblem(args, SKILL_ARGS, invocation) ??
    (typeof args.out === "string" && args.out !== "" ? undefined : "--out DIR is required (the directory for SKILL.md, or - to print it)");
  if (problem) return fail(new CommandError(EXIT.usage, problem));
  const targets = await searchedServers(args, invocation);
  if (!targets.ok) return fail(targets.error);
  const [{ survey }, { skillMarkdown, SKILL_FILE }] = await Promise.all([import("../grep.ts"), import("../skill.ts")]);
  const surveyed = await survey(targets.value, surveyOptions(args, version));
  const [{ basename, resolve: resolvePath }, { toolCommand }] = await Promise.all([
    import("node:path"),
    import("../../lib/targets/client-config/write.ts"),
  ]);
  // The skill calls us the way `config` writes an entry: by absolute path, not by a name PATH may not hold.
  const self = toolCommand("mcp-inspect", [], process.execPath, process.argv[1]);
  const markdown = skillMarkdown(
    surveyed.map((entry, i) => ({ ...entry, select: targets.value[i]!.select, folder: targets.value[i]!.folder })),
    {
      command: [self.command, ...self.args].map(shellWord).join(" "),
      ...(args.out === "-" ? {} : { name: basename(resolvePath(String(args.out))) }),
    },
  );
  if (args.out === "-") {
    writeStdout(markdown);
    return;
  }
  const [{ mkdirSync }, { join, resolve }, { replaceFile }] = await Promise.all([
    import("node:fs"),
    import("node:path"),
    import("../../lib/io/replace-file.ts"),
  ]);
  const file = join(resolve(String(args.out)), SKILL_FILE);
  try {
    mkdirSync(resolve(String(args.out)), { recursive: true });
  } catch (error) {
    return fail(new CommandError(EXIT.usage, `cannot write ${file}: ${(error as Error).message}`));
  }
  // A SKILL.md that is a link (a cloned skills folder can hold one) is refused, never written through.
  const written = replaceFile(file, markdown);
  if (!written.ok) return fail(new CommandError(EXIT.usage, written.error));
  const data = {
    file,
    servers: surveyed.map((entry) => ({
      server: entry.server,
      tools: entry.tools?.length ?? 0,
      ...(entry.failure ? { error: entry.failure.error } : {}),
    })),
  };
  report.succeed(data, () => `wrote ${file} (${surveyed.length} servers)\n`);
}

/** What grep and skill ask: the servers of searchedTargets, none being an error (exit 9) that says why. */
async function searchedServers(args: Args, invocation: Invocation): Promise<Result<NamedTarget[], CommandError>> {
  const targets = await searchedTargets(args, invocation);
  if (!targets.ok) return { ok: false, error: new CommandError(EXIT.usage, targets.error) };
  const skipped = targets.skipped ?? [];
  // A configured name that reaches no server is said, never dropped without a word.
  for (const { name, reason } of skipped) process.stderr.write(`warning: skipped "${stripControl(name)}": ${stripControl(reason)}\n`);
  if (targets.value.length === 0)
    return {
      ok: false,
      error: new CommandError(
        EXIT.nothingThere,
        skipped.length > 0
          ? `none of the ${skipped.length} configured server names reaches a server it may start ` +
              `(${skipped.map(({ name }) => name).join(", ")}; see the warnings above and mcp-inspect servers)`
          : "no servers are configured for this user or project (see mcp-inspect servers)",
        { skipped },
      ),
    };
  return targets;
}

/** A configured name grep and skill do not search, and why. */
interface Skipped {
  name: string;
  reason: string;
}

/** How grep and skill ask each server: --timeout each (else grep's own default), through the daemon with --stateful. */
function surveyOptions(args: Args, version: string) {
  return { version, timeoutMs: args.timeout !== undefined ? Number(args.timeout) : undefined, stateful: Boolean(args.stateful) };
}

/** What grep searches: one given server, every entry of --config, else every configured (and approved) server. */
async function searchedTargets(args: Args, invocation: Invocation): Promise<Result<NamedTarget[]> & { skipped?: Skipped[] }> {
  const flags = (target: Target) => (target.kind === "http" ? `--url ${target.url}` : `-- ${[target.command, ...target.args].join(" ")}`);
  const named = (target: Target, select = flags(target)): NamedTarget => ({
    server: target.name ?? describeTarget(target),
    target,
    select,
  });
  if (args.config && !args.server) {
    const loaded = loadConfigTargets(args.config);
    return loaded.ok
      ? { ok: true, value: loaded.value.map((target) => named(target, `--config ${args.config} --server ${target.name}`)) }
      : loaded;
  }
  if (args.config || args.server || args.url || invocation.command.length > 0) {
    const target = await checkTarget(args, invocation);
    return target.ok ? { ok: true, value: [named(target.value)] } : target;
  }
  return discoveredTargets(args);
}

/** Every configured name, as `--server NAME` would reach it: the servers it may start, and the names it skips with the reason. */
async function discoveredTargets(args: Args): Promise<{ ok: true; value: NamedTarget[]; skipped: Skipped[] }> {
  const { discoverServers, pickServer, targetOf, unreachableReason } = await import("../../lib/targets/discovery/index.ts");
  const { servers } = await discoverServers({ timeoutMs: args.timeout !== undefined ? Number(args.timeout) : undefined });
  const value: NamedTarget[] = [];
  const skipped: Skipped[] = [];
  const groups = Map.groupBy(servers, (server) => server.name);
  for (const [name, named] of groups) {
    const reason = unreachableReason(named, name);
    if (reason) {
      // A name every entry of which is turned off is the user's choice, not a problem to report.
      if (!named.every((server) => server.turnedOff)) skipped.push({ name, reason });
      continue;
    }
    const picked = pickServer(named, name);
    if (!picked?.ok) continue;
    const target = targetOf(picked.value);
    const folder = picked.value.scope === "user" ? undefined : picked.value.project;
    if (target.ok) value.push({ server: name, target: target.value, select: `--server ${name}`, ...(folder ? { folder } : {}) });
    else skipped.push({ name, reason: target.error });
  }
  return { ok: true, value, skipped };
}

/** A word as a POSIX shell reads it back: as is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
