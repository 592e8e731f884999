// Discovery: a temporary HOME and project holding every client's config file; `mcp-inspect
// servers` lists them, and `--server NAME` finds them (DESIGN.md's order), approval first for
// project entries.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AuthStore } from "../../../lib/auth/store.ts";
import { configEntryTarget } from "../../../lib/targets/config-entry.ts";
import {
  BUN,
  FAULTY,
  homeAndRepository,
  inspect,
  REFERENCE_ENTRY,
  REFERENCE_LINE,
  removeTempDirs,
  tempDir,
  toolCommand,
} from "../../support/helpers.ts";
import { inTerminal } from "../../support/terminal.ts";

afterAll(removeTempDirs);

const SECRETS = [
  "secret-desktop-value",
  "secret-local-header",
  "secret-cursor-header",
  "secret-windsurf-header",
  "secret-codex-value",
  "secret-team-header",
  "secret-gemini-header",
  "stored-token-value",
];
const ECHO = { command: BUN, args: [FAULTY] };
const echoWith = (env: Record<string, string>) => ({ ...ECHO, env });

interface Layout {
  home: string;
  project: string;
  env: Record<string, string>;
  file: (path: string) => string;
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** An empty HOME and an empty project (a repository root, so nothing above it is looked at). */
function emptyLayout(): Layout {
  // Linux paths: ~/.config for the desktop apps, ~/.codex for Codex, the token store under HOME.
  return { ...homeAndRepository("mcpkit-discovery-"), file: (path) => path };
}

/** Every client's user file, Claude Code's local scope, and every project file. */
function fullLayout(): Layout {
  const layout = emptyLayout();
  const { home, project } = layout;
  const json = (file: string, value: unknown) => write(file, JSON.stringify(value, null, 2));
  json(join(home, ".config", "Claude", "claude_desktop_config.json"), {
    mcpServers: { "desktop-echo": echoWith({ API_KEY: "secret-desktop-value" }) },
  });
  json(join(home, ".claude.json"), {
    numStartups: 3,
    mcpServers: { "code-user": ECHO, shared: echoWith({ WHICH: "user" }) },
    projects: {
      [project]: {
        mcpServers: {
          "code-local": { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer secret-local-header" } },
        },
      },
    },
  });
  json(join(home, ".cursor", "mcp.json"), {
    mcpServers: {
      "cursor-user": { url: "https://cursor.example/mcp", headers: { "X-Trace-Id": "secret-cursor-header" } },
      "path-named": ECHO,
    },
  });
  write(
    join(home, ".config", "Code", "User", "mcp.json"),
    `// VS Code: JSONC, inputs beside servers
{
  "inputs": [{ "type": "promptString", "id": "token", "description": "Your token", "password": true }],
  "servers": { "vscode-user": { "type": "stdio", "command": "${BUN}", "args": ["${FAULTY}"], "env": { "TOKEN": "\${input:token}" } } },
}`,
  );
  json(join(home, ".config", "Code - Insiders", "User", "mcp.json"), { servers: { "insiders-user": { type: "stdio", ...ECHO } } });
  json(join(home, ".codeium", "windsurf", "mcp_config.json"), {
    mcpServers: { "windsurf-user": { serverUrl: "https://windsurf.example/mcp", headers: { "X-Api-Key": "secret-windsurf-header" } } },
  });
  write(
    join(home, ".codex", "config.toml"),
    `# Codex
model = "o3"

[mcp_servers.codex-echo]
command = "${BUN}"
args = ["${FAULTY}"]

[mcp_servers.codex-echo.env]
CODEX_SECRET = "secret-codex-value"

[mcp_servers.codex-http]
url = "https://codex.example/mcp"
bearer_token_env_var = "MY_TOKEN"
http_headers = { "X-Team" = "secret-team-header" }

[mcp_servers.codex-off]
command = "nothing"
enabled = false
`,
  );
  json(join(home, ".gemini", "settings.json"), {
    theme: "dark",
    mcpServers: { "gemini-user": { httpUrl: "https://gemini.example/mcp", headers: { "X-Goog": "secret-gemini-header" } } },
  });
  json(join(project, ".mcp.json"), { mcpServers: { "proj-echo": ECHO, shared: echoWith({ WHICH: "project" }) } });
  json(join(project, ".cursor", "mcp.json"), { mcpServers: { "cursor-proj": ECHO } });
  json(join(project, ".vscode", "mcp.json"), { servers: { "vscode-proj": { type: "stdio", ...ECHO } } });
  json(join(project, ".gemini", "settings.json"), { mcpServers: { "gemini-proj": ECHO } });
  return layout;
}

const run = (layout: Layout, args: string[], extraEnv: Record<string, string> = {}) =>
  inspect(args, { env: { ...layout.env, ...extraEnv }, cwd: layout.project });

test("servers lists every client's servers with their files, clients and scopes, and never an env or header value", async () => {
  const layout = fullLayout();
  const { home, project } = layout;
  AuthStore.open({ HOME: home }).update("https://cursor.example/mcp", (entry) => ({
    ...entry,
    tokens: { access_token: "stored-token-value", token_type: "Bearer" },
  }));
  const listed = await run(layout, ["servers"]);
  expect(listed.stderr).toBe("");
  expect(listed.code).toBe(0);
  const rows = listed.json.data.servers as any[];
  const where = Object.fromEntries(
    rows.map((row) => [row.name === "shared" ? `shared/${row.scope}` : row.name, [row.client, row.scope, row.file]]),
  );
  expect(where).toEqual({
    "desktop-echo": ["claude-desktop", "user", join(home, ".config", "Claude", "claude_desktop_config.json")],
    "code-user": ["claude-code", "user", join(home, ".claude.json")],
    "shared/user": ["claude-code", "user", join(home, ".claude.json")],
    "cursor-user": ["cursor", "user", join(home, ".cursor", "mcp.json")],
    "path-named": ["cursor", "user", join(home, ".cursor", "mcp.json")],
    "vscode-user": ["vscode", "user", join(home, ".config", "Code", "User", "mcp.json")],
    "insiders-user": ["vscode-insiders", "user", join(home, ".config", "Code - Insiders", "User", "mcp.json")],
    "windsurf-user": ["windsurf", "user", join(home, ".codeium", "windsurf", "mcp_config.json")],
    "codex-echo": ["codex", "user", join(home, ".codex", "config.toml")],
    "codex-http": ["codex", "user", join(home, ".codex", "config.toml")],
    "codex-off": ["codex", "user", join(home, ".codex", "config.toml")],
    "gemini-user": ["gemini", "user", join(home, ".gemini", "settings.json")],
    "code-local": ["claude-code", "local", join(home, ".claude.json")],
    "proj-echo": ["claude-code", "project", join(project, ".mcp.json")],
    "shared/project": ["claude-code", "project", join(project, ".mcp.json")],
    "cursor-proj": ["cursor", "project", join(project, ".cursor", "mcp.json")],
    "vscode-proj": ["vscode", "project", join(project, ".vscode", "mcp.json")],
    "gemini-proj": ["gemini", "project", join(project, ".gemini", "settings.json")],
  });
  const row = (name: string) => rows.find((candidate) => candidate.name === name);
  expect(row("desktop-echo")).toMatchObject({ transport: "stdio", command: BUN, env: ["API_KEY"], headers: [] });
  expect(row("codex-http")).toMatchObject({
    transport: "http",
    url: "https://codex.example/mcp",
    headers: ["X-Team", "Authorization"],
    auth: "Authorization header",
  });
  expect(row("windsurf-user")).toMatchObject({
    transport: "http",
    url: "https://windsurf.example/mcp",
    headers: ["X-Api-Key"],
    // An API-key header is the credential: no sign-in is looked for.
    auth: "X-Api-Key header",
  });
  expect(row("cursor-user")).toMatchObject({ headers: ["X-Trace-Id"], auth: "signed in" });
  expect(row("vscode-user")).toMatchObject({ env: ["TOKEN"], inputs: ["token"] });
  expect(row("codex-off")).toMatchObject({ turnedOff: true });
  expect(row("proj-echo")).toMatchObject({ approved: false, project });
  expect(row("code-user").approved).toBeUndefined();
  const text = await run(layout, ["servers", "--text"]);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain(
    `proj-echo  claude-code, project: ${join(project, ".mcp.json")}  [not approved (mcp-inspect servers --approve proj-echo)]`,
  );
  expect(text.stdout).toContain("http https://cursor.example/mcp · headers X-Trace-Id · signed in");
  for (const secret of SECRETS) {
    expect(listed.stdout).not.toContain(secret);
    expect(text.stdout + text.stderr).not.toContain(secret);
  }
});

test("servers --json is the envelope every command prints: success, data.servers, metadata", async () => {
  const layout = emptyLayout();
  write(join(layout.home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { one: ECHO } }));
  const listed = await run(layout, ["servers", "--json"]);
  expect(listed.code).toBe(0);
  expect(Object.keys(listed.json)).toEqual(["success", "data", "metadata"]);
  expect(listed.json.success).toBe(true);
  expect(listed.json.data).toEqual({
    servers: [expect.objectContaining({ name: "one", client: "cursor", scope: "user" })],
    project: layout.project,
    problems: [],
  });
  expect(listed.json.metadata).toMatchObject({ command: "servers", timestamp: expect.any(String), durationMs: expect.any(Number) });
});

test("with nothing configured, servers exits 9 (nothing there) and says where it looked", async () => {
  const layout = emptyLayout();
  const listed = await run(layout, ["servers"]);
  expect(listed.code).toBe(9);
  expect(listed.json).toMatchObject({
    success: false,
    error: {
      code: "NOTHING_THERE",
      details: { looked: expect.arrayContaining([join(layout.home, ".claude.json"), join(layout.project, ".mcp.json")]) },
    },
  });
  const text = await run(layout, ["servers", "--text"]);
  expect(text.code).toBe(9);
  expect(text.stderr).toStartWith("error: no MCP servers are configured for this user or project");
});

test("--server NAME resolves a configured entry and calls it, a Codex TOML entry included", async () => {
  const layout = fullLayout();
  const called = await run(layout, ["call-tool", "echo", "message=hello", "--server", "code-user"]);
  expect(called.stderr).toBe("");
  expect(called.code).toBe(0);
  expect(called.json.data.content[0].text).toBe("hello");
  expect(called.json.metadata.target).toBe("code-user");
  // The Codex entry's env reaches the server (and only its name was ever listed).
  const codex = await run(layout, ["call-tool", "env", "--params", '{"name":"CODEX_SECRET"}', "--no-validate", "--server", "codex-echo"]);
  expect(codex.code).toBe(0);
  expect(codex.json.data.content[0].text).toBe("secret-codex-value");
  const off = await run(layout, ["list-tools", "--server", "codex-off"]);
  expect(off.code).toBe(1);
  expect(off.json.error.message).toContain(`"codex-off" is turned off in ${join(layout.home, ".codex", "config.toml")}`);
});

test("--config takes a Codex config.toml: its [mcp_servers.<name>] tables, env included; a broken one is a one-line error", async () => {
  const layout = fullLayout();
  const toml = join(layout.home, ".codex", "config.toml");
  const codex = await run(layout, [
    "call-tool",
    "env",
    "--params",
    '{"name":"CODEX_SECRET"}',
    "--no-validate",
    "--config",
    toml,
    "--server",
    "codex-echo",
  ]);
  expect(codex.code).toBe(0);
  expect(codex.json.data.content[0].text).toBe("secret-codex-value");
  const broken = join(layout.project, "broken.toml");
  write(broken, "[mcp_servers.x\n");
  const bad = await run(layout, ["list-tools", "--config", broken]);
  expect(bad.code).toBe(1);
  expect(bad.json.error.message).toStartWith(`config ${broken} is not valid TOML (`);
  const none = join(layout.project, "none.toml");
  write(none, 'model = "o3"\n');
  expect((await run(layout, ["list-tools", "--config", none])).json.error.message).toBe(`config ${none} has no [mcp_servers.<name>] table`);
});

test("two different entries of one name in one scope are an error naming both files; the same entry twice is one server", async () => {
  const layout = emptyLayout();
  const cursor = join(layout.home, ".cursor", "mcp.json");
  const windsurf = join(layout.home, ".codeium", "windsurf", "mcp_config.json");
  write(cursor, JSON.stringify({ mcpServers: { dup: ECHO, same: ECHO } }));
  write(windsurf, JSON.stringify({ mcpServers: { dup: { ...REFERENCE_ENTRY }, same: ECHO } }));
  const ambiguous = await run(layout, ["list-tools", "--server", "dup"]);
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.json.error.message).toContain(`"dup" names 2 different user servers, in ${cursor} and ${windsurf}`);
  const listed = await run(layout, ["servers"]);
  expect(listed.json.data.servers.find((row: any) => row.name === "dup" && row.client === "cursor").ambiguousWith).toEqual([windsurf]);
  const same = await run(layout, ["list-tools", "--server", "same"]);
  expect(same.code).toBe(0);
});

