// JSON with comments and trailing commas (VS Code's mcp.json, Cursor's and Claude's files as people
// edit them), read and edited with jsonc-parser: an edit changes only what it must, so comments,
// trailing commas, number literals and the file's layout stay as the user wrote them.
import { applyEdits, findNodeAtLocation, modify, type Node, type ParseError, parse, parseTree, printParseErrorCode } from "jsonc-parser";
import type { Result } from "../wire/result.ts";

export function parseJsonc(text: string): Result<unknown> {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split("\n").length;
    return { ok: false, error: `${printParseErrorCode(first.error)} at line ${line}` };
  }
  return { ok: true, value };
}

/** The text with the value at `path` set (created when missing), every other byte kept. */
export function setJsoncValue(text: string, path: string[], value: unknown): string {
  const base = text.trim() === "" ? "{}" : text;
  return appendedMember(base, path, value) ?? applyEdits(base, modify(base, path, value, { formattingOptions: FORMAT }));
}

const FORMAT = { insertSpaces: true, tabSize: 2, eol: "\n" };

/**
 * A new last member of a multi-line object, written after the line of the member before it, so an
 * end-of-line comment stays with the member it was written beside (jsonc-parser's own insertion
 * puts the new member before that comment, and reformats its neighbour). Undefined when the
 * object is not laid out one member a line; jsonc-parser's edit is used then.
 */
function appendedMember(text: string, path: string[], value: unknown): string | undefined {
  const tree = parseTree(text);
  if (!tree || path.length === 0 || findNodeAtLocation(tree, path)) return undefined;
  // The deepest object on the path that is there takes the rest of the path as one new member.
  let depth = path.length - 1;
  while (depth > 0 && !findNodeAtLocation(tree, path.slice(0, depth))) depth--;
  const nested = path.slice(depth + 1).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
  return appendMember(text, findNodeAtLocation(tree, path.slice(0, depth)), path[depth]!, nested);
}

function appendMember(text: string, parent: Node | undefined, key: string, value: unknown): string | undefined {
  const last: Node | undefined = parent?.type === "object" ? parent.children?.at(-1) : undefined;
  if (!last) return undefined;
  const end = last.offset + last.length;
  const lineEnd = text.indexOf("\n", end);
  if (lineEnd === -1) return undefined;
  const rest = text.slice(end, lineEnd);
  // After the last member, only a trailing comma and a line comment may share its line.
  const shape = rest.match(/^(\s*)(,?)(\s*(\/\/.*)?)$/);
  if (!shape) return undefined;
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  const indent = text.slice(lineStart, last.offset);
  if (indent.trim() !== "") return undefined;
  const body = JSON.stringify(value, null, 2).replaceAll("\n", `\n${indent}`);
  const member = `${indent}${JSON.stringify(key)}: ${body}`;
  const hadComma = shape[2] === ",";
  // With a trailing comma the file keeps its style: the new member gets one too.
  const before = hadComma ? text.slice(0, lineEnd) : `${text.slice(0, end)},${rest}`;
  return `${before}\n${member}${hadComma ? "," : ""}${text.slice(lineEnd)}`;
}
