// Hostile config files in a cloned project: nested to overflow a parser, a link to /dev/stdin or a
// FIFO that would hang a reader, and a file with 200,000 entries. Each is a one-line warning for
// that file (the rest is still found), never a crash or a hang.
import { afterAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdirSync, openSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MAX_CONFIG_DEPTH } from "../../lib/wire/limits.ts";
import { BUN, FAULTY, homeAndRepository, inspect, removeTempDirs } from "../support/helpers.ts";

afterAll(removeTempDirs);

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A user entry "mine" that works, beside whatever hostile project file the test plants. */
function withWorkingUserEntry() {
  const layout = homeAndRepository("mcpkit-hostile-config-");
  write(join(layout.home, ".claude.json"), JSON.stringify({ mcpServers: { mine: { command: BUN, args: [FAULTY] } } }));
  return layout;
}

test("a 2.4 MB deeply nested .mcp.json is skipped with one line; servers, grep, skill and --server mine still work", async () => {
  const layout = withWorkingUserEntry();
  const depth = 1_200_000;
  write(join(layout.project, ".mcp.json"), `{"mcpServers":{"deep":${"[".repeat(depth)}${"]".repeat(depth)}}}`);
  const warning = `${join(layout.project, ".mcp.json")} is not valid JSON (nested deeper than ${MAX_CONFIG_DEPTH} levels); skipped`;
  const opts = { env: layout.env, cwd: layout.project };
  const servers = await inspect(["servers", "--text"], opts);
  expect(servers.code).toBe(0);
  expect(servers.stderr).toBe(`warning: ${warning}\n`);
  expect((await inspect(["servers"], opts)).json.data.problems).toEqual([warning]);
  expect((await inspect(["servers", "--approve", "mine"], opts)).stderr).not.toContain("RangeError");
  const grep = await inspect(["grep", "echo"], opts);
  expect(grep.code).toBe(0);
  expect((await inspect(["skill", "--out", "-"], opts)).code).toBe(0);
  expect((await inspect(["list-tools", "--server", "mine"], opts)).code).toBe(0);
});

test("nesting within the cap is read; one level past it is refused, in JSON, JSONC and Codex TOML alike", async () => {
  const layout = withWorkingUserEntry();
  const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
  // mcpServers, the entry and its args are three levels: the rest of the cap goes to the value inside.
  write(
    join(layout.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { fits: { command: "x", args: ["a"], extra: JSON.parse(nested(MAX_CONFIG_DEPTH - 3)) } } }),
  );
  write(join(layout.project, ".cursor", "mcp.json"), `// JSONC\n{"mcpServers":{"over":{"extra":${nested(MAX_CONFIG_DEPTH - 2)}}}}`);
  // TOML nests by dotted keys too, past any bracket.
  const dotted = Array.from({ length: MAX_CONFIG_DEPTH }, (_, i) => `k${i}`).join(".");
  write(join(layout.project, ".codex", "config.toml"), `[mcp_servers.over.${dotted}]\nx = 1\n`);
  const listed = await inspect(["servers"], { env: layout.env, cwd: layout.project });
  expect(listed.code).toBe(0);
  expect(listed.json.data.servers.map((row: any) => row.name).sort()).toEqual(["fits", "mine"]);
  expect(listed.json.data.problems).toEqual([
    `${join(layout.project, ".cursor", "mcp.json")} is not valid JSON (nested deeper than ${MAX_CONFIG_DEPTH} levels); skipped`,
    `${join(layout.project, ".codex", "config.toml")} is not valid TOML (nested deeper than ${MAX_CONFIG_DEPTH} levels); skipped`,
  ]);
});

test("a .mcp.json that links to /dev/stdin, or is a FIFO, is refused at once, even with stdin an idle pipe", async () => {
  const layout = withWorkingUserEntry();
  symlinkSync("/dev/stdin", join(layout.project, ".mcp.json"));
  mkdirSync(join(layout.project, ".cursor"));
  execFileSync("mkfifo", [join(layout.project, ".cursor", "mcp.json")]);
  // An idle pipe on stdin, as an agent runs a command: a read of it would wait for ever (a FIFO
  // opened for reading and writing by us, so it never ends and never brings a byte).
  const pipe = join(layout.home, "idle-stdin");
  execFileSync("mkfifo", [pipe]);
  const stdin = openSync(pipe, constants.O_RDWR);
  try {
    const opts = { env: layout.env, cwd: layout.project, stdin };
    const servers = await inspect(["servers", "--text"], opts);
    expect(servers.code).toBe(0);
    expect(servers.stderr).toContain(`warning: ${join(layout.project, ".mcp.json")} is not a regular file (a FIFO); skipped`);
    expect(servers.stderr).toContain(`warning: ${join(layout.project, ".cursor", "mcp.json")} is not a regular file (a FIFO); skipped`);
    const called = await inspect(["list-tools", "--server", "mine", "--timeout", "20000"], opts);
    expect(called.code).toBe(0);
  } finally {
    closeSync(stdin);
  }
});

test("an entry whose envFile links to /dev/stdin is refused in one line, and servers lists it, with stdin an idle pipe", async () => {
  const layout = withWorkingUserEntry();
  symlinkSync("/dev/stdin", join(layout.project, "stdin.env"));
  write(
    join(layout.home, ".cursor", "mcp.json"),
    JSON.stringify({
      mcpServers: {
        remote: { url: "http://127.0.0.1:9/mcp", envFile: join(layout.project, "stdin.env") },
        local: { command: BUN, args: [FAULTY], envFile: join(layout.project, "stdin.env") },
      },
    }),
  );
  const pipe = join(layout.home, "idle-stdin");
  execFileSync("mkfifo", [pipe]);
  const stdin = openSync(pipe, constants.O_RDWR);
  try {
    const opts = { env: layout.env, cwd: layout.project, stdin };
    const servers = await inspect(["servers"], opts);
    expect(servers.code).toBe(0);
    expect(servers.json.data.servers.map((row: any) => row.name).sort()).toEqual(["local", "mine", "remote"]);
    const called = await inspect(["list-tools", "--server", "local"], opts);
    expect(called.code).toBe(1);
    expect(called.json.error.message).toBe(
      `server "local" in ${join(layout.home, ".cursor", "mcp.json")}: ` +
        `envFile cannot read ${join(layout.project, "stdin.env")} (not a regular file)`,
    );
  } finally {
    closeSync(stdin);
  }
});