test("a project entry shadows a user entry of the same name, and a local entry shadows both", async () => {
  const layout = fullLayout();
  const whichOf = async () =>
    (await run(layout, ["call-tool", "env", "--params", '{"name":"WHICH"}', "--no-validate", "--server", "shared"])).json;
  expect((await run(layout, ["servers", "--approve", "shared"])).code).toBe(0);
  expect((await whichOf()).data.content[0].text).toBe("project");
  const listed = await run(layout, ["servers"]);
  expect(listed.json.data.servers.find((row: any) => row.name === "shared" && row.scope === "user").shadowedBy).toEqual({
    client: "claude-code",
    scope: "project",
    file: join(layout.project, ".mcp.json"),
  });
  write(
    join(layout.home, ".claude.json"),
    JSON.stringify({
      mcpServers: { shared: echoWith({ WHICH: "user" }) },
      projects: { [layout.project]: { mcpServers: { shared: echoWith({ WHICH: "local" }) } } },
    }),
  );
  expect((await whichOf()).data.content[0].text).toBe("local");
});

test("an entry wins over a command of the same name on PATH, and `--` always means the command", async () => {
  const layout = fullLayout();
  const bin = join(layout.home, "bin");
  write(join(bin, "path-named"), `#!/bin/sh\nexec ${REFERENCE_LINE} "$@"\n`);
  chmodSync(join(bin, "path-named"), 0o755);
  const PATH = `${bin}:${process.env.PATH}`;
  const byName = await run(layout, ["server-info", "--server", "path-named"], { PATH });
  expect(byName.code).toBe(0);
  expect(byName.json.data.serverInfo.name).toBe("faulty");
  const command = await run(layout, ["server-info", "--", "path-named"], { PATH });
  expect(command.code).toBe(0);
  expect(command.json.data.serverInfo.name).toBe("mcpkit-reference");
  // No entry of that name: the command line it always was.
  const unnamed = await run(layout, ["list-tools", "--server", `${BUN} ${FAULTY}`]);
  expect(unnamed.code).toBe(0);
});

