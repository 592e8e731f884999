// --help for every tool, the same way: a usage line, what the command does, its commands, its
// options in two columns wrapped to the terminal, and examples under their own heading. Colour
// only on a terminal without NO_COLOR; a pipe gets plain text.
import type { ArgDef, ArgsDef, CommandDef, CommandMeta } from "citty";
import { isTerminal, writeStdout } from "../io/runtime.ts";

const examples = new WeakMap<object, string[]>();
const DEFAULT_WIDTH = 100;
const MIN_DESCRIPTION_WIDTH = 30;

/** Registers the examples `--help` shows for a command; returns the command. */
export function withExamples<T extends object>(command: T, lines: string[]): T {
  examples.set(command, lines);
  return command;
}

/** What citty calls for --help (runMain's showUsage): our help for the command, on stdout. */
export async function showHelp(command: CommandDef<any>, parent?: CommandDef<any>): Promise<void> {
  writeStdout(await renderHelp(command, parent));
}

export async function renderHelp(
  command: CommandDef<any>,
  parent?: CommandDef<any>,
  options: { width?: number; colour?: boolean } = {},
): Promise<string> {
  const width = options.width ?? (isTerminal(1) && process.stdout.columns ? process.stdout.columns : DEFAULT_WIDTH);
  const colour = options.colour ?? (isTerminal(1) && !process.env.NO_COLOR);
  const bold = (text: string) => (colour ? `\u001b[1m${text}\u001b[22m` : text);
  const meta = await resolve<CommandMeta>(command.meta);
  const parentMeta = parent ? await resolve<CommandMeta>(parent.meta) : undefined;
  const name = [parentMeta?.name, meta?.name].filter(Boolean).join(" ");
  const args = (await resolve<ArgsDef>(command.args)) ?? {};
  const subCommands = (await resolve<Record<string, unknown>>(command.subCommands)) ?? {};
  const out: string[] = [];

  const positionals = Object.entries(args)
    .filter(([, def]) => def.type === "positional")
    .map(([key, def]) => (def.required === false ? `[${key}]` : `<${key}>`));
  const usage = [name, Object.keys(subCommands).length > 0 ? "<command>" : "", ...positionals, "[options]"].filter(Boolean).join(" ");
  out.push(`${bold("Usage:")} ${usage}${meta?.version && !parent ? `   (version ${meta.version})` : ""}`, "");
  if (meta?.description) out.push(...wrap(meta.description, width), "");

  const commandRows: [string, string][] = [];
  for (const [key, sub] of Object.entries(subCommands)) {
    const subMeta = await resolve<CommandMeta>((await resolve<CommandDef<any>>(sub as CommandDef<any>))?.meta);
    if (!subMeta?.hidden) commandRows.push([key, firstLine(subMeta?.description ?? "")]);
  }
  if (commandRows.length > 0)
    out.push(bold("Commands:"), ...columns(commandRows, width), "", `Run ${name} <command> --help for a command's own options.`, "");

  const optionRows: [string, string][] = Object.entries(args)
    .filter(([, def]) => def.type !== "positional")
    .map(([key, def]) => [flagLabel(key, def), describe(def)]);
  optionRows.push(["-h, --help", "show this help"]);
  if (!parent && meta?.version) optionRows.push(["--version", "print the version"]);
  out.push(bold("Options:"), ...columns(optionRows, width), "");

  const shown = examples.get(command);
  if (shown?.length) out.push(bold("Examples:"), ...shown.map((line) => `  ${line}`), "");
  return `${out.join("\n").trimEnd()}\n`;
}

async function resolve<T>(value: unknown): Promise<T | undefined> {
  const resolved = typeof value === "function" ? await (value as () => unknown)() : await value;
  return resolved as T | undefined;
}

function flagLabel(key: string, def: ArgDef): string {
  const aliases = "alias" in def && def.alias ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
  const names = [...aliases.map((alias) => (alias.length === 1 ? `-${alias}` : `--${alias}`)), `--${key}`];
  const hint = def.type === "boolean" ? "" : ` <${("valueHint" in def && def.valueHint) || "value"}>`;
  return `${names.join(", ")}${hint}`;
}

function describe(def: ArgDef): string {
  const text = def.description ?? "";
  return def.type === "boolean" && def.default === true ? `${text} (on by default; --no-… turns it off)` : text;
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}

/** Two columns: the left as wide as its widest entry (within reason), the right wrapped. */
function columns(rows: [string, string][], width: number): string[] {
  const left = Math.min(Math.max(...rows.map(([label]) => label.length)), Math.floor(width / 2.5));
  const right = Math.max(MIN_DESCRIPTION_WIDTH, width - left - 4);
  const lines: string[] = [];
  for (const [label, text] of rows) {
    const wrapped = wrap(text, right);
    if (label.length > left) {
      lines.push(`  ${label}`);
      for (const line of wrapped) lines.push(`  ${" ".repeat(left)}  ${line}`);
      continue;
    }
    lines.push(`  ${label.padEnd(left)}  ${wrapped[0] ?? ""}`.trimEnd());
    for (const line of wrapped.slice(1)) lines.push(`  ${" ".repeat(left)}  ${line}`);
  }
  return lines;
}

/** Wraps each paragraph line of `text` at word boundaries to `width` columns. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    const indent = paragraph.match(/^\s*/)?.[0] ?? "";
    let line = "";
    for (const word of paragraph.trim().split(/\s+/).filter(Boolean)) {
      if (line && indent.length + line.length + 1 + word.length > width) {
        lines.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(indent + line);
  }
  return lines;
}
