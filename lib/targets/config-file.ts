// Reading a client config file the one way discovery does: a regular file only (a project can
// ship `.mcp.json` as a link to /dev/stdin or a FIFO, which would hang the reader), opened without
// blocking, read capped and within a deadline, then parsed as its client parses it, its nesting
// capped first (a few megabytes of `[` overflow a recursive parser's stack).
import { constants, type Stats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { readStreamCapped } from "../io/read-capped.ts";
import { MAX_CONFIG_BYTES } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";
import { type ConfigFormat, formatName, parseConfigText } from "./config-text.ts";

/** Why a config file was not read: "absent" is no problem at all; else one line that names the file. */
export type ConfigFileFailure = { absent: true } | { absent: false; problem: string };

/** The parsed file, or why not. `signal` ends a read that takes too long (discovery's --timeout). */
export async function readConfigFile(
  file: string,
  format: ConfigFormat,
  signal?: AbortSignal,
): Promise<Result<unknown, ConfigFileFailure>> {
  const problem = (text: string): Result<unknown, ConfigFileFailure> => ({ ok: false, error: { absent: false, problem: text } });
  if (signal?.aborted) return problem(timedOut(file));
  let handle: FileHandle | undefined;
  try {
    const before = await stat(file);
    if (!before.isFile()) return problem(`${file} is not a regular file (${kindOf(before)})`);
    // O_NONBLOCK: a FIFO swapped in after the stat opens at once instead of waiting for a writer.
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const opened = await handle.stat();
    if (!opened.isFile()) return problem(`${file} is not a regular file (${kindOf(opened)})`);
    if (opened.size > MAX_CONFIG_BYTES) return problem(tooLarge(file));
    const read = await readStreamCapped(handle.createReadStream({ autoClose: false }), MAX_CONFIG_BYTES, signal);
    if (!read.ok) {
      if (read.error.reason === "too-large") return problem(tooLarge(file));
      if (read.error.reason === "aborted") return problem(timedOut(file));
      return problem(`cannot read ${file} (${read.error.detail})`);
    }
    const parsed = parseConfigText(read.value, format);
    return parsed.ok ? parsed : problem(`${file} is not valid ${formatName(format)} (${parsed.error})`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, error: { absent: true } };
    return problem(`cannot read ${file} (${code ?? (error as Error).message})`);
  } finally {
    // Not awaited: a read given up on may be stuck in the file system, and its close with it.
    handle?.close().catch(() => {});
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a file";
}

function tooLarge(file: string): string {
  return `${file} is over the ${MAX_CONFIG_BYTES}-byte limit`;
}

function timedOut(file: string): string {
  return `reading ${file} did not finish in time (--timeout)`;
}
