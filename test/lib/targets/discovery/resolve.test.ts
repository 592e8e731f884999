// What `--server NAME` means among the configured servers: local over project over user, one
// server copied into two clients' files is one, two different ones of a scope are an error naming
// both files; a project entry runs once approved, and VS Code's inputs are typed or refused.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DiscoveredServer } from "../../../../lib/targets/discovery/find.ts";
import {
  displayUrl,
  findServerTarget,
  pickServer,
  serverStates,
  targetOf,
  unreachableReason,
  whatItRuns,
} from "../../../../lib/targets/discovery/resolve.ts";
import type { Asker } from "../../../../lib/terminal/asker.ts";
import { homeAndRepository, removeTempDirs } from "../../../support/helpers.ts";

afterAll(removeTempDirs);

function server(overrides: Partial<DiscoveredServer> & Pick<DiscoveredServer, "file">): DiscoveredServer {
  return {
    name: "s",
    client: "claude-code",
    scope: "user",
    project: "/p",
    entry: { command: "run" },
    inputs: [],
    turnedOff: false,
    approved: true,
    ...overrides,
  };
}

const picked = (servers: DiscoveredServer[], name = "s") => {
  const result = pickServer(servers, name);
  return result?.ok ? result.value : result;
};

test("local over project over user; a name no entry has is undefined (then it is a command line)", () => {
  const user = server({ file: "/h/.claude.json" });
  const project = server({ file: "/p/.mcp.json", scope: "project", entry: { command: "other" } });
  const local = server({ file: "/h/.claude.json#local", scope: "local", entry: { command: "mine" } });
  expect(picked([user, project, local])).toBe(local);
  expect(picked([user, project])).toBe(project);
  expect(picked([user])).toBe(user);
  expect(pickServer([user], "t")).toBeUndefined();
});

test("the same server in two clients' files is one; two different ones in a scope are an error naming both files", () => {
  const claude = server({ file: "/h/.claude.json", entry: { type: "stdio", command: "run", env: {} } });
  const gemini = server({ file: "/h/.gemini/settings.json", client: "gemini" });
  expect(picked([claude, gemini])).toBe(claude);
  const cursor = server({ file: "/h/.cursor/mcp.json", client: "cursor", entry: { command: "run", args: ["x"] } });
  expect(pickServer([claude, cursor], "s")).toEqual({
    ok: false,
    error:
      '"s" names 2 different user servers, in /h/.claude.json and /h/.cursor/mcp.json (rename or remove one, or pick one with ' +
      "--config <file> --server s)",
  });
  // A name a shell would split is quoted in the hint.
  const named = (entry: Record<string, unknown>, file: string) => server({ name: "it's mine", file, entry });
  expect(pickServer([named({ command: "a" }, "/a"), named({ command: "b" }, "/b")], "it's mine")).toMatchObject({
    ok: false,
    error: expect.stringContaining(`--server 'it'\\''s mine'`),
  });
});

test("entries turned off or hidden by a nearer file of their client are passed over; all turned off is an error", () => {
  const near = server({ file: "/p/sub/.mcp.json", scope: "project" });
  const far = server({ file: "/p/.mcp.json", scope: "project", entry: { command: "far" }, hiddenBy: near });
  expect(picked([far, near])).toBe(near);
  const on = server({ file: "/h/.claude.json" });
  expect(picked([server({ file: "/h/.codex/config.toml", scope: "local", turnedOff: true }), on])).toBe(on);
  expect(pickServer([server({ file: "/a", turnedOff: true }), server({ file: "/b", turnedOff: true })], "s")).toEqual({
    ok: false,
    error: '"s" is turned off in /a and /b (turn it on there to use it)',
  });
});

test("an unapproved project entry waits while the user wrote one of that name; alone, it is picked (and asked about)", () => {
  const user = server({ file: "/h/.claude.json" });
  const project = server({ file: "/p/.mcp.json", scope: "project", approved: false, entry: { command: "theirs" } });
  expect(picked([user, project])).toBe(user);
  expect(picked([user, { ...project, approved: true }])).toMatchObject({ file: "/p/.mcp.json" });
  expect(picked([project])).toBe(project);
});

