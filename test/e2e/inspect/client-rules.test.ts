// Each client's files by that client's own rules, as its own `mcp add` writes them (the shapes are
// the ones test/seams/ saw the real CLIs write): Claude Code from a subfolder, Codex's trusted
// project layered over the user's entry, one server written by two clients, an unapproved project
// entry beside the user's, the clients mcpkit did not read before, and `mcp-inspect mcp CMD ARGS`
// as Gemini CLI and Qwen Code write it.
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { BUN, FAULTY, homeAndRepository, inspect, removeTempDirs, toolCommand } from "../../support/helpers.ts";

const INSPECT = toolCommand("mcp-inspect.ts");

afterAll(removeTempDirs);

const ECHO = { command: BUN, args: [FAULTY] };

interface Layout {
  home: string;
  root: string;
  env: Record<string, string>;
}

function layout(): Layout {
  const { home, project, env } = homeAndRepository("mcpkit-client-rules-");
  return { home, root: project, env };
}

function write(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

const run = (where: Layout, cwd: string, args: string[], env: Record<string, string> = {}) =>
  inspect(args, { env: { ...where.env, ...env }, cwd });

/** What the server named `name` sees in its variable `variable` (faulty-server's `env` tool). */
async function variableOf(where: Layout, cwd: string, name: string, variable: string): Promise<string> {
  const called = await run(where, cwd, [
    "call-tool",
    "env",
    "--params",
    JSON.stringify({ name: variable }),
    "--no-validate",
    "--server",
    name,
  ]);
  if (called.code !== 0) throw new Error(`--server ${name} exited ${called.code}: ${called.stderr}`);
  return called.json.data.content[0].text;
}

const rowsOf = async (where: Layout, cwd: string) => (await run(where, cwd, ["servers"])).json.data.servers as any[];

test("Claude Code from a subfolder: local entries keyed by the git root, each .mcp.json from the folder up, nearest first", async () => {
  const where = layout();
  const sub = join(where.root, "packages", "app");
  // As `claude mcp add -s local` writes it from anywhere in the repository, and `-s project` in the current folder.
  write(join(where.home, ".claude.json"), {
    mcpServers: { shared: { type: "stdio", ...ECHO, env: { WHICH: "user" } } },
    projects: { [where.root]: { mcpServers: { shared: { type: "stdio", ...ECHO, env: { WHICH: "local" } } } } },
  });
  write(join(where.root, ".mcp.json"), { mcpServers: { near: { ...ECHO, env: { WHICH: "root" } }, parent: ECHO } });
  write(join(sub, ".mcp.json"), { mcpServers: { near: { ...ECHO, env: { WHICH: "sub" } } } });
  write(join(where.home, ".claude", "settings.json"), { enabledMcpjsonServers: ["near", "parent"] });

  expect(await variableOf(where, sub, "shared", "WHICH")).toBe("local");
  expect(await variableOf(where, sub, "near", "WHICH")).toBe("sub");
  const rows = await rowsOf(where, sub);
  const row = (name: string, file: string) => rows.find((candidate) => candidate.name === name && candidate.file === file);
  expect(row("shared", join(where.home, ".claude.json"))).toBeDefined();
  expect(rows.find((candidate) => candidate.name === "shared" && candidate.scope === "local")).toMatchObject({ project: where.root });
  expect(row("parent", join(where.root, ".mcp.json"))).toMatchObject({ scope: "project", approved: true, approvedBy: "claude-code" });
  expect(row("near", join(where.root, ".mcp.json")).shadowedBy).toEqual({
    client: "claude-code",
    scope: "project",
    file: join(sub, ".mcp.json"),
  });
});

test("Codex lays a trusted project's [mcp_servers.X] over the user's field by field; an untrusted one waits, the user's runs", async () => {
  const where = layout();
  write(
    join(where.home, ".codex", "config.toml"),
    `[mcp_servers.tool]\ncommand = "${BUN}"\nargs = ["${FAULTY}"]\n\n[mcp_servers.tool.env]\nFROM_USER = "user"\nBOTH = "user"\n\n` +
      `[projects."${where.root}"]\ntrust_level = "trusted"\n`,
  );
  write(join(where.root, ".codex", "config.toml"), `[mcp_servers.tool.env]\nFROM_PROJECT = "project"\nBOTH = "project"\n`);
  expect(await variableOf(where, where.root, "tool", "FROM_USER")).toBe("user");
  expect(await variableOf(where, where.root, "tool", "FROM_PROJECT")).toBe("project");
  expect(await variableOf(where, where.root, "tool", "BOTH")).toBe("project");
  const merged = (await rowsOf(where, where.root)).find((row) => row.scope === "project");
  expect(merged).toMatchObject({ approved: true, approvedBy: "codex", env: ["FROM_USER", "BOTH", "FROM_PROJECT"] });
  expect(merged.mergedFrom).toEqual([join(where.home, ".codex", "config.toml"), join(where.root, ".codex", "config.toml")]);

  write(
    join(where.home, ".codex", "config.toml"),
    `[mcp_servers.tool]\ncommand = "${BUN}"\nargs = ["${FAULTY}"]\n\n[mcp_servers.tool.env]\nBOTH = "user"\n`,
  );
  expect(await variableOf(where, where.root, "tool", "BOTH")).toBe("user");
  const waiting = (await rowsOf(where, where.root)).find((row) => row.scope === "project");
  expect(waiting).toMatchObject({ approved: false, waitsForApproval: { client: "codex", scope: "user" } });
});

test("one server written by Claude Code (type and an empty env) and by Gemini CLI is one server: --server and grep reach it", async () => {
  const where = layout();
  write(join(where.home, ".claude.json"), { mcpServers: { echo: { type: "stdio", ...ECHO, env: {} } } });
  write(join(where.home, ".gemini", "settings.json"), { mcpServers: { echo: ECHO } });
  expect(await variableOf(where, where.root, "echo", "WHICH")).toBe("(unset)");
  const rows = await rowsOf(where, where.root);
  expect(rows.find((row) => row.client === "gemini").sameAs).toEqual({
    client: "claude-code",
    scope: "user",
    file: join(where.home, ".claude.json"),
  });
  const grep = await run(where, where.root, ["grep", "echo"]);
  expect(grep.code).toBe(0);
  expect(grep.json.data.matches.map((match: any) => match.server)).toEqual(["echo"]);
  expect(grep.stderr).toBe("");
});

test("grep names the names it skips and why; with every name ambiguous it says so instead of 'no servers are configured'", async () => {
  const where = layout();
  write(join(where.home, ".claude.json"), { mcpServers: { dup: { ...ECHO, env: { WHICH: "claude" } } } });
  write(join(where.home, ".gemini", "settings.json"), { mcpServers: { dup: { ...ECHO, env: { WHICH: "gemini" } } } });
  const grep = await run(where, where.root, ["grep", "echo"]);
  expect(grep.code).toBe(9);
  expect(grep.stderr).toContain(`warning: skipped "dup": names 2 different user servers, in ${join(where.home, ".claude.json")} and`);
  expect(grep.json.error.message).toContain("none of the 1 configured server names reaches a server it may start (dup;");
  expect(grep.json.error.message).not.toContain("no servers are configured");
});

test("an unapproved project entry does not hide the user's entry of its name: the user's runs, servers says the other waits", async () => {
  const where = layout();
  write(join(where.home, ".claude.json"), { mcpServers: { shared: { ...ECHO, env: { WHICH: "user" } } } });
  write(join(where.root, ".mcp.json"), { mcpServers: { shared: { ...ECHO, env: { WHICH: "project" } } } });
  expect(await variableOf(where, where.root, "shared", "WHICH")).toBe("user");
  const project = (await rowsOf(where, where.root)).find((row) => row.scope === "project");
  expect(project).toMatchObject({ approved: false, waitsForApproval: { client: "claude-code", scope: "user" } });
  const text = await run(where, where.root, ["servers", "--text"]);
  expect(text.stdout).toContain(`waits for approval; until then the claude-code user entry in ${join(where.home, ".claude.json")} runs`);
});

test("opencode, Copilot CLI, Qwen Code (QWEN_HOME) and a Gemini extension are read in the shapes their own mcp add writes", async () => {
  const where = layout();
  const qwenHome = join(where.home, "qwen-elsewhere");
  write(
    join(where.home, ".config", "opencode", "opencode.jsonc"),
    `{\n  "$schema": "https://opencode.ai/config.json",\n  // written by opencode mcp add\n  "mcp": {\n    "oc": { "type": "local", ` +
      `"command": ${JSON.stringify([BUN, FAULTY])}, "environment": { "WHICH": "opencode" } },\n  },\n}\n`,
  );
  write(join(where.home, ".copilot", "mcp-config.json"), {
    mcpServers: { cp: { tools: ["*"], type: "local", ...ECHO, env: { WHICH: "copilot" } } },
  });
  write(join(qwenHome, "settings.json"), { mcpServers: { qw: { ...ECHO, env: { WHICH: "qwen" } } }, $version: 4 });
  write(join(where.home, ".gemini", "extensions", "tools-ext", "gemini-extension.json"), {
    name: "tools-ext",
    version: "1.0.0",
    mcpServers: { ext: { ...ECHO, env: { WHICH: "extension" } } },
  });
  const env = { QWEN_HOME: qwenHome };
  const rows = (await run(where, where.root, ["servers"], env)).json.data.servers as any[];
  expect(rows.map((row) => [row.name, row.client, row.scope, row.transport]).sort()).toEqual([
    ["cp", "copilot", "user", "stdio"],
    ["ext", "gemini", "user", "stdio"],
    ["oc", "opencode", "user", "stdio"],
    ["qw", "qwen", "user", "stdio"],
  ]);
  expect(rows.find((row) => row.name === "oc")).toMatchObject({ command: BUN, env: ["WHICH"] });
  for (const [name, which] of [
    ["oc", "opencode"],
    ["cp", "copilot"],
    ["qw", "qwen"],
    ["ext", "extension"],
  ] as const) {
    const called = await run(
      where,
      where.root,
      ["call-tool", "env", "--params", '{"name":"WHICH"}', "--no-validate", "--server", name],
      env,
    );
    expect(called.json?.data?.content?.[0]?.text ?? called.stderr).toBe(which);
  }
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

test("mcp-inspect mcp CMD ARGS without `--` (as Gemini CLI and Qwen Code write it) inspects CMD, the entry's env reaching it", async () => {
  const client = new Client({ name: "gemini-like", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: INSPECT[0]!,
      // Our own options first, then the server command with an option of its own.
      args: [...INSPECT.slice(1), "mcp", "--timeout", "60000", BUN, FAULTY, "--not-ours"],
      env: { ...getDefaultEnvironment(), FROM_THE_CLIENT_ENTRY: "set by the client" },
      stderr: "pipe",
    }),
  );
  clients.push(client);
  const listed = await client.callTool({ name: "list_tools", arguments: {} });
  expect(listed.isError).toBeFalsy();
  expect(JSON.stringify(listed.content)).toContain("echo");
  const seen = await client.callTool({
    name: "call_tool",
    arguments: { name: "env", arguments: { name: "FROM_THE_CLIENT_ENTRY" }, validate: false },
  });
  expect(JSON.stringify(seen.content)).toContain("set by the client");
});

test("Zed, Cline, Roo Code, Goose, LM Studio and Amazon Q Developer CLI: read from their documented files, called by name", async () => {
  const where = layout();
  const serverEnv = (which: string) => ({ WHICH: which });
  const vscodeStorage = join(where.home, ".config", "Code", "User", "globalStorage");
  // Zed: JSONC, a custom server now and an older { source, command: { path, args, env } } one; an extension's settings skipped.
  write(
    join(where.home, ".config", "zed", "settings.json"),
    `// Zed settings\n{\n  "context_servers": {\n` +
      `    "zed-new": { "command": "${BUN}", "args": ["${FAULTY}"], "env": { "WHICH": "zed" } },\n` +
      `    "zed-old": { "source": "custom", "command": { "path": "${BUN}", "args": ["${FAULTY}"], "env": { "WHICH": "zed-old" } } },\n` +
      `    "zed-extension": { "settings": { "token": "x" } },\n  },\n}\n`,
  );
  write(join(vscodeStorage, "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), {
    mcpServers: { cline: { ...ECHO, env: serverEnv("cline"), disabled: false, alwaysAllow: [] }, "cline-off": { ...ECHO, disabled: true } },
  });
  write(join(vscodeStorage, "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"), {
    mcpServers: { roo: { ...ECHO, env: serverEnv("roo") } },
  });
  write(join(where.root, ".roo", "mcp.json"), { mcpServers: { "roo-project": ECHO } });
  write(
    join(where.home, ".config", "goose", "config.yaml"),
    `GOOSE_PROVIDER: anthropic\nextensions:\n  developer:\n    type: builtin\n    enabled: true\n` +
      `  goose:\n    type: stdio\n    cmd: ${BUN}\n` +
      `    args:\n      - ${FAULTY}\n    envs:\n      WHICH: goose\n    enabled: true\n`,
  );
  write(join(where.home, ".lmstudio", "mcp.json"), { mcpServers: { lmstudio: { ...ECHO, env: serverEnv("lm-studio") } } });
  write(join(where.home, ".aws", "amazonq", "mcp.json"), { mcpServers: { amazonq: { ...ECHO, env: serverEnv("amazon-q") } } });
  write(join(where.root, ".amazonq", "mcp.json"), { mcpServers: { "amazonq-project": ECHO } });
  const rows = await rowsOf(where, where.root);
  expect(rows.map((row) => `${row.name} ${row.client} ${row.scope}${row.turnedOff ? " off" : ""}`).sort()).toEqual([
    "amazonq amazon-q user",
    "amazonq-project amazon-q project",
    "cline cline user",
    "cline-off cline user off",
    "goose goose user",
    "lmstudio lm-studio user",
    "roo roo-code user",
    "roo-project roo-code project",
    "zed-new zed user",
    "zed-old zed user",
  ]);
  for (const [name, which] of [
    ["zed-new", "zed"],
    ["zed-old", "zed-old"],
    ["cline", "cline"],
    ["roo", "roo"],
    ["goose", "goose"],
    ["lmstudio", "lm-studio"],
    ["amazonq", "amazon-q"],
  ] as const)
    expect(await variableOf(where, where.root, name, "WHICH")).toBe(which);
});
