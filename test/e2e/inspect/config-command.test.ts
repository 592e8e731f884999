import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { tomlWithServer } from "../../../lib/targets/client-config/toml.ts";
import { clientEntry, mergeIntoConfig, toolCommand } from "../../../lib/targets/client-config/write.ts";
import { parseJsonc } from "../../../lib/targets/jsonc.ts";
import { BUN, FAULTY, ROOT, runTool as runAnyTool } from "../../support/helpers.ts";

// The entries printed here name the entry script they were printed by: the script runs, in a binaries run too.
const runTool = (...[script, args, options]: Parameters<typeof runAnyTool>) => runAnyTool(script, args, { ...options, asScript: true });

const dir = mkdtempSync(join(tmpdir(), "mcpkit-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the command names the tool's own binary, the multi-tool binary, or bun with the script", () => {
  expect(toolCommand("mcp-proxy", ["--", "x"], "/opt/bin/mcp-proxy")).toEqual({ command: "/opt/bin/mcp-proxy", args: ["--", "x"] });
  expect(toolCommand("mcp-proxy", ["--", "x"], "/nonexistent/mcpkit")).toEqual({
    command: "/nonexistent/mcpkit",
    args: ["mcp-proxy", "--", "x"],
  });
  expect(toolCommand("mcp-proxy", ["--", "x"], "/usr/bin/bun", "/src/mcp-proxy.ts")).toEqual({
    command: "/usr/bin/bun",
    args: ["/src/mcp-proxy.ts", "--", "x"],
  });
  expect(clientEntry("vscode", { command: "c", args: [] })).toEqual({ type: "stdio", command: "c", args: [] });
});

test("--write keeps every other entry, replaces its own, and backs the file up first", () => {
  const file = join(dir, "claude.json");
  writeFileSync(file, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "keep-me" }, dev: { command: "old" } } }));
  const merged = mergeIntoConfig(file, "mcpServers", "dev", { command: "/abs/mcp-proxy", args: ["--", "node", "s.js"] }, new Date(0));
  expect(merged.ok).toBe(true);
  const config = JSON.parse(readFileSync(file, "utf8"));
  expect(config).toEqual({
    theme: "dark",
    mcpServers: { other: { command: "keep-me" }, dev: { command: "/abs/mcp-proxy", args: ["--", "node", "s.js"] } },
  });
  const backup = readdirSync(dir).find((name) => name.startsWith("claude.json.bak-"))!;
  expect(JSON.parse(readFileSync(join(dir, backup), "utf8")).mcpServers.dev.command).toBe("old");
});

test("a config file that is not valid JSON is refused and left as it was", () => {
  const file = join(dir, "broken.json");
  writeFileSync(file, "{ not json");
  const merged = mergeIntoConfig(file, "mcpServers", "dev", { command: "x" });
  expect(merged.ok).toBe(false);
  expect(readFileSync(file, "utf8")).toBe("{ not json");
});

