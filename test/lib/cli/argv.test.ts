import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import {
  commandFirst,
  prepareArgv,
  separateServerCommand,
  splitAtDoubleDash,
  splitServerCommand,
  takeRepeatable,
  unknownCommandProblem,
  unknownFlags,
  valueFlags,
} from "../../../lib/cli/argv.ts";

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
    expect(splitServerCommand(["--watch", "src"], new Set(["--watch"]))).toEqual({ own: ["--watch", "src"], command: [] });
    // Options first, then the command without `--`, as Gemini CLI's `mcp add` writes an entry.
    expect(splitServerCommand(["--watch", "src", "--stateful", "node", "s.js", "--port", "1"], new Set(["--watch"]))).toEqual({
      own: ["--watch", "src", "--stateful"],
      command: ["node", "s.js", "--port", "1"],
    });
  });

  test("after the command word and our options, the first other word starts the server command (mcp-inspect mcp CMD ARGS)", () => {
    const values = new Set(["--timeout"]);
    expect(separateServerCommand(["mcp", "--timeout", "5", "node", "s.js", "--x"], "mcp", values)).toEqual([
      "mcp",
      "--timeout",
      "5",
      "--",
      "node",
      "s.js",
      "--x",
    ]);
    expect(separateServerCommand(["--timeout", "5", "mcp", "node"], "mcp", values)).toEqual(["--timeout", "5", "mcp", "--", "node"]);
    // With `--` as today, another command word, or no server word: as given.
    expect(separateServerCommand(["mcp", "--", "node"], "mcp", values)).toEqual(["mcp", "--", "node"]);
    expect(separateServerCommand(["list-tools", "node"], "mcp", values)).toEqual(["list-tools", "node"]);
    expect(separateServerCommand(["mcp", "--url", "http://x"], "mcp", new Set(["--url"]))).toEqual(["mcp", "--url", "http://x"]);
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
