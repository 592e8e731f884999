// One check and one wording for every flag value that is a duration, a count, a port, a log level or
// a protocol revision (lib/cli/values.ts), whichever tool and flag it comes from.
import { describe, expect, test } from "bun:test";
import { checkFlagValues, checkValue, MAX_DURATION_MS, MAX_PORT, type ValueKind } from "../../../lib/cli/values.ts";
import { KNOWN_PROTOCOL_VERSIONS } from "../../../lib/wire/protocol.ts";

describe("one check and one wording for every value kind", () => {
  test("durations, counts, ports, log levels and revisions are each refused the same way whatever the flag", () => {
    expect(checkValue("--timeout", "positive-duration", "soon")).toEqual({
      ok: false,
      error: '--timeout takes milliseconds, a whole number of at least 1 (e.g. 5000), not "soon"',
    });
    expect(checkValue("--debounce", "duration", "0")).toEqual({ ok: true, value: 0 });
    expect(checkValue("--restart-timeout", "positive-duration", "0").ok).toBe(false);
    expect(checkValue("--idle-timeout", "positive-duration", String(MAX_DURATION_MS + 1))).toEqual({
      ok: false,
      error: `--idle-timeout takes at most ${MAX_DURATION_MS} ms (about 24 days), not ${MAX_DURATION_MS + 1}`,
    });
    expect(checkValue("--max-restarts", "count", "-1")).toEqual({
      ok: false,
      error: '--max-restarts takes a whole number of at least 0, not "-1"',
    });
    expect(checkValue("--lines", "positive-count", "0").ok).toBe(false);
    expect(checkValue("--callback-port", "port", "65536")).toEqual({
      ok: false,
      error: '--callback-port takes a port number (1-65535), not "65536"',
    });
    expect(checkValue("MCPDEV_PROXY_LOG_LEVEL", "log-level", "loud")).toEqual({
      ok: false,
      error: 'MCPDEV_PROXY_LOG_LEVEL takes one of silent, error, warn, info, debug, trace, not "loud"',
    });
    expect(checkValue("--protocol-version", "protocol-version", "2025-06-18")).toEqual({ ok: true, value: "2025-06-18" });
  });

  // Each kind at and just past its edges, and the spellings a number parser would take but a flag must not.
  const accepted: [ValueKind, string, number | string][] = [
    ["duration", "0", 0],
    ["duration", String(MAX_DURATION_MS), MAX_DURATION_MS],
    ["positive-duration", "1", 1],
    ["count", "0", 0],
    ["positive-count", "1", 1],
    ["count", String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
    ["port", "1", 1],
    ["port", String(MAX_PORT), MAX_PORT],
    ["log-level", "trace", "trace"],
    ["protocol-version", KNOWN_PROTOCOL_VERSIONS[0]!, KNOWN_PROTOCOL_VERSIONS[0]!],
  ];
  test.each(accepted)("%s accepts %p as %p", (kind, text, expected) => {
    expect(checkValue("--flag", kind, text)).toEqual({ ok: true, value: expected });
  });

  const refused: [ValueKind, unknown][] = [
    ["duration", String(MAX_DURATION_MS + 1)],
    ["duration", "1.5"],
    ["duration", "1e3"],
    ["duration", "0x10"],
    ["duration", " 5"],
    ["duration", ""],
    ["duration", 5],
    ["duration", true],
    ["count", "9007199254740993"],
    ["count", "+3"],
    ["port", "0"],
    ["port", "-1"],
    ["log-level", "INFO"],
    ["log-level", "toString"],
    ["protocol-version", "2099-01-01"],
    ["protocol-version", undefined],
  ];
  test.each(refused)("%s refuses %p, in words that name the flag", (kind, text) => {
    const checked = checkValue("--flag", kind, text);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error).toStartWith("--flag takes ");
  });

  test("checkFlagValues reads every flag that declares a kind, and names the first bad one", () => {
    const defs = { timeout: { type: "string", value: "positive-duration" }, name: { type: "string" } } as const;
    expect(checkFlagValues({ timeout: "250", name: "x" }, defs)).toEqual({ ok: true, value: { timeout: 250 } });
    expect(checkFlagValues({ timeout: "-5" }, defs).ok).toBe(false);
  });

  test("checkFlagValues skips flags not given, and reports the first bad flag in declaration order", () => {
    const defs = {
      port: { type: "string", value: "port" },
      lines: { type: "string", value: "positive-count" },
      level: { type: "string", value: "log-level" },
    } as const;
    expect(checkFlagValues({}, defs)).toEqual({ ok: true, value: {} });
    expect(checkFlagValues({ level: "loud", port: "0" }, defs)).toEqual({
      ok: false,
      error: '--port takes a port number (1-65535), not "0"',
    });
  });
});
