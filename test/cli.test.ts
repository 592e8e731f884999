import { describe, expect, test } from "bun:test";
import { splitAtDoubleDash, splitServerCommand, takeRepeatable, unknownFlags } from "../lib/cli.ts";

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
    const { rest, values } = takeRepeatable(["x", "--header", "A: 1", "-H", "B: 2", "--header=C: 3", "--env", "K=V", "--json"], { header: ["H"], env: ["e"] });
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
