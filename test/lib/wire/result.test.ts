// The one Result type (lib/wire/result.ts): `failed` builds the failure every check returns.
import { expect, test } from "bun:test";
import { failed, type Result } from "../../../lib/wire/result.ts";

test("failed(why) is { ok: false, error: why }, with nothing else in it", () => {
  expect(failed("no such file")).toEqual({ ok: false, error: "no such file" });
  expect(Object.keys(failed("x"))).toEqual(["ok", "error"]);
});

test("failed keeps an error of the caller's own shape as given", () => {
  const error = { reason: "too-large", bytes: 11 };
  const result = failed<string, typeof error>(error);
  expect(result).toEqual({ ok: false, error });
  if (!result.ok) expect(result.error).toBe(error);
});

test("ok narrows a Result: a value on one side, an error on the other", () => {
  const read = (text: string): Result<number> => (/^\d+$/.test(text) ? { ok: true, value: Number(text) } : failed(`not a number: ${text}`));
  const seen = ["12", "x"].map((text) => {
    const result = read(text);
    return result.ok ? result.value : result.error;
  });
  expect(seen).toEqual([12, "not a number: x"]);
});
