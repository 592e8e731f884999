// lib/auth/store: the one token store: a 0700 directory of 0600 files, written whole and renamed
// into place (never through a symlink), read from disk each time (a corrupt file reads as empty),
// and a lock per resource across processes.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthStore } from "../../../lib/auth/store.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const RESOURCE = "https://mcp.example.com/mcp";
const fileOf = (store: AuthStore, resource: string) =>
  join(store.dir, `${createHash("sha256").update(resource).digest("hex").slice(0, 32)}.json`);
const fresh = () => AuthStore.open({ MCPKIT_AUTH_DIR: join(tempDir("mcpkit-auth-"), "auth") });

describe("where it is", () => {
  const home = "/home/u";
  const cases: [string, Record<string, string | undefined>, string][] = [
    ["MCPKIT_AUTH_DIR", { MCPKIT_AUTH_DIR: "/srv/auth", HOME: home }, "/srv/auth"],
    ["else ~/.mcpkit/auth", { HOME: home }, join(home, ".mcpkit", "auth")],
    ["an empty MCPKIT_AUTH_DIR is unset", { MCPKIT_AUTH_DIR: "", HOME: home }, join(home, ".mcpkit", "auth")],
  ];
  for (const [what, env, dir] of cases) test(what, () => expect(AuthStore.dirOf(env)).toBe(dir));

  test("open() makes the directory 0700; exists() says whether there is one", () => {
    const env = { MCPKIT_AUTH_DIR: join(tempDir("mcpkit-auth-"), "a", "auth") };
    expect(AuthStore.exists(env)).toBe(false);
    const store = AuthStore.open(env);
    expect(AuthStore.exists(env)).toBe(true);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
  });

  test("a directory others may enter is refused, not fixed", () => {
    const dir = join(tempDir("mcpkit-auth-"), "auth");
    mkdirSync(dir);
    chmodSync(dir, 0o750);
    expect(() => AuthStore.open({ MCPKIT_AUTH_DIR: dir })).toThrow(`the token store: ${dir} is accessible to other users (mode 750)`);
    expect(statSync(dir).mode & 0o777).toBe(0o750);
  });
});

