// Each client's own writer against our reader (`npm run test:seams`, not `npm test`): the real
// CLIs, pinned (DESIGN.md, "Testing"), on Node 24, each in a fresh HOME with a fresh git
// repository, write a server with their own `mcp add`; then mcp-inspect must list it with the
// scope and file the client gave it, call it by name (the env the client wrote reaching it) and
// find its tool with grep. What each wrote is kept in test/fixtures/clients/ (with
// MCPKIT_UPDATE_FIXTURES=1) for the fast tier. Last, `claude mcp list` and `gemini mcp list` must
// show an `mcp-inspect mcp CMD ARGS` entry and one `config --write` wrote as connected.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { BUN, FAULTY, homeAndRepository, inspect, ROOT, removeTempDirs } from "../support/helpers.ts";
import { binOf, node24Bin } from "../support/peers.ts";

afterAll(removeTempDirs);

const LONG = 600_000;
const FIXTURES = join(ROOT, "test", "fixtures", "clients");
const CLI = {
  claude: { spec: "@anthropic-ai/claude-code@2.1.332", bin: "claude" },
  codex: { spec: "@openai/codex@0.171.0", bin: "codex" },
  gemini: { spec: "@google/gemini-cli@0.61.0", bin: "gemini" },
  opencode: { spec: "opencode-ai@1.18.33", bin: "opencode" },
  copilot: { spec: "@github/copilot@1.0.102", bin: "copilot" },
  qwen: { spec: "@qwen-code/qwen-code@0.24.4", bin: "qwen" },
} as const;

interface Writer {
  /** The client's name in mcp-inspect servers. */
  client: string;
  cli: keyof typeof CLI;
  scope: "user" | "project" | "local";
  /** Run from a subfolder of the repository (Claude Code keys local entries by the root regardless). */
  fromSubfolder?: boolean;
  /** The `mcp add` arguments for server NAME running `bun faulty-server.ts` with WHICH=VALUE. */
  add: (name: string, which: string) => string[];
  /** The file the client writes, from HOME and the folder it ran in. */
  file: (home: string, cwd: string, root: string) => string;
}

const SERVER = [BUN, FAULTY];
/** The three ways the CLIs spell `mcp add`: Claude Code's, Gemini CLI's and Qwen Code's (no `--`), and the others'. */
const claudeAdd = (scope: string) => (n: string, w: string) => ["mcp", "add", "-s", scope, n, "-e", `WHICH=${w}`, "--", ...SERVER];
const geminiAdd = (scope: string) => (n: string, w: string) => ["mcp", "add", "-s", scope, "-e", `WHICH=${w}`, n, ...SERVER];
const plainAdd = (n: string, w: string) => ["mcp", "add", n, "--env", `WHICH=${w}`, "--", ...SERVER];
const inHome =
  (...path: string[]) =>
  (home: string) =>
    join(home, ...path);
const inRoot =
  (...path: string[]) =>
  (_home: string, _cwd: string, root: string) =>
    join(root, ...path);

const WRITERS: Writer[] = [
  { client: "claude-code", cli: "claude", scope: "user", add: claudeAdd("user"), file: inHome(".claude.json") },
  { client: "claude-code", cli: "claude", scope: "local", fromSubfolder: true, add: claudeAdd("local"), file: inHome(".claude.json") },
  {
    client: "claude-code",
    cli: "claude",
    scope: "project",
    fromSubfolder: true,
    add: claudeAdd("project"),
    file: (_home, cwd) => join(cwd, ".mcp.json"),
  },
  { client: "codex", cli: "codex", scope: "user", add: plainAdd, file: inHome(".codex", "config.toml") },
  { client: "gemini", cli: "gemini", scope: "user", add: geminiAdd("user"), file: inHome(".gemini", "settings.json") },
  { client: "gemini", cli: "gemini", scope: "project", add: geminiAdd("project"), file: inRoot(".gemini", "settings.json") },
  { client: "opencode", cli: "opencode", scope: "user", add: plainAdd, file: inHome(".config", "opencode", "opencode.jsonc") },
  { client: "copilot", cli: "copilot", scope: "user", add: plainAdd, file: inHome(".copilot", "mcp-config.json") },
  { client: "qwen", cli: "qwen", scope: "user", add: geminiAdd("user"), file: inHome(".qwen", "settings.json") },
  { client: "qwen", cli: "qwen", scope: "project", add: geminiAdd("project"), file: inRoot(".qwen", "settings.json") },
];

