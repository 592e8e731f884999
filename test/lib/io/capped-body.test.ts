// lib/io/capped-body: a body read whole stops at its cap with an error that says so, and the
// source is let go; a declared Content-Length past the cap fails before anything is read.
import { expect, test } from "bun:test";
import { BodyTooLargeError, cappedFetch, readBodyCapped } from "../../../lib/io/capped-body.ts";

const URL_ = "https://as.example.com/token";

/** A body of `chunks` chunks of 64 KiB, endless when Infinity; `cancelled` tells whether the reader let it go. */
function streamed(chunks: number) {
  let sent = 0;
  const state = { cancelled: false, pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ >= chunks) return controller.close();
      state.pulled++;
      controller.enqueue(new Uint8Array(64 * 1024).fill(0x61));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body), state };
}

test("a body under the cap is read whole", async () => {
  const { response } = streamed(2);
  expect((await readBodyCapped(response, 1024 * 1024, URL_)).length).toBe(128 * 1024);
});

test("an endless body fails just past the cap, names the origin and the cap, and the source is cancelled", async () => {
  const { response, state } = streamed(Infinity);
  const error = await readBodyCapped(response, 1024 * 1024, URL_).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BodyTooLargeError);
  expect((error as Error).message).toBe("the answer from https://as.example.com is larger than 1 MB (not read further)");
  expect(state.pulled).toBeLessThan(20);
  expect(state.cancelled).toBe(true);
});

test("a Content-Length past the cap fails before the body is read; .json() of a capped fetch fails the same way", async () => {
  const { response: declared, state } = streamed(1);
  const big = new Response(declared.body, { headers: { "content-length": String(2 * 1024 * 1024) } });
  await expect(readBodyCapped(big, 1024 * 1024, URL_)).rejects.toThrow("larger than 1 MB");
  expect(state.pulled).toBeLessThanOrEqual(1);

  const fetchEndless = (async () => streamed(Infinity).response) as unknown as typeof fetch;
  const response = await cappedFetch(fetchEndless, 1024 * 1024)(URL_);
  await expect(response.json()).rejects.toThrow("larger than 1 MB");
});
