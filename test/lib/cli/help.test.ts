// --help for every tool (lib/cli/help.ts): the usage line, commands, options in two columns wrapped
// to the width, examples, and colour only when asked.
import { describe, expect, test } from "bun:test";
import { renderHelp, withExamples } from "../../../lib/cli/help.ts";

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

  test("a command with subcommands lists them (hidden ones left out), each by its first line, and says how to get theirs", async () => {
    const root = {
      meta: { name: "tool", version: "1.0.0" },
      subCommands: {
        run: { meta: { name: "run", description: "runs it\nand more detail" } },
        secret: { meta: { name: "secret", description: "internal", hidden: true } },
        // Lazily loaded, as the entry scripts declare theirs.
        later: async () => ({ meta: { name: "later", description: "loaded on demand" } }),
      },
    };
    const text = await renderHelp(root as never, undefined, { width: 80, colour: false });
    expect(text).toStartWith("Usage: tool <command> [options]");
    expect(text).toContain("Commands:\n  run    runs it\n  later  loaded on demand\n");
    expect(text).not.toContain("secret");
    expect(text).not.toContain("and more detail");
    expect(text).toContain("Run tool <command> --help for a command's own options.");
    expect(text).toContain("--version");
  });

  test("a subcommand's usage names its parent and its positionals; no version line or --version there", async () => {
    const parent = { meta: { name: "tool", version: "1.0.0" } };
    const sub = {
      meta: { name: "call", description: "calls a tool" },
      args: {
        name: { type: "positional", description: "the tool" },
        rest: { type: "positional", required: false, description: "arguments" },
        header: { type: "string", alias: ["H"], valueHint: "'Name: value'", description: "a header" },
        validate: { type: "boolean", default: true, description: "check the arguments" },
        json: { type: "string", description: "no hint given" },
      },
    };
    const text = await renderHelp(sub as never, parent as never, { width: 100, colour: false });
    expect(text).toStartWith("Usage: tool call <name> [rest] [options]\n");
    expect(text).not.toContain("version");
    expect(text).toContain("-H, --header <'Name: value'>");
    expect(text).toContain("--json <value>");
    expect(text).toContain("check the arguments (on by default; --no-… turns it off)");
    expect(text).toContain("-h, --help");
    expect(text.trimEnd().endsWith("show this help")).toBe(true);
  });

  test("a label wider than the left column goes on its own line, its description indented below", async () => {
    const command = {
      meta: { name: "t" },
      args: { [`a-${"very-".repeat(8)}long-flag`]: { type: "string", description: "described below" }, x: { type: "boolean" } },
    };
    const lines = (await renderHelp(command as never, undefined, { width: 60, colour: false })).split("\n");
    const at = lines.findIndex((line) => line.includes("--a-very-"));
    expect(lines[at]!.trim()).toBe(`--a-${"very-".repeat(8)}long-flag <value>`);
    expect(lines[at + 1]).toMatch(/^ {10,}described below$/);
  });
});
