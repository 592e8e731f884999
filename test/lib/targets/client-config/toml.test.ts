// A server added to a Codex config.toml as text: every comment and every other table kept byte for
// byte, an older table of that name (and its sub-tables) cut out, and a file this cannot edit
// safely left unchanged with a line that says why.
import { expect, test } from "bun:test";
import { parse } from "smol-toml";
import { serverTable, tomlWithServer } from "../../../../lib/targets/client-config/toml.ts";

const FILE = "/home/u/.codex/config.toml";
const ENTRY = { command: "run", args: ["--port", "1"], env: { K: "v" } };
const TABLE = '[mcp_servers.docs]\ncommand = "run"\nargs = [ "--port", "1" ]\n\n[mcp_servers.docs.env]\nK = "v"\n';

test("the table is the server under mcp_servers, its env a sub-table, a dotted name quoted", () => {
  expect(serverTable("docs", ENTRY)).toBe(TABLE);
  expect(serverTable("my.server", { command: "x" })).toBe('[mcp_servers."my.server"]\ncommand = "x"\n');
  expect(parse(serverTable("my.server", { command: "x" }))).toEqual({ mcp_servers: { "my.server": { command: "x" } } });
});

test("added to an empty file, and after a file's last line with one blank line between, newline or not", () => {
  expect(tomlWithServer("", "docs", ENTRY, FILE)).toEqual({ ok: true, value: TABLE });
  expect(tomlWithServer("model = 'o3'", "docs", ENTRY, FILE)).toEqual({ ok: true, value: `model = 'o3'\n\n${TABLE}` });
  expect(tomlWithServer("model = 'o3'\n", "docs", ENTRY, FILE)).toEqual({ ok: true, value: `model = 'o3'\n\n${TABLE}` });
});

test("a new name is appended and every comment, blank line and other table is kept as written", () => {
  const text = '# my settings\nmodel = "o3" # the default\n\n[mcp_servers.other]\n# why it is here\ncommand = "keep"  # trailing\n';
  expect(tomlWithServer(text, "docs", ENTRY, FILE)).toEqual({ ok: true, value: `${text}\n${TABLE}` });
});

test("an existing table of that name and its sub-tables are replaced; the comments before the next table stay with it", () => {
  const text = [
    "# top",
    "[mcp_servers.docs]",
    "# a note about the old docs, cut with it",
    'command = "old"',
    "",
    "[mcp_servers.docs.env]",
    'OLD = "1"',
    "",
    "# about docs-extra, kept",
    "[mcp_servers.docs-extra]",
    'command = "a"',
    "",
  ].join("\n");
  const updated = tomlWithServer(text, "docs", ENTRY, FILE);
  expect(updated).toEqual({
    ok: true,
    value: `# top\n\n# about docs-extra, kept\n[mcp_servers.docs-extra]\ncommand = "a"\n\n${TABLE}`,
  });
  expect(updated.ok && parse(updated.value)).toEqual({ mcp_servers: { "docs-extra": { command: "a" }, docs: ENTRY } });
});

test("a quoted header of the same name is replaced; an array of tables after it is kept", () => {
  const text = '[mcp_servers."docs"] # quoted\ncommand = "old"\n[[profiles]]\nname = "a"\n';
  expect(tomlWithServer(text, "docs", ENTRY, FILE)).toEqual({ ok: true, value: `[[profiles]]\nname = "a"\n\n${TABLE}` });
});

test.each([
  ["is not valid TOML", "[mcp_servers\n", `${FILE} is not valid TOML (`],
  ["has mcp_servers as a value", "mcp_servers = 3\n", `"mcp_servers" in ${FILE} is not a table; fix it first, nothing was changed`],
  ["writes the server as an inline table", "mcp_servers.docs = { command = 'old' }\n", "in a form this tool does not edit"],
  ["writes the server as dotted keys", "[mcp_servers]\ndocs.command = 'old'\n", "in a form this tool does not edit"],
  // A header-like line inside a multi-line string would cut the string short: the check after the edit catches it.
  ["has a header-like line in a string", 'notes = """\n[mcp_servers.docs]\n"""\n[mcp_servers.docs]\ncommand = "old"\n', "does not edit"],
])("a file that %s is left unchanged, saying why", (_what, text, fragment) => {
  const updated = tomlWithServer(text, "docs", ENTRY, FILE);
  expect(updated.ok).toBe(false);
  expect(!updated.ok && updated.error).toContain(fragment);
  expect(!updated.ok && updated.error).toEndWith("nothing was changed");
});
