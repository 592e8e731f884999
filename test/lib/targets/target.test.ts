import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJsonc } from "../../../lib/targets/jsonc.ts";
import { resolveTarget } from "../../../lib/targets/resolve.ts";
import { expandVariables } from "../../../lib/targets/variables.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-target-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("resolveTarget", () => {
  test("a command after -- becomes a stdio target with --env and --cwd", async () => {
    const result = await resolveTarget({ env: ["A=1", "B=x=y"], cwd: "/tmp" }, ["node", "server.js", "--help"]);
    expect(result).toEqual({
      ok: true,
      value: { kind: "stdio", command: "node", args: ["server.js", "--help"], env: { A: "1", B: "x=y" }, cwd: "/tmp" },
    });
  });

  test("--url with repeated --header becomes an http target", async () => {
    const result = await resolveTarget({ url: "http://127.0.0.1:3000/mcp", header: ["Authorization: Bearer t:k", "X-A:b"] }, []);
    expect(result.ok && result.value).toEqual({
      kind: "http",
      url: "http://127.0.0.1:3000/mcp",
      headers: { Authorization: "Bearer t:k", "X-A": "b" },
      transport: "auto",
    });
  });

  test.each([
    [{}, [], "no server given"],
    [{ url: "http://x" }, ["node"], "only one server"],
    [{ url: "ftp://x" }, [], "unsupported URL scheme"],
    [{ url: "not a url" }, [], "bad URL"],
    [{ url: "http://x", header: ["NoColon"] }, [], "bad --header"],
    [{ env: ["NOEQUALS"] }, ["node"], "bad --env"],
    [{ url: "http://x", transport: "carrier-pigeon" }, [], "unknown --transport"],
    [{ server: "x", url: "http://x" }, [], "only one server"],
    [{ server: "example.com/mcp" }, [], "give a full http:// or https:// URL"],
    [{ server: "localhost:3000" }, [], "give a full http:// or https:// URL"],
    [{ server: "node 'unterminated" }, [], "unterminated"],
    [{ header: ["A: b"] }, ["node"], "--header and --transport apply to URL servers only"],
  ])("bad flags %j %j are refused: %s", async (flags, command, fragment) => {
    const result = await resolveTarget(flags, command as string[]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(fragment);
  });

  test("--server without --config: an http(s) URL, else a command line split as a shell would", async () => {
    expect(await resolveTarget({ server: "https://example.com/mcp", header: ["X-Key: k"] }, [])).toEqual({
      ok: true,
      value: { kind: "http", url: "https://example.com/mcp", headers: { "X-Key": "k" }, transport: "auto" },
    });
    expect(await resolveTarget({ server: `npx -y "@scope/server" --flag='a b'`, env: ["A=1"] }, [])).toEqual({
      ok: true,
      value: { kind: "stdio", command: "npx", args: ["-y", "@scope/server", "--flag=a b"], env: { A: "1" } },
    });
  });
});