test("a project entry runs only once approved; servers --approve approves it, and a changed entry asks again", async () => {
  const layout = fullLayout();
  const refused = await run(layout, ["list-tools", "--server", "proj-echo"]);
  expect(refused.code).toBe(1);
  expect(refused.json.error.message).toContain(
    `"proj-echo" comes from the project file ${join(layout.project, ".mcp.json")} and is not approved yet`,
  );
  expect(refused.json.error.message).toContain("mcp-inspect servers --approve proj-echo");
  const text = await run(layout, ["list-tools", "--server", "proj-echo", "--text"]);
  expect(text.stderr.trim().split("\n")).toHaveLength(1);
  const approved = await run(layout, ["servers", "--approve", "proj-echo"]);
  expect(approved.code).toBe(0);
  expect(approved.json.data.approved).toEqual([
    { name: "proj-echo", file: join(layout.project, ".mcp.json"), runs: `runs ${BUN} ${FAULTY}` },
  ]);
  const listed = await run(layout, ["list-tools", "--server", "proj-echo"]);
  expect(listed.code).toBe(0);
  expect(listed.json.data.tools.map((tool: any) => tool.name)).toEqual(["echo"]);
  write(join(layout.project, ".mcp.json"), JSON.stringify({ mcpServers: { "proj-echo": { ...ECHO, args: [FAULTY, "junk"] } } }));
  expect((await run(layout, ["list-tools", "--server", "proj-echo"])).code).toBe(1);
  expect((await run(layout, ["servers"])).json.data.servers.find((row: any) => row.name === "proj-echo").approved).toBe(false);
  const userEntry = await run(layout, ["servers", "--approve", "code-user"]);
  expect(userEntry.code).toBe(1);
  expect(userEntry.json.error.message).toContain("only project entries need approval");
});