test("serverStates: which entry each unreached one yields to, and which names are ambiguous", () => {
  const user = server({ file: "/h/.claude.json" });
  const copy = server({ file: "/h/.gemini/settings.json", client: "gemini" });
  const waiting = server({ file: "/p/.mcp.json", scope: "project", approved: false, entry: { command: "theirs" } });
  const hidden = server({ file: "/h/old.json", hiddenBy: user, entry: { command: "old" } });
  const off = server({ file: "/h/off.json", turnedOff: true });
  const local = server({ name: "l", file: "/h/.claude.json#l", scope: "local", entry: { command: "x" } });
  const lower = server({ name: "l", file: "/h/l.json", entry: { command: "y" } });
  const a = server({ name: "two", file: "/a.json", scope: "project", entry: { command: "a" } });
  const b = server({ name: "two", file: "/b.json", scope: "project", entry: { command: "b" } });
  const below = server({ name: "two", file: "/h/two.json", entry: { command: "c" } });
  const states = serverStates([user, copy, waiting, hidden, off, local, lower, a, b, below]);
  const ref = (entry: DiscoveredServer) => ({ client: entry.client, scope: entry.scope, file: entry.file });
  expect(states.get(copy)).toEqual({ sameAs: ref(user) });
  expect(states.get(waiting)).toEqual({ waitsForApproval: ref(user) });
  expect(states.get(hidden)).toEqual({ shadowedBy: ref(user) });
  expect(states.get(lower)).toEqual({ shadowedBy: ref(local) });
  expect(states.get(a)).toEqual({ ambiguousWith: ["/b.json"] });
  expect(states.get(b)).toEqual({ ambiguousWith: ["/a.json"] });
  expect(states.get(below)).toEqual({ shadowedBy: ref(a) });
  for (const reached of [user, off, local]) expect(states.has(reached)).toBe(false);
});

test("unreachableReason: why a name reaches nothing, or undefined when it reaches a server", () => {
  const project = server({ name: "p s", file: "/p/.mcp.json", scope: "project", approved: false });
  expect(unreachableReason([project], "p s")).toBe(
    "it comes from the project file /p/.mcp.json, not approved yet (mcp-inspect servers --approve 'p s')",
  );
  expect(unreachableReason([server({ file: "/a", turnedOff: true })], "s")).toBe("is turned off in /a (turn it on there to use it)");
  expect(unreachableReason([server({ file: "/a" })], "s")).toBeUndefined();
  expect(unreachableReason([], "s")).toBeUndefined();
});

test("targetOf: VS Code's and Cursor's variables put in for them only; an input not typed is an error that names it", () => {
  const entry = { command: "${workspaceFolder}/run", args: ["${userHome}", "${input:key}"] };
  const vscode = server({ file: "/p/.vscode/mcp.json", client: "vscode", entry, inputs: [{ id: "key", description: "API key" }] });
  expect(targetOf(vscode, { env: { HOME: "/h" } })).toEqual({
    ok: false,
    error: '"s" in /p/.vscode/mcp.json needs ${input:key} (API key), typed only at a terminal (run it on one)',
  });
  expect(targetOf(vscode, { env: { HOME: "/h" }, inputs: { key: "k" } })).toMatchObject({
    ok: true,
    value: { command: "/p/run", args: ["/h", "k"] },
  });
  const claude = server({ file: "/h/.claude.json", entry: { command: "${workspaceFolder}/run" } });
  expect(targetOf(claude, { env: {} })).toEqual({
    ok: false,
    error: 'server "s" in /h/.claude.json: ${workspaceFolder} is not set (export it, or write ${workspaceFolder:-default})',
  });
  // An input named like an Object.prototype member is not typed by an empty answer sheet.
  const hostile = server({ file: "/p/.vscode/mcp.json", client: "vscode", entry: { command: "run", args: ["${input:constructor}"] } });
  expect(targetOf(hostile, { env: {}, inputs: {} })).toMatchObject({
    ok: false,
    error: expect.stringContaining("needs ${input:constructor}"),
  });
});

