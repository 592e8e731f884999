// The one Result type: what a check or a read returns instead of throwing. `error` says what went
// wrong, in words a user acts on unless the caller needs more (then E is its own shape).

export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };

/** A failed Result, for `return failed("why")`. */
export function failed<T, E = string>(error: E): Result<T, E> {
  return { ok: false, error };
}
