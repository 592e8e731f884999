// Reading a whole file or stream into memory, the one way every tool does it: with a cap, in
// chunks that yield to the event loop (a signal or a timeout is still heard while /dev/zero is
// read), and stoppable by an AbortSignal.
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync, statSync } from "node:fs";
import type { Result } from "../wire/result.ts";
import { type NodeReadable, readChunks } from "./reading.ts";

/** Why a read gave up: past the cap, aborted, or the source failed (`detail`: the error code, e.g. ENOENT). */
export type ReadFailure = { reason: "too-large" | "aborted" | "unreadable"; detail?: string };
export type CappedRead = Result<string, ReadFailure>;

type ClosableReadable = NodeReadable & { destroy?: () => void };

/** Reads a stream to its end, failing (and no longer reading) past `maxBytes` or when `signal` aborts. */
export function readStreamCapped(source: ClosableReadable, maxBytes: number, signal?: AbortSignal): Promise<CappedRead> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (result: CappedRead, stop: boolean) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onabort);
      if (stop) {
        flow.pause("done");
        source.destroy?.();
      }
      resolve(result);
    };
    const onabort = () => settle({ ok: false, error: { reason: "aborted" } }, true);
    const flow = readChunks(source, {
      onchunk(chunk) {
        if (settled) return;
        bytes += chunk.length;
        if (bytes > maxBytes) return settle({ ok: false, error: { reason: "too-large" } }, true);
        chunks.push(chunk);
      },
      onend(error) {
        if (error)
          return settle(
            { ok: false, error: { reason: "unreadable", detail: (error as NodeJS.ErrnoException).code ?? error.message } },
            false,
          );
        settle({ ok: true, value: Buffer.concat(chunks).toString("utf8") }, false);
      },
    });
    if (signal?.aborted) return onabort();
    signal?.addEventListener("abort", onabort, { once: true });
  });
}

/** A file, read asynchronously (see readStreamCapped). */
export function readFileCapped(path: string, maxBytes: number, signal?: AbortSignal): Promise<CappedRead> {
  return readStreamCapped(createReadStream(path), maxBytes, signal);
}

const SYNC_CHUNK_BYTES = 64 * 1024;
const NOT_REGULAR = "not a regular file";

/**
 * A small file (a config) read synchronously, at most `maxBytes`: a path that names /dev/zero or a
 * FIFO that never ends costs one bounded read, not all the memory there is. With `regularOnly`,
 * anything but a regular file is refused before a byte is read (detail "not a regular file"), and
 * it is opened without blocking, so a FIFO with no writer (or /dev/stdin an idle pipe) never hangs.
 * With `noFollow` (files of ours, such as the token store's) a symbolic link is refused (ELOOP).
 */
export function readFileCappedSync(
  path: string,
  maxBytes: number,
  options: { regularOnly?: boolean; noFollow?: boolean } = {},
): CappedRead {
  let fd: number;
  try {
    if (options.regularOnly && !options.noFollow && !statSync(path).isFile())
      return { ok: false, error: { reason: "unreadable", detail: NOT_REGULAR } };
    const flags = options.regularOnly ? constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) : constants.O_RDONLY;
    fd = openSync(path, options.noFollow ? flags | constants.O_NOFOLLOW : options.regularOnly ? flags : "r");
  } catch (error) {
    return { ok: false, error: { reason: "unreadable", detail: (error as NodeJS.ErrnoException).code ?? "read error" } };
  }
  try {
    const stats = fstatSync(fd);
    if (options.regularOnly && !stats.isFile()) return { ok: false, error: { reason: "unreadable", detail: NOT_REGULAR } };
    if (stats.isDirectory()) return { ok: false, error: { reason: "unreadable", detail: "EISDIR" } };
    if (options.regularOnly && !stats.isFile()) return { ok: false, error: { reason: "unreadable", detail: "not a regular file" } };
    if (stats.isFile() && stats.size > maxBytes) return { ok: false, error: { reason: "too-large" } };
    const chunks: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(SYNC_CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      bytes += read;
      if (bytes > maxBytes) return { ok: false, error: { reason: "too-large" } };
      chunks.push(chunk.subarray(0, read));
    }
    return { ok: true, value: Buffer.concat(chunks).toString("utf8") };
  } catch (error) {
    return { ok: false, error: { reason: "unreadable", detail: (error as NodeJS.ErrnoException).code ?? "read error" } };
  } finally {
    closeSync(fd);
  }
}
