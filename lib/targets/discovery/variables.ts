// The variables VS Code and Cursor expand in an entry before it runs, other than `${env:VAR}`
// (lib/targets/target.ts expands that with `${VAR}`): predefined ones (`${workspaceFolder}`, `${userHome}`,
// ...) and VS Code's `${input:id}`, whose values the user types (code.visualstudio.com, "MCP
// configuration reference": inputs, and "Variables reference").
import { basename, sep } from "node:path";
import type { InputDefinition } from "./read.ts";

const INPUT = /\$\{input:([^}]+)\}/g;

/** The `${input:id}` ids an entry uses, in order, each once. */
export function inputIds(entry: unknown): string[] {
  const ids = new Set<string>();
  visitStrings(entry, (text) => {
    for (const match of text.matchAll(INPUT)) ids.add(match[1]!);
    return text;
  });
  return [...ids];
}

/** The definitions of the inputs an entry needs (an id the file does not define still needs a value). */
export function neededInputs(entry: unknown, definitions: InputDefinition[]): InputDefinition[] {
  return inputIds(entry).map((id) => definitions.find((input) => input.id === id) ?? { id });
}

export interface Substitutions {
  /** The project directory (VS Code's workspace folder). */
  workspaceFolder: string;
  userHome: string;
  inputs?: Record<string, string>;
}

/** The entry with the predefined variables and the given inputs put in; everything else left for lib/targets/target.ts. */
export function substitute(entry: Record<string, unknown>, values: Substitutions): Record<string, unknown> {
  const predefined: Record<string, string> = {
    workspaceFolder: values.workspaceFolder,
    workspaceFolderBasename: basename(values.workspaceFolder),
    userHome: values.userHome,
    pathSeparator: sep,
    "/": sep,
  };
  return visitStrings(entry, (text) =>
    text
      .replace(/\$\{(workspaceFolder|workspaceFolderBasename|userHome|pathSeparator|\/)\}/g, (_match, name: string) => predefined[name]!)
      // Only typed values: an id such as toString must not reach Object.prototype.
      .replace(INPUT, (match, id: string) => (values.inputs && Object.hasOwn(values.inputs, id) ? values.inputs[id]! : match)),
  ) as Record<string, unknown>;
}

function visitStrings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => visitStrings(item, change));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visitStrings(item, change)]));
  return value;
}