test("a VS Code entry with ${input:...} and no terminal: a one-line error that names the input", async () => {
  const layout = fullLayout();
  const result = await run(layout, ["list-tools", "--server", "vscode-user", "--text"]);
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(
    `error: "vscode-user" in ${join(layout.home, ".config", "Code", "User", "mcp.json")} needs \${input:token} (Your token), typed ` +
      `only at a terminal (run it on one)\n`,
  );
});

test("a config file that cannot be parsed is named once, and the other files are still read", async () => {
  const layout = emptyLayout();
  write(join(layout.home, ".claude.json"), "{ broken");
  write(join(layout.home, ".codex", "config.toml"), "[mcp_servers.x\n");
  write(join(layout.home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { fine: ECHO } }));
  const listed = await run(layout, ["servers"]);
  expect(listed.code).toBe(0);
  expect(listed.json.data.servers.map((row: any) => row.name)).toEqual(["fine"]);
  expect(listed.json.data.problems).toEqual([
    expect.stringContaining(`${join(layout.home, ".claude.json")} is not valid JSON`),
    expect.stringContaining(`${join(layout.home, ".codex", "config.toml")} is not valid TOML`),
  ]);
  const text = await run(layout, ["servers", "--text"]);
  expect(text.stderr.match(/\.claude\.json is not valid JSON/g)).toHaveLength(1);
});

