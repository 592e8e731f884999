// Whole files and streams read into memory with a cap (lib/io/read-capped.ts): at the cap, one over,
// endless sources (/dev/zero, a FIFO written forever), a FIFO nobody writes, a directory, aborts.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { type CappedRead, readFileCapped, readFileCappedSync, readStreamCapped } from "../../../lib/io/read-capped.ts";
import { BUN, ROOT, removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const dir = tempDir("mcpkit-read-capped-");
function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
function mkfifo(name: string): string {
  const path = join(dir, name);
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  return path;
}

// Text whose multi-byte characters straddle every 64 KiB chunk boundary of a read.
const straddling = Array.from({ length: 4 }, () => `${"a".repeat(64 * 1024 - 1)}€`).join("");
const straddlingBytes = Buffer.byteLength(straddling);

const readers: [string, (path: string, max: number) => Promise<CappedRead>][] = [
  ["readFileCappedSync", async (path, max) => readFileCappedSync(path, max)],
  ["readFileCapped", (path, max) => readFileCapped(path, max)],
];

describe.each(readers)("%s", (_name, read) => {
  const cases: [string, () => string, number, CappedRead][] = [
    ["an empty file", () => file("empty", ""), 10, { ok: true, value: "" }],
    ["exactly the cap", () => file("at-cap", "x".repeat(100)), 100, { ok: true, value: "x".repeat(100) }],
    ["one byte over the cap", () => file("over-cap", "x".repeat(101)), 100, { ok: false, error: { reason: "too-large" } }],
    ["a cap of 0 and an empty file", () => file("empty0", ""), 0, { ok: true, value: "" }],
    ["a cap of 0 and one byte", () => file("one", "x"), 0, { ok: false, error: { reason: "too-large" } }],
    [
      "multi-byte characters across every chunk boundary, at exactly the cap",
      () => file("straddling", straddling),
      straddlingBytes,
      { ok: true, value: straddling },
    ],
    [
      "the same, one byte under what it needs",
      () => file("straddling-over", straddling),
      straddlingBytes - 1,
      { ok: false, error: { reason: "too-large" } },
    ],
    ["a file that does not exist", () => join(dir, "missing"), 10, { ok: false, error: { reason: "unreadable", detail: "ENOENT" } }],
    [
      "a directory",
      () => (mkdirSync(join(dir, "a-dir"), { recursive: true }), join(dir, "a-dir")),
      10,
      { ok: false, error: { reason: "unreadable", detail: "EISDIR" } },
    ],
    ["/dev/zero, which never ends", () => "/dev/zero", 1024 * 1024, { ok: false, error: { reason: "too-large" } }],
  ];
  test.each(cases)("%s", async (_case, path, max, expected) => {
    expect(await read(path(), max)).toEqual(expected);
  });

  test("a FIFO written forever costs one bounded read: too large, and the writer is let go", async () => {
    const fifo = mkfifo(`endless-${_name}`);
    const writer = Bun.spawn(["sh", "-c", 'exec cat /dev/zero > "$0"', fifo], { stderr: "ignore" });
    expect(await read(fifo, 256 * 1024)).toEqual({ ok: false, error: { reason: "too-large" } });
    // Its reader gone, cat ends on a broken pipe rather than writing on.
    expect(await writer.exited).not.toBe(0);
  });

  test("a FIFO whose writer writes and closes is read whole", async () => {
    const fifo = mkfifo(`short-${_name}`);
    const writer = Bun.spawn(["sh", "-c", 'printf "a line\\n" > "$0"', fifo]);
    expect(await read(fifo, 100)).toEqual({ ok: true, value: "a line\n" });
    expect(await writer.exited).toBe(0);
  });
});

describe("readFileCapped, stopped by a signal", () => {
  test("a FIFO nobody writes: the read is aborted by its signal, in a child that then exits", async () => {
    // Opening a FIFO for reading blocks until a writer comes, in a thread of the child's pool; the
    // child ends with process.exit, as the tools do, so that thread cannot keep it alive.
    const fifo = mkfifo("nobody-writes");
    const script = `
      import { readFileCapped } from ${JSON.stringify(`${ROOT}/lib/io/read-capped.ts`)};
      const aborter = new AbortController();
      setImmediate(() => aborter.abort());
      console.log(JSON.stringify(await readFileCapped(${JSON.stringify(fifo)}, 100, aborter.signal)));
      process.exit(0);
    `;
    const child = Bun.spawn([BUN, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(JSON.parse(out)).toEqual({ ok: false, error: { reason: "aborted" } });
    expect(code).toBe(0);
  });

  test("a signal aborted before the read starts gives aborted, without reading", async () => {
    expect(await readFileCapped(file("never-read", "x"), 100, AbortSignal.abort())).toEqual({ ok: false, error: { reason: "aborted" } });
  });
});

describe("readStreamCapped, on an injected stream", () => {
  test("chunks up to the cap are joined and decoded once, so a character split between chunks survives", async () => {
    const stream = new PassThrough();
    const reading = readStreamCapped(stream, 10);
    const euro = Buffer.from("a€b");
    stream.write(euro.subarray(0, 2));
    stream.write(euro.subarray(2));
    stream.end();
    expect(await reading).toEqual({ ok: true, value: "a€b" });
  });

  test("past the cap the stream is destroyed and nothing more is read", async () => {
    const stream = new PassThrough();
    const reading = readStreamCapped(stream, 4);
    stream.write("abc");
    stream.write("de");
    expect(await reading).toEqual({ ok: false, error: { reason: "too-large" } });
    expect(stream.destroyed).toBe(true);
  });

  test("a stream that fails gives unreadable, with the error's code or else its message", async () => {
    const coded = new PassThrough();
    const first = readStreamCapped(coded, 100);
    coded.destroy(Object.assign(new Error("i/o error"), { code: "EIO" }));
    expect(await first).toEqual({ ok: false, error: { reason: "unreadable", detail: "EIO" } });
    const plain = new PassThrough();
    const second = readStreamCapped(plain, 100);
    plain.destroy(new Error("the socket broke"));
    expect(await second).toEqual({ ok: false, error: { reason: "unreadable", detail: "the socket broke" } });
  });

  test("an abort mid-stream gives aborted and destroys the stream", async () => {
    const stream = new PassThrough();
    const aborter = new AbortController();
    const reading = readStreamCapped(stream, 100, aborter.signal);
    stream.write("partial");
    aborter.abort();
    expect(await reading).toEqual({ ok: false, error: { reason: "aborted" } });
    expect(stream.destroyed).toBe(true);
  });

  test("the signal is let go once the read settles, however it ends", async () => {
    const listening = new Set<unknown>();
    const signal = {
      aborted: false,
      addEventListener: (_type: string, listener: unknown) => void listening.add(listener),
      removeEventListener: (_type: string, listener: unknown) => void listening.delete(listener),
    } as unknown as AbortSignal;
    const ended = new PassThrough();
    const whole = readStreamCapped(ended, 100, signal);
    expect(listening.size).toBe(1);
    ended.end("all of it");
    expect(await whole).toEqual({ ok: true, value: "all of it" });
    expect(listening.size).toBe(0);
    const flooded = new PassThrough();
    const tooLarge = readStreamCapped(flooded, 1, signal);
    flooded.write("xx");
    expect((await tooLarge).ok).toBe(false);
    expect(listening.size).toBe(0);
  });
});

test("regularOnly with noFollow (our own files): a symlink is not followed, a FIFO or a device is refused without a wait", () => {
  const dir = tempDir("mcpkit-regular-only-");
  const target = join(dir, "target");
  writeFileSync(target, "text");
  symlinkSync(target, join(dir, "link"));
  expect(Bun.spawnSync(["mkfifo", join(dir, "pipe")]).exitCode).toBe(0);
  const regular = { regularOnly: true, noFollow: true };
  expect(readFileCappedSync(target, 10, regular)).toEqual({ ok: true, value: "text" });
  // Without noFollow (a config a dotfile manager links into place) the link is followed.
  expect(readFileCappedSync(join(dir, "link"), 10, { regularOnly: true })).toEqual({ ok: true, value: "text" });
  expect(readFileCappedSync(join(dir, "link"), 10, regular)).toEqual({ ok: false, error: { reason: "unreadable", detail: "ELOOP" } });
  expect(readFileCappedSync(join(dir, "link"), 10)).toEqual({ ok: true, value: "text" });
  const refused: CappedRead = { ok: false, error: { reason: "unreadable", detail: "not a regular file" } };
  expect(readFileCappedSync(join(dir, "pipe"), 10, regular)).toEqual(refused);
  expect(readFileCappedSync("/dev/zero", 10, regular)).toEqual(refused);
});
