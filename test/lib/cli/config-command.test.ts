// `<tool> config` (lib/cli/config-command.ts): the entry a client needs to run one of our tools,
// printed, or merged into a file with --write; its own flags, the tool's flags passed through.
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse as parseToml } from "smol-toml";
import { runConfigCommand } from "../../../lib/cli/config-command.ts";
import { EXIT } from "../../../lib/cli/exit-codes.ts";
import { CLIENTS } from "../../../lib/targets/client-config/write.ts";
import { captured } from "../../support/captured.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const ENTRY = "/src/mcp-proxy.ts";
const OPTIONS = { example: "--watch src -- node server.js", entryScript: ENTRY };
const config = (argv: string[], server: string[], options: Parameters<typeof runConfigCommand>[3] = OPTIONS) =>
  captured(() => runConfigCommand("mcp-proxy", argv, server, options));

describe("its own flags", () => {
  test.each(["--help", "-h"])("%s prints the usage on stdout, naming every client, and succeeds", async (flag) => {
    const run = await config(["--client", "cursor", flag], []);
    expect(run.result).toBe(0);
    expect(run.stdout).toStartWith("Usage: mcp-proxy config --client <");
    for (const client of CLIENTS) expect(run.stdout).toContain(client);
    expect(run.stdout).toContain("mcp-proxy config --client claude-desktop --name myserver --watch src -- node server.js");
    expect(run.stderr).toBe("");
  });

  test.each([
    ["no --client", [], ["node", "s.js"]],
    ["a client we do not know", ["--client", "emacs"], ["node", "s.js"]],
    ["--client with its value missing", ["--client"], ["node", "s.js"]],
  ])("%s is a usage error naming the clients there are", async (_name, argv, server) => {
    const run = await config(argv, server);
    expect(run.result).toBe(EXIT.usage);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`error: --client must be one of ${CLIENTS.join(", ")} (see mcp-proxy config --help)\n`);
  });

  test("no server command after -- is a usage error with an example", async () => {
    const run = await config(["--client", "cursor"], []);
    expect([run.result, run.stdout]).toEqual([EXIT.usage, ""]);
    expect(run.stderr).toBe(
      "error: give the server command after --, e.g. mcp-proxy config --client cursor --watch src -- node server.js\n",
    );
  });

  test.each([
    [["node", "/srv/my-server.js"], "my-server"],
    [["npx", "-y", "@scope/pkg"], "pkg"],
    [["deno", "run", "Main.TS"], "Main"],
    [["/usr/bin/python3.12"], "python3.12"],
    [["/"], "server"],
  ])("the name comes from the server command's last word: %p gives %p", async (server, name) => {
    const run = await config(["--client", "cursor"], server);
    expect(run.result).toBe(0);
    expect(Object.keys(JSON.parse(run.stdout).mcpServers)).toEqual([name]);
  });

  test.each([
    [["--name", "my server"], ["x"], '"my server"'],
    [["--name=../evil"], ["x"], '"../evil"'],
    [[], ["node", "my server.js"], '"my server"'],
  ])("a name with anything but letters, digits, _ . - is refused: %p", async (argv, server, shown) => {
    const run = await config(["--client", "cursor", ...argv], server);
    expect(run.result).toBe(EXIT.usage);
    expect(run.stderr).toBe(`error: --name ${shown} may hold only letters, digits, '_', '.' and '-'\n`);
  });
});

describe("printing the entry", () => {
  test("a JSON client gets the entry under its key: bun, the script, the tool's flags in order, --, the server", async () => {
    const run = await config(["--client=claude-desktop", "--watch", "src", "--name", "dev", "--verbose"], ["node", "/srv/s.js"]);
    expect(run.result).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      mcpServers: { dev: { command: process.execPath, args: [ENTRY, "--watch", "src", "--verbose", "--", "node", "/srv/s.js"] } },
    });
    expect(run.stderr).toMatch(/^add this to .+ \(or run again with --write\)\n$/);
  });

  test("leading arguments (mcp-inspect's `mcp`) come before the tool's flags, and VS Code's entry is typed", async () => {
    const run = await config(["--client", "vscode", "--timeout", "5"], ["node", "/srv/s.js"], { ...OPTIONS, leadingArgs: ["mcp"] });
    expect(JSON.parse(run.stdout)).toEqual({
      servers: { s: { type: "stdio", command: process.execPath, args: [ENTRY, "mcp", "--timeout", "5", "--", "node", "/srv/s.js"] } },
    });
  });

  test("Codex gets a TOML table", async () => {
    const run = await config(["--client", "codex", "--name", "dev"], ["node", "/srv/s.js"]);
    expect(run.result).toBe(0);
    expect(parseToml(run.stdout)).toEqual({
      mcp_servers: { dev: { command: process.execPath, args: [ENTRY, "--", "node", "/srv/s.js"] } },
    });
  });

  test("a relative path that exists draws a note with its absolute form; flags and absolute paths do not", async () => {
    const dir = tempDir();
    const script = join(dir, "server.js");
    writeFileSync(script, "");
    const near = relative(process.cwd(), script);
    const run = await config(["--client", "cursor", "--watch", dir], ["node", near, "--port", "/srv"]);
    expect(run.result).toBe(0);
    expect(run.stderr.split("\n").filter((line) => line.startsWith("note:"))).toEqual([
      `note: ${near} is a relative path; the client may run it from another directory (use ${script})`,
    ]);
  });
});

describe("--write", () => {
  test("creates the file, then adds a second server beside the first after a backup", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const first = await config(["--client", "cursor", "--write", "--file", file, "--name", "one"], ["node", "/srv/1.js"]);
    expect([first.result, first.stdout, first.stderr]).toEqual([0, `wrote "one" to ${file}\n`, ""]);
    const second = await config(["--client", "cursor", "--write", `--file=${file}`, "--name", "two"], ["node", "/srv/2.js"]);
    const backup = readdirSync(dir).find((name) => name !== "mcp.json")!;
    expect(second.stdout).toBe(`wrote "two" to ${file} (backup: ${join(dir, backup)})\n`);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["one", "two"]);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, backup), "utf8")).mcpServers)).toEqual(["one"]);
  });

  test("a file that is not valid JSON is refused with one error line and left as it was", async () => {
    const file = join(tempDir(), "broken.json");
    writeFileSync(file, "{ not json");
    const run = await config(["--client", "cursor", "--write", "--file", file], ["node", "/srv/s.js"]);
    expect(run.result).toBe(EXIT.usage);
    expect(run.stdout).toBe("");
    expect(run.stderr).toStartWith(`error: ${file} is not valid JSON`);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });

  test("Codex's TOML file keeps its other tables and comments", async () => {
    const file = join(tempDir(), "config.toml");
    writeFileSync(file, '# mine\nmodel = "o4"\n\n[mcp_servers.old]\ncommand = "keep"\n');
    const run = await config(["--client", "codex", "--write", "--file", file, "--name", "dev"], ["node", "/srv/s.js"]);
    expect(run.result).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toStartWith("# mine\n");
    expect(parseToml(text)).toEqual({
      model: "o4",
      mcp_servers: { old: { command: "keep" }, dev: { command: process.execPath, args: [ENTRY, "--", "node", "/srv/s.js"] } },
    });
  });
});