describe("config files", () => {
  test("Claude Desktop mcpServers entry with ${VAR} and ${VAR:-default} expansion", async () => {
    const file = configFile("claude.json", {
      mcpServers: { ref: { command: "${RUNNER}", args: ["${DIR:-/srv}/server.js"], env: { TOKEN: "${SECRET}" } } },
    });
    const result = await resolveTarget({ config: file, server: "ref" }, [], { RUNNER: "bun", SECRET: "s3" });
    expect(result.ok && result.value).toEqual({
      kind: "stdio",
      command: "bun",
      args: ["/srv/server.js"],
      env: { TOKEN: "s3" },
      name: "ref",
    });
  });

  test("Claude Code .mcp.json http entry with headers and type", async () => {
    const file = configFile(".mcp.json", {
      mcpServers: { remote: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer ${T}" } } },
    });
    const result = await resolveTarget({ config: file, server: "remote" }, [], { T: "abc" });
    expect(result.ok && result.value).toEqual({
      kind: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer abc" },
      transport: "streamable-http",
      name: "remote",
      configFile: file,
    });
  });

  test("an entry's oauth block: a pre-registered client (its secret from the environment), scopes and a callback port", async () => {
    const file = configFile("oauth.json", {
      mcpServers: {
        linear: {
          url: "https://mcp.example.com/mcp",
          oauth: { clientId: "abc", clientSecret: "${SECRET}", scopes: ["read", "write"], callbackPort: 8765 },
        },
      },
    });
    const result = await resolveTarget({ config: file, server: "linear" }, [], { SECRET: "s3cr3t" });
    expect(result.ok && result.value.kind === "http" && result.value.oauth).toEqual({
      clientId: "abc",
      clientSecret: "s3cr3t",
      scopes: ["read", "write"],
      callbackPort: 8765,
    });
    const bad = configFile("bad-oauth.json", { mcpServers: { x: { url: "https://x.example/mcp", oauth: { callbackPort: "soon" } } } });
    expect(await resolveTarget({ config: bad }, [])).toMatchObject({
      ok: false,
      error: expect.stringContaining('"oauth.callbackPort" must be a port number'),
    });
  });

  test("VS Code servers in JSONC with comments, trailing commas and ${env:VAR}", async () => {
    const file = configFile(
      "mcp.json",
      `{
        // VS Code style
        "servers": {
          "ref": { "type": "stdio", "command": "node", "args": ["--flag=//not-a-comment", "\${env:HOME_DIR}",], /* trailing */ },
        },
      }`,
    );
    const result = await resolveTarget({ config: file, server: "ref" }, [], { HOME_DIR: "/home/u" });
    expect(result.ok && result.value).toMatchObject({ command: "node", args: ["--flag=//not-a-comment", "/home/u"] });
  });

  test("a config with one server needs no --server; stateful and timeout_ms are kept", async () => {
    const file = configFile("one.json", { mcpServers: { only: { command: "x", stateful: true, timeout_ms: 5000 } } });
    const result = await resolveTarget({ config: file }, []);
    expect(result.ok && result.value).toMatchObject({ name: "only", stateful: true, timeoutMs: 5000 });
  });

  test.each([
    ["missing.json", undefined, "cannot read config"],
    ["broken.json", "{ not json", "not valid JSON"],
    ["empty.json", { other: {} }, 'no "mcpServers" or "servers"'],
    ["two.json", { mcpServers: { a: { command: "x" }, b: { command: "y" } } }, "pick one with --server (a, b)"],
    ["nocmd.json", { mcpServers: { a: { args: [] } } }, 'neither "command" nor "url"'],
    ["badargs.json", { mcpServers: { a: { command: "x", args: "not-array" } } }, '"args" must be an array'],
    ["unset.json", { mcpServers: { a: { command: "${NOPE_NOT_SET}" } } }, "${NOPE_NOT_SET} is not set"],
  ])("%s is refused clearly", async (name, content, fragment) => {
    const file = content === undefined ? join(dir, name) : configFile(name, content);
    const result = await resolveTarget({ config: file }, [], {});
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(fragment);
  });

  test("an unknown --server names the ones that exist", async () => {
    const file = configFile("named.json", { mcpServers: { alpha: { command: "x" } } });
    const result = await resolveTarget({ config: file, server: "beta" }, []);
    expect(!result.ok && result.error).toContain('no server "beta"');
    expect(!result.ok && result.error).toContain("alpha");
  });
});

describe("expansion helpers", () => {
  test("an empty variable falls back to its default", () => {
    expect(expandVariables("${A:-dflt}", { A: "" })).toEqual({ ok: true, value: "dflt" });
  });
  test("comment markers inside strings survive", () => {
    expect(parseJsonc('{"a":"http://x/*y*/",} // c')).toEqual({ ok: true, value: { a: "http://x/*y*/" } });
  });
  test("${__proto__}, ${constructor} and ${toString} are variables like any other: unset, so their default applies", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(expandVariables(`\${${name}:-fallback}`, {})).toEqual({ ok: true, value: "fallback" });
      expect(expandVariables(`\${${name}}`, {}).ok).toBe(false);
    }
  });
});
