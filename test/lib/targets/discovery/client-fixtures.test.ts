// What the real clients' own `mcp add` wrote (test/fixtures/clients/, kept by `npm run test:seams`
// with MCPKIT_UPDATE_FIXTURES=1), laid where each client wrote it: discovery finds every entry
// with the client, scope and file the client gave it, and reads it as the target the client runs.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { discoverServers, pickServer, targetOf } from "../../../../lib/targets/discovery/index.ts";
import { BUN, FAULTY, homeAndRepository, ROOT, removeTempDirs } from "../../../support/helpers.ts";

afterAll(removeTempDirs);

const FIXTURES = join(ROOT, "test", "fixtures", "clients");

/** Each fixture: where its client wrote it (from HOME, the repository, and the subfolder it ran in), and what it holds. */
const WRITTEN: { fixture: string; client: string; scope: string; place: (home: string, project: string, sub: string) => string }[] = [
  { fixture: "claude-user.json", client: "claude-code", scope: "user", place: (home) => join(home, ".claude.json") },
  { fixture: "claude-project.json", client: "claude-code", scope: "project", place: (_h, _p, sub) => join(sub, ".mcp.json") },
  { fixture: "codex-user.toml", client: "codex", scope: "user", place: (home) => join(home, ".codex", "config.toml") },
  { fixture: "gemini-user.json", client: "gemini", scope: "user", place: (home) => join(home, ".gemini", "settings.json") },
  { fixture: "gemini-project.json", client: "gemini", scope: "project", place: (_h, project) => join(project, ".gemini", "settings.json") },
  {
    fixture: "opencode-user.jsonc",
    client: "opencode",
    scope: "user",
    place: (home) => join(home, ".config", "opencode", "opencode.jsonc"),
  },
  { fixture: "copilot-user.json", client: "copilot", scope: "user", place: (home) => join(home, ".copilot", "mcp-config.json") },
  { fixture: "qwen-user.json", client: "qwen", scope: "user", place: (home) => join(home, ".qwen", "settings.json") },
  { fixture: "qwen-project.json", client: "qwen", scope: "project", place: (_h, project) => join(project, ".qwen", "settings.json") },
];

test("every entry the real clients wrote is found with its client, scope and file, and runs what the client would run", async () => {
  const { home, project, env } = homeAndRepository("mcpkit-client-fixtures-");
  const sub = join(project, "packages", "app");
  const fill = (text: string) =>
    text.replaceAll("$HOME", home).replaceAll("$PROJECT", project).replaceAll("$BUN", BUN).replaceAll("$FAULTY", FAULTY);
  const lay = (fixture: string, file: string) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, fill(readFileSync(join(FIXTURES, fixture), "utf8")));
  };
  for (const { fixture, place } of WRITTEN) lay(fixture, place(home, project, sub));
  // Claude Code's local entry sits in the same ~/.claude.json as its user entry: both files merged, as Claude keeps them.
  const user = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8"));
  const local = JSON.parse(fill(readFileSync(join(FIXTURES, "claude-local.json"), "utf8")));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ ...user, projects: local.projects }));
  const expected = [
    ...WRITTEN,
    { fixture: "claude-local.json", client: "claude-code", scope: "local", place: () => join(home, ".claude.json") },
  ];

  const found = await discoverServers({ env, cwd: sub });
  expect(found.problems).toEqual([]);
  const named = found.servers.map((server) => [server.name, server.client, server.scope, server.file]);
  expect(named.sort()).toEqual(
    expected
      .map(({ fixture, client, scope, place }) => [`seam-${fixture.split("-")[0]}-${scope}`, client, scope, place(home, project, sub)])
      .sort(),
  );
  for (const server of found.servers) {
    const picked = pickServer(found.servers, server.name);
    expect(picked?.ok).toBe(true);
    const target = targetOf(server, { env });
    expect(target.ok && target.value.kind === "stdio" && [target.value.command, target.value.args, target.value.env]).toEqual([
      BUN,
      [FAULTY],
      { WHICH: server.name.split("-")[1]! },
    ]);
  }
});
