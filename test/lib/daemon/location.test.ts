// lib/daemon/location: the daemon's directory proven private with Bun's own stat calls where that
// proof holds (a warm call then never loads node:fs), and left to lib/daemon/paths.ts's lstat where it
// does not; either way a client finds the same paths, or the same refusal, as daemonPaths gives.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { likelyPaths, locateDaemon, provenWithoutNodeFs } from "../../../lib/daemon/location.ts";
import { daemonPaths } from "../../../lib/daemon/paths.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

/** What daemonPaths says (with node:fs and lstat), as locateDaemon would say it: the paths, or the error it throws. */
function bySlowPath(env: Record<string, string>): unknown {
  const paths = daemonPaths(env);
  return paths.ok ? paths.value : { error: paths.error };
}

async function byLocate(env: Record<string, string>): Promise<unknown> {
  try {
    return await locateDaemon({ env });
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A private directory of ours in `parent`. */
function privateDir(parent: string, name = "run"): string {
  const dir = join(parent, name);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe("the proof without node:fs", () => {
  test("a private directory of ours in a parent only we may write to is proven, with the paths daemonPaths gives", async () => {
    const dir = privateDir(tempDir("mcpd-"));
    const env = { MCPKIT_DAEMON_DIR: dir };
    expect(await provenWithoutNodeFs(env)).toEqual(bySlowPath(env) as never);
    expect(await byLocate(env)).toEqual(bySlowPath(env));
  });

  test("$XDG_RUNTIME_DIR/mcpkit is proven when XDG_RUNTIME_DIR is ours, ~/.mcpkit/run otherwise", async () => {
    const runtime = tempDir("mcpd-");
    privateDir(runtime, "mcpkit");
    expect((await provenWithoutNodeFs({ XDG_RUNTIME_DIR: runtime, HOME: "/nonexistent" }))?.dir).toBe(join(runtime, "mcpkit"));
    const home = tempDir("mcpd-");
    privateDir(home, ".mcpkit");
    privateDir(join(home, ".mcpkit"), "run");
    // A runtime directory of another user's: the home's directory is the one.
    expect((await provenWithoutNodeFs({ XDG_RUNTIME_DIR: othersDir(), HOME: home }))?.dir).toBe(join(home, ".mcpkit", "run"));
  });

  test.each([
    [
      "a link to a private directory elsewhere",
      (parent: string) => {
        const dir = join(parent, "run");
        symlinkSync(privateDir(tempDir("mcpd-")), dir);
        return dir;
      },
    ],
    [
      "a link to a private directory beside it, in a parent others may write to",
      (parent: string) => {
        chmodSync(parent, 0o777);
        const dir = join(parent, "run");
        symlinkSync(privateDir(parent, "real"), dir);
        return dir;
      },
    ],
    ["a directory others may enter", (parent: string) => join(parent, chmodDir(privateDir(parent), 0o750))],
    ["a directory not made yet", (parent: string) => join(parent, "missing")],
    ["a file", (parent: string) => (Bun.write(join(parent, "run"), ""), join(parent, "run"))],
  ])("%s is left to lstat, which refuses or accepts it as daemonPaths does", async (_what, make) => {
    const parent = tempDir("mcpd-");
    const env = { MCPKIT_DAEMON_DIR: make(parent) };
    expect(await provenWithoutNodeFs(env)).toBeUndefined();
    const located = await byLocate(env);
    expect(located).toEqual(bySlowPath(env));
  });

  test("a real private directory in a parent others may write to (/tmp) is left to lstat, and accepted by it", async () => {
    const parent = tempDir("mcpd-");
    chmodSync(parent, 0o1777);
    const env = { MCPKIT_DAEMON_DIR: privateDir(parent) };
    expect(await provenWithoutNodeFs(env)).toBeUndefined();
    expect(await byLocate(env)).toEqual(bySlowPath(env));
    expect((await byLocate(env)) as { dir: string }).toHaveProperty("dir", env.MCPKIT_DAEMON_DIR);
  });

  test("a link planted where others may write, given with a trailing slash, is still seen as a link and refused", async () => {
    const parent = tempDir("mcpd-");
    chmodSync(parent, 0o1777);
    const link = join(parent, "run");
    symlinkSync(privateDir(tempDir("mcpd-")), link);
    for (const given of [`${link}/`, `${link}//`]) {
      const env = { MCPKIT_DAEMON_DIR: given };
      expect(await provenWithoutNodeFs(env)).toBeUndefined();
      expect(await byLocate(env)).toEqual({ error: `${link} is not a directory (move it away; mcpkit keeps private files there)` });
    }
  });

  // Only root can give a directory to another user.
  test.skipIf(process.getuid?.() !== 0)("a parent that belongs to another user, who may swap what is in it, is left to lstat", async () => {
    const parent = tempDir("mcpd-");
    const env = { MCPKIT_DAEMON_DIR: privateDir(parent) };
    expect(await provenWithoutNodeFs(env)).toBeDefined();
    chownSync(parent, 65534, 65534);
    expect(await provenWithoutNodeFs(env)).toBeUndefined();
    expect(await byLocate(env)).toEqual(bySlowPath(env));
  });

  test("a relative directory is proven against its own parent", async () => {
    const parent = tempDir("mcpd-");
    privateDir(parent);
    const cwd = process.cwd();
    process.chdir(parent);
    try {
      expect((await provenWithoutNodeFs({ MCPKIT_DAEMON_DIR: "run" }))?.socket).toBe("run/daemon.sock");
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("the likely paths, named before any stat (a client connects there while the proof is made)", () => {
  test("are the ones proven for MCPKIT_DAEMON_DIR, an XDG_RUNTIME_DIR of ours and a home", async () => {
    const given = { MCPKIT_DAEMON_DIR: privateDir(tempDir("mcpd-")) };
    const runtime = tempDir("mcpd-");
    privateDir(runtime, "mcpkit");
    const xdg = { XDG_RUNTIME_DIR: runtime, HOME: "/nonexistent" };
    const home = tempDir("mcpd-");
    privateDir(privateDir(home, ".mcpkit"), "run");
    for (const env of [given, xdg, { HOME: home }]) expect(likelyPaths(env)).toEqual((await locateDaemon({ env })) as never);
  });

  test("take an XDG_RUNTIME_DIR to be ours, which the proof may then refuse for the home's", async () => {
    const home = tempDir("mcpd-");
    privateDir(privateDir(home, ".mcpkit"), "run");
    const env = { XDG_RUNTIME_DIR: othersDir(), HOME: home };
    expect(likelyPaths(env)?.dir).toBe(join(env.XDG_RUNTIME_DIR, "mcpkit"));
    expect((await locateDaemon({ env })).dir).toBe(join(home, ".mcpkit", "run"));
  });

  test("are none where the socket's path is over the system's limit", () => {
    expect(likelyPaths({ MCPKIT_DAEMON_DIR: `/tmp/${"x".repeat(200)}` })).toBeUndefined();
  });
});

/** A directory that is not ours: the root's, or as root one given to nobody (65534). */
function othersDir(): string {
  if (process.getuid?.() !== 0) return "/";
  const dir = tempDir("mcpd-");
  chownSync(dir, 65534, 65534);
  return dir;
}

function chmodDir(dir: string, mode: number): string {
  chmodSync(dir, mode);
  return "run";
}
