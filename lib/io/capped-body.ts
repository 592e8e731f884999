// Response bodies with a cap, for code that reads them whole (the SDK's OAuth functions call
// .json() and .text()): past the cap the body fails with an error that says so, and the
// connection is let go, so an endless answer costs a bounded amount of memory.

/** A response body that went past its cap. */
export class BodyTooLargeError extends Error {}

const MEBIBYTE = 1024 * 1024;

function tooLarge(url: string, maxBytes: number): BodyTooLargeError {
  const size = maxBytes % MEBIBYTE === 0 ? `${maxBytes / MEBIBYTE} MB` : `${maxBytes} bytes`;
  return new BodyTooLargeError(`the answer from ${new URL(url).origin} is larger than ${size} (not read further)`);
}

/**
 * `response` with a body that fails past `maxBytes` (at once when its Content-Length says so);
 * `onoverflow` hears of it too, for a reader that would swallow the error.
 */
export function capBody(response: Response, maxBytes: number, url: string, onoverflow?: (error: BodyTooLargeError) => void): Response {
  if (!response.body) return response;
  const declared = Number(response.headers.get("content-length"));
  let seen = 0;
  const fail = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const error = tooLarge(url, maxBytes);
    onoverflow?.(error);
    controller.error(error);
  };
  const counting = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      if (declared > maxBytes) fail(controller);
    },
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) fail(controller);
      else controller.enqueue(chunk);
    },
  });
  // An error in the transform cancels the source, which lets the connection go.
  const body = response.body.pipeThrough(counting);
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** fetch whose every response body is capped at `maxBytes` (see capBody). */
export function cappedFetch(fetchImpl: typeof fetch, maxBytes: number, onoverflow?: (error: BodyTooLargeError) => void): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetchImpl(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return capBody(response, maxBytes, url, onoverflow);
  }) as typeof fetch;
}

/** The whole body as text, at most `maxBytes` (a BodyTooLargeError past it). */
export function readBodyCapped(response: Response, maxBytes: number, url: string): Promise<string> {
  return capBody(response, maxBytes, url).text();
}
