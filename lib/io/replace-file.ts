// Writing a file that others may have planted something at: the text goes to a draft of our own
// (created exclusively, so never through a link) and is renamed over the target, so a reader sees
// the old file or the new one, never half of one. A symbolic link, a directory or a device at the
// target is refused, never written through: that is how a cloned repository or another local user
// would make us overwrite a file elsewhere.
import { randomBytes } from "node:crypto";
import { lstatSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Result } from "../wire/result.ts";

/** Replaces `file` with `text` (mode for a new file: 0644 unless given); refuses what is not a regular file. */
export function replaceFile(file: string, text: string, mode = 0o644): Result<string> {
  const existing = lstatSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isFile()) {
    const what = existing.isSymbolicLink() ? "a symbolic link" : existing.isDirectory() ? "a directory" : "not a regular file";
    return { ok: false, error: `${file} is ${what}: not writing through it (remove it, or write elsewhere)` };
  }
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.partial`;
  try {
    writeFileSync(draft, text, { mode, flag: "wx" });
    renameSync(draft, file);
    return { ok: true, value: file };
  } catch (error) {
    rmSync(draft, { force: true });
    return { ok: false, error: `cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}
