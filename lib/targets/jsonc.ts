// JSON with comments and trailing commas (VS Code's mcp.json, Cursor's and Claude's files as people
// edit them), read and edited with jsonc-parser: an edit changes only what it must, so comments,
// trailing commas, number literals and the file's layout stay as the user wrote them.
import { applyEdits, modify, type ParseError, parse, printParseErrorCode } from "jsonc-parser";
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
  const edits = modify(text.trim() === "" ? "{}" : text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } });
  return applyEdits(text.trim() === "" ? "{}" : text, edits);
}
