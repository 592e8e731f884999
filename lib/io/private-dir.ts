// A per-user directory that only its owner may enter (the daemon's socket, the OAuth tokens):
// created 0700; one that exists with looser permissions or another owner is refused, never "fixed".
import { lstatSync, mkdirSync, type Stats } from "node:fs";
import type { Result } from "../wire/result.ts";

export function ensurePrivateDir(dir: string): Result<string> {
  // lstat of "link/" follows the link: the trailing slashes go, so that a link is seen as one.
  const path = dir.replace(/\/+$/, "") || dir.slice(0, 1);
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch {
    try {
      mkdirSync(path, { recursive: true, mode: 0o700 });
      stats = lstatSync(path);
    } catch (error) {
      return { ok: false, error: `cannot create the directory ${dir} (${(error as NodeJS.ErrnoException).code ?? "error"})` };
    }
  }
  if (!stats.isDirectory()) return { ok: false, error: `${dir} is not a directory (move it away; mcpkit keeps private files there)` };
  if (stats.uid !== process.getuid?.())
    return { ok: false, error: `${dir} belongs to another user (uid ${stats.uid}); refusing to use it` };
  if ((stats.mode & 0o077) !== 0) {
    return {
      ok: false,
      error: `${dir} is accessible to other users (mode ${(stats.mode & 0o777).toString(8)}); run \`chmod 700 ${dir}\` and try again`,
    };
  }
  return { ok: true, value: dir };
}