/** Runs a client's CLI on Node 24 in this HOME, with no terminal and no credentials. */
async function client(cli: keyof typeof CLI, args: string[], home: string, cwd: string) {
  const [bin, node] = await Promise.all([binOf(CLI[cli].spec, CLI[cli].bin), node24Bin()]);
  const child = Bun.spawn([bin, ...args], {
    cwd,
    env: { HOME: home, PATH: `${node}:/usr/local/bin:/usr/bin:/bin`, NO_COLOR: "1", TERM: "dumb", DISABLE_AUTOUPDATER: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, output: `${stdout}${stderr}` };
}

/** The file as a fixture: this run's paths put back as placeholders the fast tier fills in. */
function asFixture(text: string, places: Record<string, string>): string {
  // Claude Code's random ids for this install say nothing about the entry.
  let out = text.replace(/"(machineID|userID)": "[^"]*"/g, '"$1": "(a random id)"');
  for (const [placeholder, path] of Object.entries(places).sort(([, a], [, b]) => b.length - a.length))
    out = out.replaceAll(path, placeholder);
  return out;
}

const results: string[][] = [];
afterAll(() => {
  const header = [
    "client",
    "scope",
    "its writer wrote",
    "servers found it (scope, file)",
    "--server NAME called it",
    "grep found its tool",
  ];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  process.stderr.write(`\n${[line(header), line(header.map(() => "---")), ...results.map(line)].join("\n")}\n`);
});

for (const writer of WRITERS.filter((candidate) => !process.env.MCPKIT_SEAMS_ONLY || process.env.MCPKIT_SEAMS_ONLY === candidate.cli)) {
  test(
    `${writer.client} ${writer.scope}: what its own mcp add writes is listed, called and searched`,
    async () => {
      const { home, project, env } = homeAndRepository(`mcpkit-seam-${writer.cli}-`);
      const cwd = writer.fromSubfolder ? join(project, "packages", "app") : project;
      mkdirSync(cwd, { recursive: true });
      const name = `seam-${writer.cli}-${writer.scope}`;
      const row = [writer.client, writer.scope, "no", "no", "no", "no"];
      results.push(row);
      const added = await client(writer.cli, writer.add(name, writer.cli), home, cwd);
      const file = writer.file(home, cwd, project);
      const written = (() => {
        try {
          return readFileSync(file, "utf8");
        } catch {
          return undefined;
        }
      })();
      expect({ code: added.code, written: written?.includes(name) }, added.output).toEqual({ code: 0, written: true });
      row[2] = "yes";
      if (process.env.MCPKIT_UPDATE_FIXTURES === "1") {
        mkdirSync(FIXTURES, { recursive: true });
        // test/lib/targets/discovery/client-fixtures.test.ts lays each where its client wrote it.
        const fixture = `${writer.cli}-${writer.scope}${extname(file) || ".json"}`;
        writeFileSync(join(FIXTURES, fixture), asFixture(written!, { $HOME: home, $PROJECT: project, $BUN: BUN, $FAULTY: FAULTY }));
      }

      const rows = (await inspect(["servers"], { env, cwd })).json?.data?.servers ?? [];
      const listed = rows.find((candidate: any) => candidate.name === name);
      expect(listed && [listed.client, listed.scope, listed.file]).toEqual([writer.client, writer.scope, file]);
      row[3] = "yes";
      // A project entry is approved first, as its user would.
      if (writer.scope === "project") expect((await inspect(["servers", "--approve", name], { env, cwd })).code).toBe(0);
      const called = await inspect(["call-tool", "env", "--params", '{"name":"WHICH"}', "--no-validate", "--server", name], { env, cwd });
      expect(called.json?.data?.content?.[0]?.text ?? called.stderr).toBe(writer.cli);
      row[4] = "yes";
      const grep = await inspect(["grep", "echo"], { env, cwd });
      expect(grep.json?.data?.matches?.map((match: any) => match.server) ?? grep.stderr).toContain(name);
      row[5] = "yes";
    },
    LONG,
  );
}

const INSPECT = join(ROOT, "mcp-inspect.ts");

test(
  "claude mcp list and gemini mcp list show `mcp-inspect mcp CMD ARGS` and a `config --write` entry connected",
  async () => {
    const { home, project, env } = homeAndRepository("mcpkit-seam-connected-");
    expect((await client("claude", ["mcp", "add", "-s", "user", "insp", "--", BUN, INSPECT, "mcp", ...SERVER], home, project)).code).toBe(
      0,
    );
    expect((await client("gemini", ["mcp", "add", "-s", "user", "insp", BUN, INSPECT, "mcp", ...SERVER], home, project)).code).toBe(0);
    for (const target of ["claude-code-user", "gemini"]) {
      const wrote = await inspect(["config", "--client", target, "--name", "written", "--write", "--", ...SERVER], { env, cwd: project });
      expect(wrote.code, wrote.stderr).toBe(0);
    }
    // Gemini CLI starts no server in a folder the user has not trusted (its folder trust, ~/.gemini/trustedFolders.json).
    writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    const claude = await client("claude", ["mcp", "list"], home, project);
    const gemini = await client("gemini", ["mcp", "list"], home, project);
    process.stderr.write(`\nclaude mcp list:\n${claude.output}\ngemini mcp list:\n${gemini.output}\n`);
    expect(claude.output).toMatch(/insp: .*Connected/);
    expect(claude.output).toMatch(/written: .*Connected/);
    expect(gemini.output).toMatch(/insp: .*Connected/);
    expect(gemini.output).toMatch(/written: .*Connected/);
  },
  LONG,
);
