// A directory only its owner may enter (lib/io/private-dir.ts): created 0700; anything else there is
// refused, never "fixed".
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../../../lib/io/private-dir.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const mode = (path: string) => lstatSync(path).mode & 0o777;
const isRoot = process.getuid?.() === 0;

/** A symlink, beside it, to a private directory of ours. */
function linkToPrivateDir(): string {
  const base = tempDir();
  const real = join(base, "real");
  mkdirSync(real, { mode: 0o700 });
  const link = join(base, "link");
  symlinkSync(real, link);
  return link;
}

describe("ensurePrivateDir", () => {
  test("a missing directory is created 0700, its missing parents too", () => {
    const base = tempDir();
    const dir = join(base, "a", "b", "private");
    expect(ensurePrivateDir(dir)).toEqual({ ok: true, value: dir });
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(base, "a"))).toBe(0o700);
  });

  test.each([0o700, 0o500])("an existing directory of ours with mode %o is accepted", (bits) => {
    const dir = join(tempDir(), "ours");
    mkdirSync(dir);
    chmodSync(dir, bits);
    expect(ensurePrivateDir(dir)).toEqual({ ok: true, value: dir });
  });

  test.each([0o755, 0o750, 0o705, 0o701, 0o710, 0o770, 0o777])(
    "a directory others may enter (mode %o) is refused with the chmod to run, and left as it was",
    (bits) => {
      const dir = join(tempDir(), "loose");
      mkdirSync(dir);
      chmodSync(dir, bits);
      expect(ensurePrivateDir(dir)).toEqual({
        ok: false,
        error: `${dir} is accessible to other users (mode ${bits.toString(8)}); run \`chmod 700 ${dir}\` and try again`,
      });
      expect(mode(dir)).toBe(bits);
    },
  );

  test("a symlink is refused, even to a private directory of ours", () => {
    const link = linkToPrivateDir();
    expect(ensurePrivateDir(link)).toEqual({
      ok: false,
      error: `${link} is not a directory (move it away; mcpkit keeps private files there)`,
    });
  });

  test("a symlink given with a trailing slash is still refused (lstat of link/ would follow it)", () => {
    const link = linkToPrivateDir();
    expect(ensurePrivateDir(`${link}/`).ok).toBe(false);
    expect(ensurePrivateDir(`${link}//`).ok).toBe(false);
  });

  test("a file where the directory should be is refused, not replaced", () => {
    const path = join(tempDir(), "file");
    writeFileSync(path, "keep me", { mode: 0o600 });
    expect(ensurePrivateDir(path).ok).toBe(false);
    expect(lstatSync(path).isFile()).toBe(true);
  });

  test("a directory that cannot be created is named, with the reason", () => {
    const blocker = join(tempDir(), "file");
    writeFileSync(blocker, "");
    const dir = join(blocker, "private");
    expect(ensurePrivateDir(dir)).toEqual({ ok: false, error: `cannot create the directory ${dir} (ENOTDIR)` });
  });

  // Giving a directory to another user takes root; as anyone else this cannot be arranged.
  test.skipIf(!isRoot)("another user's directory is refused, even with mode 0700", () => {
    const dir = join(tempDir(), "theirs");
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 65534, 65534);
    expect(ensurePrivateDir(dir)).toEqual({ ok: false, error: `${dir} belongs to another user (uid 65534); refusing to use it` });
  });
});