test("mcp-proxy config prints the entry with absolute paths, and --write creates a VS Code file", async () => {
  const printed = await runTool("mcp-proxy.ts", [
    "config",
    "--client",
    "claude-desktop",
    "--name",
    "dev",
    "--watch",
    "src",
    "--",
    "node",
    "/srv/s.js",
  ]);
  expect(printed.code).toBe(0);
  expect(JSON.parse(printed.stdout)).toEqual({
    mcpServers: { dev: { command: BUN, args: [join(ROOT, "mcp-proxy.ts"), "--watch", "src", "--", "node", "/srv/s.js"] } },
  });
  const file = join(dir, "vscode", "mcp.json");
  const written = await runTool("mcp-inspect.ts", ["config", "--client", "vscode", "--file", file, "--write", "--", "node", "/srv/s.js"]);
  expect(written.stdout).toContain(`wrote "s" to ${file}`);
  expect(JSON.parse(readFileSync(file, "utf8")).servers.s).toEqual({
    type: "stdio",
    command: BUN,
    args: [join(ROOT, "mcp-inspect.ts"), "mcp", "--", "node", "/srv/s.js"],
  });
  const bad = await runTool("mcp-proxy.ts", ["config", "--client", "emacs", "--", "x"]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain(
    "--client must be one of claude-desktop, claude-code, claude-code-user, cursor, vscode, windsurf, gemini, codex",
  );
});

test("--write into a JSONC file keeps its comments, trailing commas and number literals; only the entry changes", () => {
  const file = join(dir, "vscode-settings.json");
  const original = `// my settings
{
  "editor.fontSize": 13.50, // exactly as typed
  "limits": [1e3, 0x0, 10,],
  /* servers below */
  "servers": {
    "keep": { "command": "keep-me", }, // trailing comma above
  },
}
`;
  writeFileSync(file, original.replace("0x0", "0"));
  const merged = mergeIntoConfig(file, "servers", "dev", { command: "/abs/mcp-inspect", args: ["mcp"] });
  expect(merged.ok).toBe(true);
  const text = readFileSync(file, "utf8");
  for (const kept of [
    "// my settings",
    "13.50, // exactly as typed",
    "[1e3, 0, 10,]",
    "/* servers below */",
    "// trailing comma above",
    '"keep-me",',
  ])
    expect(text).toContain(kept);
  expect(parseJsonc(text)).toEqual({
    ok: true,
    value: {
      "editor.fontSize": 13.5,
      limits: [1000, 0, 10],
      servers: { keep: { command: "keep-me" }, dev: { command: "/abs/mcp-inspect", args: ["mcp"] } },
    },
  });
});

test.skipIf(process.getuid?.() !== 0)(
  "--write to a read-only file system: a one-line error, the file unchanged, and no backup left behind",
  () => {
    const ro = mkdtempSync("/tmp/mcpkit-ro-");
    try {
      const script = [
        `mount -t tmpfs tmpfs ${ro}`,
        `printf '{"mcpServers":{}}' > ${ro}/claude.json`,
        `mount -o remount,ro ${ro}`,
        `${BUN} ${join(ROOT, "mcp-inspect.ts")} config --client claude-desktop --file ${ro}/claude.json --write -- node /srv/s.js; ` +
          `echo "exit=$?"`,
        `ls -A ${ro}`,
        `cat ${ro}/claude.json`,
      ].join(" && ");
      const run = Bun.spawnSync(["unshare", "-m", "sh", "-c", script], { env: { ...process.env, NO_COLOR: "1" } });
      const out = `${run.stdout}${run.stderr}`;
      expect(out).toContain("cannot write");
      expect(out).toContain("read-only file system");
      expect(out).toContain("exit=1");
      expect(out).not.toContain(".bak-");
      expect(out).toContain('{"mcpServers":{}}');
    } finally {
      rmSync(ro, { recursive: true, force: true });
    }
  },
);

test(
  "--write --client codex appends a [mcp_servers.<name>] table, keeps every comment and table, and replaces its own table when run " +
    "again",
  async () => {
    const codexHome = join(dir, "codex-home");
    mkdirSync(codexHome, { recursive: true });
    const file = join(codexHome, "config.toml");
    const original = `# my Codex settings
model = "o3" # the model

[mcp_servers.keep]
command = "keep-me"

# the dev server, written by hand
[mcp_servers.dev]
command = "old"

[mcp_servers.dev.env]
OLD = "1"

# profiles below
[profiles.fast]
model = "mini"
`;
    writeFileSync(file, original);
    const env = { CODEX_HOME: codexHome };
    const first = await runTool("mcp-inspect.ts", ["config", "--client", "codex", "--name", "dev", "--write", "--", "node", "/srv/s.js"], {
      env,
    });
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain(`wrote "dev" to ${file}`);
    const again = await runTool("mcp-inspect.ts", ["config", "--client", "codex", "--name", "dev", "--write", "--", "node", "/srv/t.js"], {
      env,
    });
    expect(again.code).toBe(0);
    const text = readFileSync(file, "utf8");
    for (const kept of ["# my Codex settings", 'model = "o3" # the model', "[mcp_servers.keep]", "# profiles below", "[profiles.fast]"])
      expect(text).toContain(kept);
    expect(text).not.toContain('command = "old"');
    expect(text).not.toContain("OLD");
    const parsed = parseToml(text) as any;
    expect(parsed.mcp_servers.keep).toEqual({ command: "keep-me" });
    expect(parsed.mcp_servers.dev).toEqual({ command: BUN, args: [join(ROOT, "mcp-inspect.ts"), "mcp", "--", "node", "/srv/t.js"] });
    expect(parsed.profiles.fast.model).toBe("mini");
  },
);

test("a Codex server defined as an inline table is not rewritten: a one-line error, nothing changed", () => {
  const text = `[mcp_servers]\ndev = { command = "old" } # inline\n`;
  const result = tomlWithServer(text, "dev", { command: "new", args: [] }, "config.toml");
  expect(result).toMatchObject({ ok: false, error: expect.stringContaining("in a form this tool does not edit") });
  expect(tomlWithServer("not = [toml", "dev", { command: "x" }, "config.toml")).toMatchObject({
    ok: false,
    error: expect.stringContaining("is not valid TOML"),
  });
});

test("config --write writes the files discovery reads: windsurf, gemini, codex and Claude Code's user file list the server", async () => {
  const home = join(dir, "home-all");
  const project = join(dir, "project-none");
  // A repository root, so that the project is looked for here and not in the folders above.
  mkdirSync(join(project, ".git"), { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: "", CODEX_HOME: "" };
  for (const client of ["windsurf", "gemini", "codex", "claude-code-user"]) {
    const written = await runTool(
      "mcp-inspect.ts",
      ["config", "--client", client, "--name", `via-${client}`, "--write", "--", "node", "/srv/s.js"],
      { env, cwd: project },
    );
    expect(written.code).toBe(0);
  }
  const listed = await runTool("mcp-inspect.ts", ["servers", "--json"], { env, cwd: project });
  expect(listed.code).toBe(0);
  const found = listed.json.data.servers.map((server: any) => [server.name, server.client, server.scope, server.file]);
  expect(found).toEqual([
    ["via-claude-code-user", "claude-code", "user", join(home, ".claude.json")],
    ["via-windsurf", "windsurf", "user", join(home, ".codeium", "windsurf", "mcp_config.json")],
    ["via-codex", "codex", "user", join(home, ".codex", "config.toml")],
    ["via-gemini", "gemini", "user", join(home, ".gemini", "settings.json")],
  ]);
});

test("a new entry goes after the line of the last one: an end-of-line comment stays beside the entry it was written for", () => {
  const file = join(dir, "commented.json");
  const before = `{\n  // VS Code\n  "servers": {\n    "a": { "command": "x" } // the a server\n  }\n}\n`;
  writeFileSync(file, before);
  expect(mergeIntoConfig(file, "servers", "b", { command: "y" }).ok).toBe(true);
  const after = readFileSync(file, "utf8");
  expect(after).toContain(`    "a": { "command": "x" }, // the a server\n    "b": {`);
  expect(parseJsonc(after)).toEqual({ ok: true, value: { servers: { a: { command: "x" }, b: { command: "y" } } } });
  // A file without the servers object yet keeps its last line's comment too.
  const settings = join(dir, "settings.json");
  writeFileSync(settings, `{\n  "theme": "dark" // mine\n}\n`);
  expect(mergeIntoConfig(settings, "mcpServers", "b", { command: "y" }).ok).toBe(true);
  expect(readFileSync(settings, "utf8")).toStartWith(`{\n  "theme": "dark", // mine\n  "mcpServers": {\n    "b": {`);
});

test("config writes -e as env (never in args), leaves ${VAR} of -H for the client to hand on, and writes a --url bridge", async () => {
  const own = "config --client claude-code-user --name dev -e MODE=fast".split(" ");
  const inspectEntry = await runTool("mcp-inspect.ts", [...own, "-H", "Authorization: Bearer ${TOKEN}", "--", "node", "/srv/s.js"]);
  expect(inspectEntry.code).toBe(0);
  const dev = JSON.parse(inspectEntry.stdout).mcpServers.dev;
  expect(dev.env).toEqual({ TOKEN: "${TOKEN}", MODE: "fast" });
  expect(dev.args).toEqual([join(ROOT, "mcp-inspect.ts"), "mcp", "-H", "Authorization: Bearer ${TOKEN}", "--", "node", "/srv/s.js"]);
  const bridge = await runTool("mcp-proxy.ts", ["config", "--client", "codex", "-e", "MODE=fast", "--url", "https://mcp.example.com/mcp"]);
  expect(bridge.code).toBe(0);
  const table = parseToml(bridge.stdout) as any;
  expect(table.mcp_servers["mcp.example.com"]).toEqual({
    command: BUN,
    args: [join(ROOT, "mcp-proxy.ts"), "--url", "https://mcp.example.com/mcp"],
    env: { MODE: "fast" },
  });
  const vscode = await runTool("mcp-proxy.ts", [
    "config",
    "--client",
    "vscode",
    "-H",
    "X-Api-Key: ${KEY}",
    "--url",
    "https://x.example/mcp",
  ]);
  expect(JSON.parse(vscode.stdout).servers["x.example"].env).toEqual({ KEY: "${env:KEY}" });
});

test("a header's ${VAR} is expanded from our environment, and an unset one is a one-line error, never sent as written", async () => {
  const header = "Authorization: Bearer ${MCPKIT_TEST_UNSET_TOKEN}";
  const unset = await runTool("mcp-inspect.ts", ["list-tools", "--url", "http://127.0.0.1:9/mcp", "-H", header]);
  expect(unset.code).toBe(1);
  expect(unset.json.error.message).toBe(
    "--header Authorization: ${MCPKIT_TEST_UNSET_TOKEN} is not set (export it, or write ${MCPKIT_TEST_UNSET_TOKEN:-default})",
  );
});

test("what config --write puts into a project's .mcp.json counts as approved: it runs without asking", async () => {
  const root = mkdtempSync(join(tmpdir(), "mcpkit-config-approve-"));
  try {
    const home = join(root, "home");
    const project = join(root, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    mkdirSync(home);
    const env = { HOME: home, XDG_CONFIG_HOME: "", CODEX_HOME: "", QWEN_HOME: "", COPILOT_HOME: "", CLAUDE_CONFIG_DIR: "" };
    const wrote = await runTool("mcp-proxy.ts", ["config", "--client", "claude-code", "--name", "mine", "--write", "--", BUN, FAULTY], {
      env,
      cwd: project,
    });
    expect(wrote.code, wrote.stderr).toBe(0);
    const listed = await runTool("mcp-inspect.ts", ["servers"], { env, cwd: project });
    expect(listed.json.data.servers.find((row: any) => row.name === "mine")).toMatchObject({ scope: "project", approved: true });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
