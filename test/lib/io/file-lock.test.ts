// A lock several processes contend for, as a file (lib/io/file-lock.ts): taken whole or not at all,
// a stale one replaced, a live one waited for, and only ever one holder.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeFsError, lockHolder, releaseLock, tryLock, withLock } from "../../../lib/io/file-lock.ts";
import { processStartTime } from "../../../lib/io/process.ts";
import { pollUntil } from "../../../lib/io/reading.ts";
import { BUN, ROOT, readUntil, removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const OPTIONS = { maxAgeMs: 60_000, dirVariable: "MCPKIT_TEST_DIR" };
const LOCK_MODULE = JSON.stringify(join(ROOT, "lib/io/file-lock.ts"));
/** Above Linux's PID_MAX_LIMIT (2^22): no process can have it. */
const NO_SUCH_PID = 2 ** 22 + 1;
const OURS = `${process.pid} ${processStartTime(process.pid) ?? ""}`.trim();

const lockIn = (dir = tempDir()) => join(dir, "the.lock");

/** A child that takes the lock, says "locked", and holds it until its stdin closes (then notes in `log` that it let go). */
async function holder(lockFile: string, log = `${lockFile}.log`) {
  const script = `
    import { appendFileSync } from "node:fs";
    import { releaseLock, tryLock } from ${LOCK_MODULE};
    if (!tryLock(${JSON.stringify(lockFile)}, ${JSON.stringify(OPTIONS)})) { console.log("busy"); process.exit(1); }
    console.log("locked");
    for await (const _ of process.stdin);
    appendFileSync(${JSON.stringify(log)}, "holder let go\\n");
    releaseLock(${JSON.stringify(lockFile)});
    console.log("released");
  `;
  const child = Bun.spawn([BUN, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  expect(await readUntil(reader, (text) => text.includes("\n"))).toBe("locked\n");
  return {
    pid: child.pid,
    /** Lets the lock go; resolves once the child says it has. */
    async release(): Promise<void> {
      child.stdin.end();
      expect(await readUntil(reader, (text) => text.includes("released\n"))).toBe("released\n");
      await child.exited;
    },
    kill: () => child.kill("SIGKILL"),
  };
}

describe("tryLock", () => {
  test("a free lock is taken: the file says our pid and start time, is 0600, and no draft is left", () => {
    const dir = tempDir();
    const lock = lockIn(dir);
    expect(tryLock(lock, OPTIONS)).toBe(true);
    expect(lockHolder(lock)).toBe(OURS);
    expect(readFileSync(lock, "utf8").endsWith("\n")).toBe(true);
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["the.lock"]);
  });

  test("a lock we hold is not taken again, nor removed as stale", () => {
    const lock = lockIn();
    expect(tryLock(lock, OPTIONS)).toBe(true);
    expect(tryLock(lock, OPTIONS)).toBe(false);
    expect(lockHolder(lock)).toBe(OURS);
  });

  test("a live holder's lock is neither taken nor replaced", async () => {
    const lock = lockIn();
    const child = await holder(lock);
    try {
      const held = lockHolder(lock);
      expect(held.split(" ")[0]).toBe(String(child.pid));
      expect(tryLock(lock, OPTIONS)).toBe(false);
      expect(lockHolder(lock)).toBe(held);
    } finally {
      await child.release();
    }
  });

  const stale: [string, string, number][] = [
    ["empty (a full disk when it was written)", "", 0],
    ["not a pid at all", "garbage", 0],
    ["pid 0", "0 1", 0],
    ["a negative pid", "-5 1", 0],
    ["a dead pid", `${NO_SUCH_PID} 1`, 0],
    ["a reused pid: alive, but another process than the one that wrote it", `${process.pid} 1`, 0],
    ["a live pid without the start time a lock of ours always carries", String(process.pid), 0],
    ["a live holder's, older than any holder may keep it", OURS, 3_600_000],
  ];
  test.each(stale)("a stale lock is removed, and the next try takes it: %s", (_name, content, ageMs) => {
    const lock = lockIn();
    writeFileSync(lock, `${content}\n`);
    if (ageMs) {
      const then = new Date(Date.now() - ageMs);
      utimesSync(lock, then, then);
    }
    expect(tryLock(lock, OPTIONS)).toBe(false);
    expect(existsSync(lock)).toBe(false);
    expect(tryLock(lock, OPTIONS)).toBe(true);
    expect(lockHolder(lock)).toBe(OURS);
  });

  test("a lock in a directory that does not exist is an error that names the directory", () => {
    const dir = join(tempDir(), "missing");
    expect(() => tryLock(join(dir, "x.lock"), OPTIONS)).toThrow(`${dir}: `);
  });
});

describe("releaseLock", () => {
  test("removes our lock, and leaves another's where it is", () => {
    const lock = lockIn();
    tryLock(lock, OPTIONS);
    releaseLock(lock);
    expect(existsSync(lock)).toBe(false);
    writeFileSync(lock, "1 12345\n");
    releaseLock(lock);
    expect(lockHolder(lock)).toBe("1 12345");
  });

  test("a lock that is gone already is no error, and lockHolder says nobody", () => {
    const lock = lockIn();
    expect(() => releaseLock(lock)).not.toThrow();
    expect(lockHolder(lock)).toBe("");
  });
});

describe("withLock", () => {
  const waiting = { ...OPTIONS, waitMs: 20_000, pollMs: 5 };

  test("a live holder is waited for: the work runs only once the holder has let go", async () => {
    const dir = tempDir();
    const lock = lockIn(dir);
    const log = join(dir, "log");
    const child = await holder(lock, log);
    // Whichever process writes to the log holds the lock, so the log's order is the order of holders.
    const working = withLock(lock, waiting, async () => {
      appendFileSync(log, `work while ${lockHolder(lock) === OURS ? "holding" : "not holding"}\n`);
      return "result";
    });
    await child.release();
    expect(await working).toBe("result");
    expect(readFileSync(log, "utf8")).toBe("holder let go\nwork while holding\n");
    expect(existsSync(lock)).toBe(false);
  });

  test("gives up after waitMs, naming the holder's pid, and leaves the holder's lock alone", async () => {
    const lock = lockIn();
    const child = await holder(lock);
    try {
      let ran = false;
      await expect(withLock(lock, { ...OPTIONS, waitMs: 0 }, async () => void (ran = true))).rejects.toThrow(
        `${lock} is still held by pid ${child.pid}`,
      );
      expect(ran).toBe(false);
      expect(lockHolder(lock).split(" ")[0]).toBe(String(child.pid));
    } finally {
      await child.release();
    }
  });

  test("an abort stops the wait with the signal's reason", async () => {
    const lock = lockIn();
    writeFileSync(lock, `${OURS}\n`); // held by a live process: us, as far as the lock can tell
    const aborter = new AbortController();
    const reason = new Error("shutting down");
    const wait = withLock(lock, { ...waiting, signal: aborter.signal }, async () => "never");
    aborter.abort(reason);
    await expect(wait).rejects.toBe(reason);
  });

  test("the lock is released when the work throws, and the work's error is what the caller gets", async () => {
    const lock = lockIn();
    await expect(
      withLock(lock, waiting, async () => {
        throw new Error("work failed");
      }),
    ).rejects.toThrow("work failed");
    expect(existsSync(lock)).toBe(false);
  });

  test("a long holder's heartbeat keeps its lock fresh, so it never looks stale", async () => {
    const lock = lockIn();
    const old = new Date(Date.now() - 3_600_000);
    await withLock(lock, { ...waiting, heartbeatMs: 5 }, async () => {
      utimesSync(lock, old, old);
      const fresh = await pollUntil(() => statSync(lock).mtimeMs > old.getTime(), { everyMs: 5, withinMs: 10_000 });
      expect(fresh).toBe(true);
    });
  });

  test("two children contending: one holder at a time, and every increment of a shared counter kept", async () => {
    const dir = tempDir();
    const lock = lockIn(dir);
    const log = join(dir, "log");
    const counter = join(dir, "counter");
    writeFileSync(counter, "0");
    const rounds = 15;
    const script = `
      import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
      import { withLock } from ${LOCK_MODULE};
      await new Promise((resolve) => process.stdin.once("data", resolve));
      for (let i = 0; i < ${rounds}; i++) {
        await withLock(${JSON.stringify(lock)}, ${JSON.stringify({ ...waiting, pollMs: 1 })}, async () => {
          appendFileSync(${JSON.stringify(log)}, "start " + process.pid + "\\n");
          const seen = Number(readFileSync(${JSON.stringify(counter)}, "utf8"));
          await new Promise((resolve) => setImmediate(resolve));
          writeFileSync(${JSON.stringify(counter)}, String(seen + 1));
          appendFileSync(${JSON.stringify(log)}, "end " + process.pid + "\\n");
        });
      }
    `;
    const children = [0, 1].map(() => Bun.spawn([BUN, "-e", script], { stdin: "pipe", stdout: "inherit", stderr: "inherit" }));
    // Both have loaded before either starts: they go together.
    for (const child of children) {
      child.stdin.write("go\n");
      child.stdin.end();
    }
    expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0]);
    expect(readFileSync(counter, "utf8")).toBe(String(2 * rounds));
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(4 * rounds);
    for (let i = 0; i < lines.length; i += 2) {
      const pid = lines[i]!.split(" ")[1];
      expect([lines[i], lines[i + 1]]).toEqual([`start ${pid}`, `end ${pid}`]);
    }
    expect(existsSync(lock)).toBe(false);
  });
});

test.each([
  ["ENOSPC", "no space left on the device holding /d (free some space, or set MCPKIT_X elsewhere)"],
  ["EROFS", "/d is on a read-only file system (set MCPKIT_X to a writable directory)"],
  ["EACCES", "no permission to write /d (set MCPKIT_X to a directory of yours)"],
  ["EPERM", "no permission to write /d (set MCPKIT_X to a directory of yours)"],
  ["EDQUOT", "the disk quota is exhausted for /d"],
  ["EIO", "/d: i/o trouble"],
])("describeFsError words %s so that a user can act on it", (code, words) => {
  expect(describeFsError(Object.assign(new Error("i/o trouble"), { code }), "/d", "MCPKIT_X")).toBe(words);
});