test("whatItRuns shows the whole command line and only the names of env and headers; displayUrl hides what may be secret", () => {
  expect(whatItRuns({ command: "npx", args: ["-y", "pkg", "a b", 'say "hi"'], env: { TOKEN: "secret" } })).toBe(
    'runs npx -y pkg "a b" "say \\"hi\\"" with the variables TOKEN',
  );
  expect(whatItRuns({ args: ["x"] })).toBe('runs "(no command)" x');
  expect(whatItRuns({ httpUrl: "https://u:pw@x.example/mcp?key=secret&b=2", headers: { Authorization: "Bearer s" } })).toBe(
    "connects to https://x.example/mcp?key=...&b=... with the headers Authorization",
  );
  expect(displayUrl("https://${HOST}/mcp?k=${KEY}")).toBe("https://${HOST}/mcp?k=${KEY}");
  expect(displayUrl("not a url")).toBe("not a url");
});

/** A person at the terminal who answers from a script, and what was said to them. */
function person(answers: { confirm?: boolean; typed?: (string | null)[] }): Required<Asker> & { said: string[] } {
  const said: string[] = [];
  const typed = [...(answers.typed ?? [])];
  return {
    said,
    print: (line) => said.push(line),
    confirm: async (question) => {
      said.push(question);
      return answers.confirm ?? false;
    },
    ask: async (prompt, options) => {
      said.push(`${prompt}${options?.hidden ? "(hidden)" : ""}`);
      return typed.shift() ?? null;
    },
  };
}

function write(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

test("findServerTarget: a project entry is refused unasked, declined, or approved once and remembered", async () => {
  const { project, env } = homeAndRepository("mcpkit-resolve-");
  write(join(project, ".mcp.json"), { mcpServers: { p: { command: "run", args: ["x"], env: { TOKEN: "t" } } } });
  const options = { env, cwd: project };
  expect(await findServerTarget("none", options)).toBeUndefined();
  expect(await findServerTarget("p", options)).toMatchObject({ ok: false, error: expect.stringContaining("is not approved yet") });
  const declines = person({ confirm: false });
  expect(await findServerTarget("p", { ...options, ask: declines })).toMatchObject({
    ok: false,
    error: '"p" was not approved (approve it later with: mcp-inspect servers --approve p)',
  });
  expect(declines.said[0]).toContain("It runs run x with the variables TOKEN.");
  const agrees = person({ confirm: true });
  expect(await findServerTarget("p", { ...options, ask: agrees })).toMatchObject({ ok: true, value: { command: "run", args: ["x"] } });
  // Remembered: asked no more, and found without anyone to ask.
  expect(await findServerTarget("p", options)).toMatchObject({ ok: true, value: { command: "run" } });
});

test("findServerTarget: VS Code inputs typed (a password hidden, an empty answer the default); a command input refused", async () => {
  const { home, env } = homeAndRepository("mcpkit-resolve-");
  const file = join(home, ".config", "Code", "User", "mcp.json");
  write(file, {
    servers: {
      v: { command: "run", args: ["${input:key}", "${input:region}"] },
      c: { command: "run", args: ["${input:picked}"] },
    },
    inputs: [
      { id: "key", type: "promptString", description: "API key", password: true },
      { id: "region", type: "pickString", description: "Region", options: ["eu", "us"], default: "eu" },
      { id: "picked", type: "command", command: "extension.pick" },
    ],
  });
  const options = { env, cwd: home, platform: "linux" as const };
  expect(await findServerTarget("v", options)).toMatchObject({ ok: false, error: expect.stringContaining("typed only at a terminal") });
  const typist = person({ typed: ["k3y", ""] });
  expect(await findServerTarget("v", { ...options, ask: typist })).toMatchObject({ ok: true, value: { args: ["k3y", "eu"] } });
  expect(typist.said).toEqual(["API key: (hidden)", "Region: one of eu, us", "Region [eu]: "]);
  expect(await findServerTarget("c", { ...options, ask: person({}) })).toEqual({
    ok: false,
    error: `"c" in ${file}: \${input:picked} is a VS Code command input, which only VS Code can run`,
  });
});
