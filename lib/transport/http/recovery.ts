// What happens when a request's response stream ends before its response. 2025-era Streamable
// HTTP resumes it: a GET with Last-Event-ID after the server's `retry:` delay, when the stream
// gave an event id. 2026-07-28 has no resumption: "A broken response stream loses the in-flight
// request; clients MUST re-issue it as a new request with a new request ID" (changelog, SEP-2575).
// We re-issue only requests that change nothing on the server; a tools/call (or anything else)
// may already have run, so it is answered with an error instead of being run twice. A server that
// keeps breaking its streams gets a bounded number of tries.

/** Resumptions or re-issues one request may take before it is answered with an error. */
export const MAX_STREAM_RECOVERIES = 3;
/** The wait before a resumption when the server named none (`retry:`), as browsers' EventSource default. */
export const DEFAULT_RESUME_DELAY_MS = 1_000;
/** A server's `retry:` is honoured up to this: a huge value must not hold the request for hours. */
export const MAX_RESUME_DELAY_MS = 30_000;
/** The wait before the n-th re-issue: n times this (a stream that just broke may break again at once). */
export const REISSUE_BACKOFF_MS = 100;
/** Ids we give re-issued requests: disjoint from any a client of ours uses. */
export const REISSUE_ID_PREFIX = "mcpkit-reissue-";

export function resumeDelayMs(retry: number | undefined): number {
  return Math.min(retry ?? DEFAULT_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS);
}

/** Why a request was not sent again after its stream broke. */
export function notReissuedReason(method: string, why: string): string {
  return (
    `${why} before the response; ${method} was not sent again, since the server may already have run it (send it again if that is ` +
    `safe)`
  );
}
