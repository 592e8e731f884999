// A config entry's `envFile` (VS Code and Cursor): a dotenv file of `KEY=value` lines whose
// variables go to the server under the entry's own `env`. Read like a config file, capped; only
// the plain dotenv forms, no `$VAR` expansion inside values, nothing is ever executed.

import { readFileCappedSync } from "../io/read-capped.ts";
import { MAX_CONFIG_BYTES } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/;

export function readEnvFile(file: string): Result<Record<string, string>> {
  // A project's entry may name /dev/stdin or a FIFO as its envFile: never read but a regular file.
  const read = readFileCappedSync(file, MAX_CONFIG_BYTES, { regularOnly: true });
  if (!read.ok)
    return {
      ok: false,
      error:
        read.error.reason === "too-large"
          ? `${file} is over the ${MAX_CONFIG_BYTES}-byte limit`
          : `cannot read ${file} (${read.error.detail})`,
    };
  return { ok: true, value: parseEnvText(read.value) };
}

/** `KEY=value`, `export KEY=value`, `KEY="quoted\nvalue"`, `KEY='literal'`; `#` starts a comment (outside quotes). */
export function parseEnvText(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(line)) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    values[match[1]!] = unquote(match[2]!);
  }
  return values;
}

function unquote(raw: string): string {
  const quote = raw[0];
  if ((quote === '"' || quote === "'") && raw.length > 1) {
    const end = raw.lastIndexOf(quote);
    if (end > 0) {
      const inner = raw.slice(1, end);
      return quote === '"' ? inner.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1") : inner;
    }
  }
  const comment = raw.search(/\s#/);
  return comment === -1 ? raw : raw.slice(0, comment).trimEnd();
}
