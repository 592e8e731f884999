// Command-line plumbing every tool shares: the argv split at `--` (citty would take a server's
// own `--help` as ours), repeatable flags (citty keeps only the last value), and unknown-flag
// checks. The flags themselves are declared once in args.ts.
import type { ArgsDef } from "citty";

/** The argv before the first `--`, and the server command line after it. */
export function splitAtDoubleDash(argv: string[]): { own: string[]; command: string[] } {
  const index = argv.indexOf("--");
  if (index === -1) return { own: argv, command: [] };
  return { own: argv.slice(0, index), command: argv.slice(index + 1) };
}

/**
 * For tools whose only positional input is the server command: `bun tool.ts -- cmd args` reaches
 * us without its `--` (bun takes a `--` right after the script as its own), and clients write
 * `tool --opt value cmd args` (Gemini CLI's `mcp add`), so the first word that is neither an
 * option nor an option's value starts the command too.
 */
export function splitServerCommand(argv: string[], takesValue: Set<string> = new Set()): { own: string[]; command: string[] } {
  return splitAtDoubleDash(separateServerCommand(argv, undefined, takesValue));
}

/**
 * `<tool> mcp CMD ARGS`, as Gemini CLI's and Qwen Code's `mcp add` write an entry (no `--`): when
 * the command word is `word` and argv has no `--`, the first word after it and our own options
 * (each with its value) that is not an option starts the server command, so a `--` goes before it.
 * Without a `word`, the first such word at all.
 */
export function separateServerCommand(argv: string[], word: string | undefined, takesValue: Set<string>): string[] {
  if (argv.includes("--")) return argv;
  let seenWord = word === undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("-") && arg !== "-") {
      if (!arg.includes("=") && takesValue.has(arg)) i++;
      continue;
    }
    if (seenWord) return [...argv.slice(0, i), "--", ...argv.slice(i)];
    if (arg !== word) return argv;
    seenWord = true;
  }
  return argv;
}

/** Our flags for citty, the server command line after `--`, and every value of the repeatable flags. */
export interface Invocation {
  rawArgs: string[];
  command: string[];
  repeated: Record<string, string[]>;
  /** A repeatable flag given without a value. */
  missing?: string;
}

/**
 * Prepares argv for citty: split at the first `--` (citty would take a server's own `--help` as
 * ours), the repeatable flags taken out (citty keeps only their last value), and the command word
 * moved to the front, so that options work before the command as well as after it
 * (`mcp-inspect --stateful call-tool x` = `mcp-inspect call-tool x --stateful`).
 */
export function prepareArgv(
  argv: string[],
  options: { commands?: string[]; defs: ArgsDef[]; repeatable?: Record<string, string[]> },
): Invocation {
  const { own, command } = splitAtDoubleDash(argv);
  const taken = takeRepeatable(own, options.repeatable ?? {});
  const rawArgs = options.commands ? commandFirst(taken.rest, options.commands, valueFlags(options.defs)) : taken.rest;
  return { rawArgs, command, repeated: taken.values, ...(taken.missing ? { missing: taken.missing } : {}) };
}

/** Every spelling of the flags that take a value (`--timeout`, `-H`), from argument definitions. */
export function valueFlags(defs: ArgsDef[]): Set<string> {
  const flags = new Set<string>();
  for (const def of defs) {
    for (const [name, arg] of Object.entries(def)) {
      if (arg.type !== "string" && arg.type !== "enum") continue;
      flags.add(`--${name}`);
      const aliases = "alias" in arg && arg.alias ? (Array.isArray(arg.alias) ? arg.alias : [arg.alias]) : [];
      for (const alias of aliases) flags.add(alias.length === 1 ? `-${alias}` : `--${alias}`);
    }
  }
  return flags;
}

/** Moves the first word that is not an option (nor an option's value) to the front, if it is a command. */
export function commandFirst(argv: string[], commands: string[], takesValue: Set<string>): string[] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("-")) {
      if (!arg.includes("=") && takesValue.has(arg)) i++;
      continue;
    }
    if (i === 0 || !commands.includes(arg)) return argv;
    return [arg, ...argv.slice(0, i), ...argv.slice(i + 1)];
  }
  return argv;
}

/**
 * Pulls every value of the repeatable flags out of argv (`--header X`, `--header=X`, `-H X`),
 * returning the rest for citty. A flag with no value is reported, not swallowed.
 */
export function takeRepeatable(
  argv: string[],
  flags: Record<string, string[]>,
): { rest: string[]; values: Record<string, string[]>; missing?: string } {
  const values: Record<string, string[]> = {};
  const rest: string[] = [];
  const byAlias = new Map<string, string>();
  for (const [name, aliases] of Object.entries(flags)) {
    values[name] = [];
    for (const alias of [name, ...aliases]) byAlias.set(alias.length === 1 ? `-${alias}` : `--${alias}`, name);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const equals = arg.indexOf("=");
    const flag = arg.startsWith("--") && equals !== -1 ? arg.slice(0, equals) : arg;
    const name = byAlias.get(flag);
    if (name === undefined) {
      rest.push(arg);
    } else if (flag !== arg) {
      values[name]!.push(arg.slice(equals + 1));
    } else if (i + 1 < argv.length) {
      values[name]!.push(argv[++i]!);
    } else {
      return { rest, values, missing: flag };
    }
  }
  return { rest, values };
}

/** Names of flags citty parsed that no definition declares (citty accepts them silently). */
export function unknownFlags(parsed: Record<string, unknown>, defs: ArgsDef): string[] {
  const known = new Set<string>(["_", "help", "version", "h", "v"]);
  for (const [name, def] of Object.entries(defs)) {
    known.add(name);
    known.add(camel(name));
    const aliases = "alias" in def ? def.alias : undefined;
    for (const alias of Array.isArray(aliases) ? aliases : aliases ? [aliases] : []) known.add(alias);
    if (def.type === "boolean") {
      known.add(`no-${name}`);
      known.add(camel(`no-${name}`));
    }
  }
  return Object.keys(parsed).filter((key) => !known.has(key));
}

/** The one-line usage error for flags nobody declared, or undefined when there are none. */
export function unknownFlagsProblem(parsed: Record<string, unknown>, defs: ArgsDef): string | undefined {
  const unknown = unknownFlags(parsed, defs);
  if (unknown.length === 0) return undefined;
  return `unknown option ${unknown.map((flag) => (flag.length === 1 ? `-${flag}` : `--${flag}`)).join(", ")} (see --help)`;
}

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * citty answers an unknown subcommand with its help on stdout, where our tools keep only results
 * (and mcp-inspect its JSON contract): the mistake is caught first and reported as a usage error.
 */
export function unknownCommandProblem(
  argv: string[],
  commands: string[],
  tool: string,
  takesValue: Set<string> = new Set(),
): string | undefined {
  let first: string | undefined;
  for (let i = 0; i < argv.length && first === undefined; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("-")) first = arg;
    else if (!arg.includes("=") && takesValue.has(arg)) i++;
  }
  if (first === undefined || commands.includes(first)) return undefined;
  return `unknown command "${first}" (commands: ${commands.join(", ")}; see ${tool} --help)`;
}
