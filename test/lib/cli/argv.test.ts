import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import {
  commandFirst,
  prepareArgv,
  splitAtDoubleDash,
  splitServerCommand,
  takeRepeatable,
  unknownCommandProblem,
  unknownFlags,
  valueFlags,
} from "../../../lib/cli/argv.ts";
import { renderHelp, withExamples } from "../../../lib/cli/help.ts";
import { checkFlagValues, checkValue, MAX_DURATION_MS } from "../../../lib/cli/values.ts";

describe("argv handling", () => {
  test("the first -- splits our flags from the server's, whose own --help and -- stay intact", () => {
    expect(splitAtDoubleDash(["list-tools", "--json", "--", "node", "s.js", "--help", "--", "x"])).toEqual({
      own: ["list-tools", "--json"],
      command: ["node", "s.js", "--help", "--", "x"],
    });
    expect(splitAtDoubleDash(["list-tools"])).toEqual({ own: ["list-tools"], command: [] });
  });

  test("a leading word is the server command when bun swallowed the --", () => {
    expect(splitServerCommand(["node", "s.js"])).toEqual({ own: [], command: ["node", "s.js"] });
    expect(splitServerCommand(["--watch", "src", "--", "node"])).toEqual({ own: ["--watch", "src"], command: ["node"] });
    expect(splitServerCommand(["--watch", "src"])).toEqual({ own: ["--watch", "src"], command: [] });
  });

  test("repeatable flags keep every value in order, in all spellings", () => {
    const { rest, values } = takeRepeatable(["x", "--header", "A: 1", "-H", "B: 2", "--header=C: 3", "--env", "K=V", "--json"], {
      header: ["H"],
      env: ["e"],
    });
    expect(values).toEqual({ header: ["A: 1", "B: 2", "C: 3"], env: ["K=V"] });
    expect(rest).toEqual(["x", "--json"]);
  });

  test("a repeatable flag with no value is reported", () => {
    expect(takeRepeatable(["--header"], { header: [] }).missing).toBe("--header");
  });

  test("flags citty accepted silently but nobody declared are found", () => {
    const defs = { timeout: { type: "string" }, "no-validate": { type: "boolean" }, validate: { type: "boolean" } } as const;
    expect(unknownFlags({ _: [], timeout: "1", validate: false, bogus: true, "dry-run": true }, defs)).toEqual(["bogus", "dry-run"]);
  });
});

describe("options anywhere", () => {
  const defs: ArgsDef[] = [{ timeout: { type: "string" }, stateful: { type: "boolean" }, header: { type: "string", alias: ["H"] } }];
  test("the command word moves to the front, past options and their values", () => {
    const commands = ["list-tools", "call-tool"];
    expect(prepareArgv(["--stateful", "call-tool", "x", "--", "node", "s.js"], { commands, defs: defs }).rawArgs).toEqual([
      "call-tool",
      "--stateful",
      "x",
    ]);
    expect(prepareArgv(["--timeout", "1", "list-tools"], { commands, defs: defs }).rawArgs).toEqual(["list-tools", "--timeout", "1"]);
    expect(prepareArgv(["--timeout=1", "list-tools"], { commands, defs: defs }).rawArgs).toEqual(["list-tools", "--timeout=1"]);
    // A value that happens to be a command's name is still the option's value.
    expect(commandFirst(["--timeout", "list-tools", "call-tool"], commands, valueFlags(defs))).toEqual([
      "call-tool",
      "--timeout",
      "list-tools",
    ]);
  });

  test("an unknown command is named even after options; an option's value is not taken for one", () => {
    const commands = ["ping"];
    expect(unknownCommandProblem(["--timeout", "1", "pong"], commands, "t", valueFlags(defs))).toContain('unknown command "pong"');
    expect(unknownCommandProblem(["--timeout", "1", "ping"], commands, "t", valueFlags(defs))).toBeUndefined();
  });
});

describe("--help", () => {
  test("examples under their own heading, options wrapped to the width, no colour unless asked", async () => {
    const command = withExamples(
      {
        meta: { name: "tool", version: "1.2.3", description: "Does one thing well." },
        args: {
          long: { type: "string", description: "word ".repeat(40).trim(), valueHint: "v" },
          flag: { type: "boolean", description: "a switch" },
        },
      },
      ["tool --flag", "tool --long x"],
    );
    const text = await renderHelp(command as never, undefined, { width: 60, colour: false });
    expect(text).toStartWith("Usage: tool [options]   (version 1.2.3)\n\nDoes one thing well.\n");
    expect(text).toContain("\nExamples:\n  tool --flag\n  tool --long x\n");
    expect(text.split("\n").every((line) => line.length <= 60)).toBe(true);
    expect(text).not.toContain("\u001b[");
    expect(await renderHelp(command as never, undefined, { width: 60, colour: true })).toContain("\u001b[1mUsage:");
  });
});

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

  test("checkFlagValues reads every flag that declares a kind, and names the first bad one", () => {
    const defs = { timeout: { type: "string", value: "positive-duration" }, name: { type: "string" } } as const;
    expect(checkFlagValues({ timeout: "250", name: "x" }, defs)).toEqual({ ok: true, value: { timeout: 250 } });
    expect(checkFlagValues({ timeout: "-5" }, defs).ok).toBe(false);
  });
});
