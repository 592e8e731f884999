// One client file read into its server entries as written: a file that is not there is nothing,
// a broken or hostile one is one problem line (never a hang), an entry that is not an object is
// named and the rest kept, and VS Code's input definitions come with its servers.
import { afterAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigSource } from "../../../../lib/targets/discovery/clients.ts";
import { type ParseCache, readSource } from "../../../../lib/targets/discovery/read.ts";
import { removeTempDirs, tempDir } from "../../../support/helpers.ts";

afterAll(removeTempDirs);

function source(file: string, overrides: Partial<ConfigSource> = {}): ConfigSource {
  return { client: "claude-code", scope: "user", file, format: "json", key: ["mcpServers"], ...overrides };
}

function written(name: string, text: string): string {
  const file = join(tempDir("mcpkit-read-"), name);
  writeFileSync(file, text);
  return file;
}

const read = (from: ConfigSource, signal?: AbortSignal) => readSource(from, new Map(), signal);

test("entries as written, nothing expanded; a file that is not there, or has no such key, has none and no problem", async () => {
  const file = written("c.json", JSON.stringify({ mcpServers: { a: { command: "${RUN}", args: ["x"] } }, other: {} }));
  expect(await read(source(file))).toEqual({ entries: [["a", { command: "${RUN}", args: ["x"] }]], inputs: [], problems: [] });
  expect(await read(source(join(tempDir(), "none.json")))).toEqual({ entries: [], inputs: [], problems: [] });
  expect(await read(source(file, { key: ["servers"] }))).toEqual({ entries: [], inputs: [], problems: [] });
  // The key path is the file's own keys: a name from Object.prototype is not one of them.
  expect(await read(source(file, { key: ["constructor"] }))).toEqual({ entries: [], inputs: [], problems: [] });
});

test("a nested key (Claude Code's local scope under projects.<dir>) is followed; through a non-object, nothing", async () => {
  const file = written(".claude.json", JSON.stringify({ projects: { "/p": { mcpServers: { l: { command: "run" } } }, "/q": 3 } }));
  expect((await read(source(file, { scope: "local", key: ["projects", "/p", "mcpServers"] }))).entries).toEqual([
    ["l", { command: "run" }],
  ]);
  expect(await read(source(file, { scope: "local", key: ["projects", "/q", "mcpServers"] }))).toEqual({
    entries: [],
    inputs: [],
    problems: [],
  });
});

test("a servers value that is not an object, and an entry that is not one, are each a problem naming the file", async () => {
  const list = written("list.json", JSON.stringify({ mcpServers: ["a"] }));
  expect(await read(source(list))).toEqual({ entries: [], inputs: [], problems: [`${list}: "mcpServers" is not an object`] });
  const mixed = written("mixed.json", JSON.stringify({ mcpServers: { good: { command: "run" }, bad: "run", none: null } }));
  expect(await read(source(mixed))).toEqual({
    entries: [["good", { command: "run" }]],
    inputs: [],
    problems: [`${mixed}: server "bad" is not an object`, `${mixed}: server "none" is not an object`],
  });
});

test("a file that does not parse, a FIFO, a directory and a read past its deadline are one problem each, marked skipped", async () => {
  const broken = written("broken.json", '{"mcpServers": {');
  expect((await read(source(broken))).problems).toEqual([expect.stringMatching(new RegExp(`^${broken} is not valid JSON .*; skipped$`))]);
  const toml = written("config.toml", "[mcp_servers.x\n");
  expect((await read(source(toml, { client: "codex", format: "toml", key: ["mcp_servers"] }))).problems).toEqual([
    expect.stringMatching(/is not valid TOML .*; skipped$/),
  ]);
  const dir = tempDir("mcpkit-read-");
  const fifo = join(dir, "fifo.json");
  execFileSync("mkfifo", [fifo]);
  expect(await read(source(fifo))).toEqual({ entries: [], inputs: [], problems: [`${fifo} is not a regular file (a FIFO); skipped`] });
  expect((await read(source(dir))).problems).toEqual([`${dir} is not a regular file (a directory); skipped`]);
  const fine = written("fine.json", JSON.stringify({ mcpServers: {} }));
  expect((await read(source(fine), AbortSignal.abort())).problems).toEqual([`reading ${fine} did not finish in time (--timeout); skipped`]);
});

test("VS Code's inputs: those with an id, their fields read, pickString options as values; other clients' files have none", async () => {
  const file = written(
    "mcp.json",
    JSON.stringify({
      servers: { v: { command: "run", env: { KEY: "${input:key}" } } },
      inputs: [
        { id: "key", type: "promptString", description: "API key", password: true, default: "" },
        { id: "region", type: "pickString", options: ["eu", { label: "United States", value: "us" }] },
        { type: "promptString", description: "no id: ignored" },
        { id: 7 },
        "not an object",
        { id: "odd", description: 3, password: "yes" },
      ],
    }),
  );
  const inputs = [
    { id: "key", type: "promptString", description: "API key", default: "", password: true },
    { id: "region", type: "pickString", options: ["eu", "us"] },
    { id: "odd" },
  ];
  expect((await read(source(file, { client: "vscode", key: ["servers"] }))).inputs).toEqual(inputs);
  expect((await read(source(file, { client: "vscode-insiders", key: ["servers"] }))).inputs).toEqual(inputs);
  expect((await read(source(file, { client: "cursor", key: ["servers"] }))).inputs).toEqual([]);
  const noList = written("mcp.json", JSON.stringify({ servers: {}, inputs: { id: "x" } }));
  expect((await read(source(noList, { client: "vscode", key: ["servers"] }))).inputs).toEqual([]);
});

test("one cache reads a file once for all its sources (~/.claude.json's user and local scopes)", async () => {
  const file = written(".claude.json", JSON.stringify({ mcpServers: { u: { command: "user" } }, projects: {} }));
  const cache: ParseCache = new Map();
  expect((await readSource(source(file), cache)).entries).toEqual([["u", { command: "user" }]]);
  writeFileSync(file, JSON.stringify({ mcpServers: {}, projects: { "/p": { mcpServers: { l: { command: "local" } } } } }));
  // The same cache still holds the first parse: both scopes see one version of the file.
  expect((await readSource(source(file, { scope: "local", key: ["projects", "/p", "mcpServers"] }), cache)).entries).toEqual([]);
  expect(cache.size).toBe(1);
  expect((await read(source(file, { scope: "local", key: ["projects", "/p", "mcpServers"] }))).entries).toEqual([
    ["l", { command: "local" }],
  ]);
});
