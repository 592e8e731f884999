// lib/daemon/paths: where mcp-daemon lives, in which order the places are tried, and the private
// directory refused (never "fixed") when it is not private.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonPaths, MAX_SOCKET_PATH_BYTES, resolvePaths } from "../../../lib/daemon/paths.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const pathsIn = (env: Record<string, string | undefined>) => {
  const paths = daemonPaths(env);
  if (!paths.ok) throw new Error(paths.error);
  return paths.value;
};

describe("daemonPaths", () => {
  test("MCPKIT_DAEMON_DIR holds everything, created 0700", () => {
    const dir = join(tempDir("mcpd-"), "run");
    expect(pathsIn({ MCPKIT_DAEMON_DIR: dir, XDG_RUNTIME_DIR: tempDir("mcpd-"), HOME: "/nonexistent" })).toEqual({
      dir,
      socket: join(dir, "daemon.sock"),
      pidFile: join(dir, "daemon.pid"),
      lockFile: join(dir, "daemon.lock"),
      logFile: join(dir, "daemon.log"),
      childrenFile: join(dir, "children.json"),
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("else $XDG_RUNTIME_DIR/mcpkit, when that directory is ours", () => {
    const runtime = tempDir("mcpd-");
    expect(pathsIn({ XDG_RUNTIME_DIR: runtime, HOME: tempDir("mcpd-") }).dir).toBe(join(runtime, "mcpkit"));
  });

  test("else ~/.mcpkit/run (an XDG_RUNTIME_DIR that does not exist is not ours)", () => {
    const home = tempDir("mcpd-");
    expect(pathsIn({ XDG_RUNTIME_DIR: join(home, "missing"), HOME: home }).dir).toBe(join(home, ".mcpkit", "run"));
    expect(pathsIn({ HOME: home }).dir).toBe(join(home, ".mcpkit", "run"));
  });

  test("a trailing slash on the directory given does not double in the paths under it", () => {
    const dir = join(tempDir("mcpd-"), "run");
    const paths = pathsIn({ MCPKIT_DAEMON_DIR: `${dir}//` });
    expect(paths.socket).toBe(join(dir, "daemon.sock"));
    const runtime = tempDir("mcpd-");
    expect(pathsIn({ XDG_RUNTIME_DIR: `${runtime}/`, HOME: tempDir("mcpd-") }).dir).toBe(join(runtime, "mcpkit"));
  });

  test("a directory others may enter is refused, and left as it was", () => {
    const dir = join(tempDir("mcpd-"), "open");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(daemonPaths({ MCPKIT_DAEMON_DIR: dir })).toEqual({
      ok: false,
      error: `${dir} is accessible to other users (mode 755); run \`chmod 700 ${dir}\` and try again`,
    });
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  test("a file where the directory should be is refused", () => {
    const file = join(tempDir("mcpd-"), "file");
    writeFileSync(file, "");
    expect(daemonPaths({ MCPKIT_DAEMON_DIR: file })).toEqual({
      ok: false,
      error: `${file} is not a directory (move it away; mcpkit keeps private files there)`,
    });
  });

  test("a socket path over the system's limit is refused, naming the variable that moves it", () => {
    const dir = join(tempDir("mcpd-"), "d".repeat(MAX_SOCKET_PATH_BYTES));
    const socket = join(dir, "daemon.sock");
    expect(daemonPaths({ MCPKIT_DAEMON_DIR: dir })).toEqual({
      ok: false,
      error:
        `the daemon socket path ${socket} is ${Buffer.byteLength(socket)} bytes, over this system's limit of ` +
        `${MAX_SOCKET_PATH_BYTES} (set MCPKIT_DAEMON_DIR to a shorter directory)`,
    });
  });

  test("the limit counts bytes, not characters: a path at the limit in characters but over it in bytes is refused", () => {
    const base = tempDir("mcpd-");
    const room = MAX_SOCKET_PATH_BYTES - Buffer.byteLength(join(base, "x", "daemon.sock")) + 1;
    const fits = join(base, "a".repeat(room));
    expect(Buffer.byteLength(join(fits, "daemon.sock"))).toBe(MAX_SOCKET_PATH_BYTES);
    expect(daemonPaths({ MCPKIT_DAEMON_DIR: fits }).ok).toBe(true);
    const wide = join(base, `${"a".repeat(room - 1)}é`); // as many characters, one byte more
    expect(daemonPaths({ MCPKIT_DAEMON_DIR: wide }).ok).toBe(false);
  });
});

test("resolvePaths: the paths given, else the environment's, else the environment's refusal", () => {
  const paths = pathsIn({ MCPKIT_DAEMON_DIR: join(tempDir("mcpd-"), "run") });
  expect(resolvePaths({ paths })).toBe(paths);
  expect(resolvePaths({ env: { MCPKIT_DAEMON_DIR: paths.dir } })).toEqual(paths);
  const file = join(paths.dir, "a-file");
  writeFileSync(file, "");
  expect(() => resolvePaths({ env: { MCPKIT_DAEMON_DIR: file } })).toThrow(`${file} is not a directory`);
});