describe("reading and writing", () => {
  test("nothing stored reads as the bare resource", () => expect(fresh().read(RESOURCE)).toEqual({ resource: RESOURCE }));

  test("an update is written whole, 0600, renamed into place (a new file each time), no draft left behind", () => {
    const store = fresh();
    const first = store.update(RESOURCE, (entry) => ({ ...entry, issuer: "https://as" }));
    const file = fileOf(store, RESOURCE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const inode = statSync(file).ino;
    store.update(RESOURCE, (entry) => void (entry.wantedScope = "a b"));
    expect(statSync(file).ino).not.toBe(inode); // replaced by a rename, never rewritten in place
    expect(readdirSync(store.dir)).toEqual([file.split("/").pop()!]);
    expect(first.savedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(store.read(RESOURCE)).toMatchObject({ resource: RESOURCE, issuer: "https://as", wantedScope: "a b" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(store.read(RESOURCE));
  });

  test("each update starts from what is on disk now (another process's write is kept)", () => {
    const store = fresh();
    const other = new AuthStore(store.dir); // another process, same directory
    store.update(RESOURCE, (entry) => void (entry.issuer = "https://as"));
    other.update(RESOURCE, (entry) => void (entry.tokens = { access_token: "t", token_type: "Bearer" }));
    expect(store.read(RESOURCE)).toMatchObject({ issuer: "https://as", tokens: { access_token: "t" } });
  });

  test("a symlink where the file goes is replaced, and what it pointed at is left alone", () => {
    const store = fresh();
    const target = join(tempDir("mcpkit-auth-"), "elsewhere");
    writeFileSync(target, "precious");
    symlinkSync(target, fileOf(store, RESOURCE));
    store.update(RESOURCE, (entry) => void (entry.issuer = "https://as"));
    expect(readFileSync(target, "utf8")).toBe("precious");
    expect(lstatSync(fileOf(store, RESOURCE)).isSymbolicLink()).toBe(false);
  });

  test("a symlink to a token file is never followed: it reads as nothing stored", () => {
    const store = fresh();
    const planted = join(tempDir("mcpkit-auth-"), "planted.json");
    writeFileSync(planted, JSON.stringify({ resource: RESOURCE, tokens: { access_token: "someone-else's", token_type: "Bearer" } }));
    symlinkSync(planted, fileOf(store, RESOURCE));
    expect(store.read(RESOURCE)).toEqual({ resource: RESOURCE });
    expect(store.list()).toEqual([]);
  });

  test("a FIFO where the file goes reads as nothing stored at once (no writer is waited for), and the next update replaces it", () => {
    const store = fresh();
    const fifo = fileOf(store, RESOURCE);
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    expect(store.read(RESOURCE)).toEqual({ resource: RESOURCE });
    store.update(RESOURCE, (entry) => void (entry.issuer = "https://as"));
    expect(lstatSync(fifo).isFile()).toBe(true);
    expect(store.read(RESOURCE).issuer).toBe("https://as");
  });

  test("a file past 1 MB is not read: nothing stored, at the cost of one bounded read", () => {
    const store = fresh();
    const huge = JSON.stringify({ resource: RESOURCE, padding: "a".repeat(1024 * 1024) });
    writeFileSync(fileOf(store, RESOURCE), huge, { mode: 0o600 });
    expect(store.read(RESOURCE)).toEqual({ resource: RESOURCE });
  });

  const corrupt: [string, string][] = [
    ["half a file", '{"resource": "https://mcp.exa'],
    ["empty", ""],
    ["not an object", "null"],
    ["another resource's entry", JSON.stringify({ resource: "https://other.example.com/mcp", tokens: { access_token: "x" } })],
  ];
  for (const [what, content] of corrupt)
    test(`a file that is ${what} reads as empty, and the next update starts from empty`, () => {
      const store = fresh();
      writeFileSync(fileOf(store, RESOURCE), content, { mode: 0o600 });
      expect(store.read(RESOURCE)).toEqual({ resource: RESOURCE });
      expect(store.update(RESOURCE, (entry) => void (entry.issuer = "i"))).toEqual({
        resource: RESOURCE,
        issuer: "i",
        savedAt: expect.any(String) as never,
      });
    });

  test("forget removes the entry once", () => {
    const store = fresh();
    store.update(RESOURCE, () => undefined);
    expect(store.forget(RESOURCE)).toBe(true);
    expect(store.forget(RESOURCE)).toBe(false);
    expect(store.read(RESOURCE)).toEqual({ resource: RESOURCE });
  });

  test("list: every readable entry, by resource; half-written and foreign files skipped", () => {
    const store = fresh();
    for (const resource of ["https://b.example/mcp", "https://a.example/mcp"]) store.update(resource, () => undefined);
    writeFileSync(join(store.dir, "broken.json"), "{");
    writeFileSync(join(store.dir, "notes.txt"), "{}");
    writeFileSync(join(store.dir, "x.json.lock"), "1 2");
    expect(store.list().map(({ resource }) => resource)).toEqual(["https://a.example/mcp", "https://b.example/mcp"]);
  });
});

describe("the lock per resource", () => {
  test("two holders of one resource run one after the other; another resource's does not wait", async () => {
    const store = fresh();
    const order: string[] = [];
    const gate = Promise.withResolvers<void>();
    const first = store.withLock(RESOURCE, 10_000, undefined, async () => {
      order.push("first starts");
      await gate.promise;
      order.push("first ends");
    });
    const second = store.withLock(RESOURCE, 10_000, undefined, async () => void order.push("second runs"));
    await store.withLock("https://other.example/mcp", 0, undefined, async () => void order.push("other runs"));
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["first starts", "other runs", "first ends", "second runs"]);
  });

  test("a lock held elsewhere, not waited for: the error names its holder; a failed holder releases it", async () => {
    const store = fresh();
    const held = store.withLock(RESOURCE, 0, undefined, async () => {
      await expect(store.withLock(RESOURCE, 0, undefined, async () => "ran")).rejects.toThrow(`is still held by pid ${process.pid}`);
      throw new Error("work failed");
    });
    await expect(held).rejects.toThrow("work failed");
    expect(await store.withLock(RESOURCE, 0, undefined, async () => "ran")).toBe("ran");
  });

  test("an aborted wait for the lock stops with the signal's reason", async () => {
    const store = fresh();
    await store.withLock(RESOURCE, 0, undefined, async () => {
      const stop = new AbortController();
      stop.abort(new Error("interrupted"));
      await expect(store.withLock(RESOURCE, 10_000, stop.signal, async () => "ran")).rejects.toThrow("interrupted");
    });
  });
});
