// The log levels every --log-level names (lib/io/log-levels.ts), checked before the logger loads.
import { expect, test } from "bun:test";
import { isLogLevelName, LOG_LEVELS } from "../../../lib/io/log-levels.ts";

test("the levels, from silent to trace, each more verbose than the one before", () => {
  expect(Object.keys(LOG_LEVELS)).toEqual(["silent", "error", "warn", "info", "debug", "trace"]);
  const values = Object.values(LOG_LEVELS);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  expect(new Set(values).size).toBe(values.length);
});

test.each(Object.keys(LOG_LEVELS))("%s is a level name", (name) => {
  expect(isLogLevelName(name)).toBe(true);
});

// Names an `in` check or a lookup on a plain object would take: the prototype's own properties.
test.each(["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "INFO", "Info", " info", "", "verbose", "log"])(
  "%p is not a level name",
  (name) => {
    expect(isLogLevelName(name)).toBe(false);
  },
);