/** mcp-inspect in a pseudo-terminal (the one screen helper), run in the layout's project. */
function inspectInTerminal(layout: Layout, args: string[]) {
  return inTerminal([...toolCommand("mcp-inspect.ts"), ...args], {
    cwd: layout.project,
    env: { ...process.env, ...layout.env, NO_COLOR: "1", TERM: "xterm" },
  });
}

test("on a terminal, an unapproved project entry is shown and asked about, and the answer is remembered", async () => {
  const layout = fullLayout();
  const session = inspectInTerminal(layout, ["list-tools", "--server", "proj-echo"]);
  await session.see(
    `"proj-echo" comes from the project file ${join(layout.project, ".mcp.json")} and has not been approved yet. It runs ${BUN} ${FAULTY}.`,
  );
  await session.see("Run it, and remember this answer for this entry? [y/N] ");
  session.type("y\r");
  await session.see("echo(message: string)");
  expect(await session.child.exited).toBe(0);
  // Remembered: without a terminal it now runs.
  expect((await run(layout, ["list-tools", "--server", "proj-echo"])).code).toBe(0);
});

test("on a terminal, a VS Code ${input:...} is typed without being shown, and reaches the server", async () => {
  const layout = fullLayout();
  const session = inspectInTerminal(layout, [
    "call-tool",
    "env",
    "--params",
    '{"name":"TOKEN"}',
    "--no-validate",
    "--server",
    "vscode-user",
  ]);
  await session.see("Your token: ");
  session.type("typed-secret\r");
  await session.see("typed-secret");
  expect(await session.child.exited).toBe(0);
  // Once, as the tool's answer: the typing itself was not echoed.
  expect(session.screen().split("typed-secret")).toHaveLength(2);
});

test(
  "each client's own spelling reads as the same target: Gemini httpUrl, Windsurf serverUrl, Codex headers from variables, env_vars, " +
    "an envFile",
  () => {
    const dir = tempDir("mcpkit-fields-");
    const env = { TEAM_TOKEN: "t-1", MY_TOKEN: "b-2", PASSED: "p-3" };
    expect(configEntryTarget("g.json", "g", { httpUrl: "https://g.example/mcp" }, env)).toMatchObject({
      ok: true,
      value: { kind: "http", url: "https://g.example/mcp", transport: "streamable-http" },
    });
    expect(configEntryTarget("w.json", "w", { serverUrl: "https://w.example/mcp" }, env)).toMatchObject({
      ok: true,
      value: { kind: "http", url: "https://w.example/mcp" },
    });
    const codex = configEntryTarget(
      "c.toml",
      "c",
      {
        url: "https://c.example/mcp",
        http_headers: { "X-A": "a" },
        env_http_headers: { "X-Team": "TEAM_TOKEN" },
        bearer_token_env_var: "MY_TOKEN",
      },
      env,
    );
    expect(codex).toMatchObject({ ok: true, value: { headers: { "X-A": "a", "X-Team": "t-1", Authorization: "Bearer b-2" } } });
    expect(configEntryTarget("c.toml", "c", { command: "x", env_vars: ["PASSED", "UNSET_ONE"], env: { OWN: "o" } }, env)).toMatchObject({
      ok: true,
      value: { env: { PASSED: "p-3", OWN: "o" } },
    });
    write(join(dir, ".env"), '# comment\nexport FROM_FILE=1\nQUOTED="a b"\nOWN=from-file\n');
    const withFile = configEntryTarget(join(dir, "mcp.json"), "v", { command: "x", envFile: ".env", env: { OWN: "entry" } }, env);
    expect(withFile).toMatchObject({ ok: true, value: { env: { FROM_FILE: "1", QUOTED: "a b", OWN: "entry" } } });
    expect(configEntryTarget("c.toml", "off", { command: "x", enabled: false }, env)).toMatchObject({
      ok: false,
      error: 'server "off" in c.toml is turned off there (enabled = false)',
    });
  },
);
