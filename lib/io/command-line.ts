// A command line given as one string (`--server "node server.js --port 3"`, $BROWSER), split
import type { Result } from "../wire/result.ts";
// into words as a POSIX shell would quote them, and never run through a shell.

/**
 * Splits a command line given as one string (`--server "node server.js --port 3"`) into words the
 * way a POSIX shell would quote them, without a shell: no variables, globs or substitutions.
 */
export function splitCommandLine(text: string): Result<string[]> {
  const words: string[] = [];
  let word = "";
  let started = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) word += text[++i];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "\\" && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (quote) return { ok: false, error: `unterminated ${quote} quote in ${JSON.stringify(text)}` };
  if (started) words.push(word);
  if (words.length === 0) return { ok: false, error: "empty command line" };
  return { ok: true, value: words };
}
