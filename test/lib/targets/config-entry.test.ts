// One entry of a client's config file as a target: every client's field names read into the common
// shape, `${VAR}` expanded, an envFile merged under env, entries turned off left alone, and each
// malformed entry refused with a line that names the server and the file.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configEntryTarget, isTurnedOff, loadConfigTarget, loadConfigTargets } from "../../../lib/targets/config-entry.ts";
import { MAX_CONFIG_BYTES } from "../../../lib/wire/limits.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const FILE = "/configs/mcp.json";

function written(name: string, text: string): string {
  const file = join(tempDir("mcpkit-entry-"), name);
  writeFileSync(file, text);
  return file;
}

test("Gemini's httpUrl is Streamable HTTP, Windsurf's serverUrl a URL, and type or transport picks the HTTP transport", () => {
  expect(configEntryTarget(FILE, "g", { httpUrl: "https://g.example/mcp" }, {})).toEqual({
    ok: true,
    value: { kind: "http", url: "https://g.example/mcp", headers: {}, transport: "streamable-http", name: "g", configFile: FILE },
  });
  const transportOf = (entry: Record<string, unknown>) => {
    const target = configEntryTarget(FILE, "s", entry, {});
    return target.ok && target.value.kind === "http" ? target.value.transport : target;
  };
  expect(transportOf({ serverUrl: "https://w.example/sse" })).toBe("auto");
  expect(transportOf({ url: "https://x.example", type: "sse" })).toBe("sse");
  expect(transportOf({ url: "https://x.example", transport: "streamable-http" })).toBe("streamable-http");
  // Gemini's plain url is SSE there; beside httpUrl, the url written wins.
  expect(transportOf({ url: "https://x.example", httpUrl: "https://y.example" })).toBe("auto");
});

test("Codex's http_headers, env_http_headers and bearer_token_env_var become headers, their variables expanded", () => {
  const entry = {
    url: "https://c.example/mcp",
    headers: { "X-Plain": "1" },
    http_headers: { "X-Codex": "2" },
    env_http_headers: { "X-From-Env": "HEADER_VALUE" },
    bearer_token_env_var: "TOKEN",
  };
  const target = configEntryTarget(FILE, "c", entry, { HEADER_VALUE: "h", TOKEN: "t0k" });
  expect(target.ok && target.value.kind === "http" && target.value.headers).toEqual({
    "X-Plain": "1",
    "X-Codex": "2",
    "X-From-Env": "h",
    Authorization: "Bearer t0k",
  });
  expect(configEntryTarget(FILE, "c", entry, { HEADER_VALUE: "h" })).toEqual({
    ok: false,
    error: `server "c" in ${FILE}: \${TOKEN} is not set (export it, or write \${TOKEN:-default})`,
  });
});

test("Codex's env_vars pass on only the variables that are set, under the entry's own env; numbers and booleans become strings", () => {
  const entry = { command: "run", env_vars: ["SET", "UNSET", 7, "toString"], env: { SET: "own", N: 1, B: true } };
  expect(configEntryTarget(FILE, "c", entry, { SET: "passed" })).toEqual({
    ok: true,
    value: { kind: "stdio", command: "run", args: [], env: { SET: "own", N: "1", B: "true" }, name: "c" },
  });
  expect(configEntryTarget(FILE, "c", { command: "run", env_vars: ["SET"], cwd: "/srv" }, { SET: "passed" })).toEqual({
    ok: true,
    value: { kind: "stdio", command: "run", args: [], env: { SET: "passed" }, name: "c", cwd: "/srv" },
  });
});

test("an envFile beside the config is merged under env (the entry's own values win); an unreadable one is refused", () => {
  const dir = tempDir("mcpkit-entry-");
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", ".env"), "TOKEN=from-file\nSHARED=from-file\n");
  const file = join(dir, "mcp.json");
  const entry = { command: "run", envFile: "sub/.env", env: { SHARED: "${OWN}" } };
  expect(configEntryTarget(file, "e", entry, { OWN: "own" })).toMatchObject({
    ok: true,
    value: { env: { TOKEN: "from-file", SHARED: "own" } },
  });
  expect(configEntryTarget(file, "e", { command: "run", envFile: "${ENV_DIR}/.env" }, { ENV_DIR: join(dir, "sub") })).toMatchObject({
    ok: true,
    value: { env: { TOKEN: "from-file", SHARED: "from-file" } },
  });
  expect(configEntryTarget(file, "e", { command: "run", envFile: "missing.env" }, {})).toEqual({
    ok: false,
    error: `server "e" in ${file}: envFile cannot read ${join(dir, "missing.env")} (ENOENT)`,
  });
  expect(configEntryTarget(file, "e", { command: "run", envFile: "sub" }, {})).toEqual({
    ok: false,
    error: `server "e" in ${file}: envFile cannot read ${join(dir, "sub")} (not a regular file)`,
  });
});

test.each([
  ["not an object", ["run"], 'server "x" in /configs/mcp.json is not an object'],
  ["turned off by Codex", { command: "run", enabled: false }, "is turned off there (enabled = false)"],
  ["turned off by Windsurf", { command: "run", disabled: true }, 'is turned off there ("disabled": true)'],
  ["an empty command", { command: "" }, 'has neither "command" nor "url"'],
  ["args with a number", { command: "run", args: ["a", 1] }, '"args" must be an array of strings'],
  ["env as a list", { command: "run", env: ["A=1"] }, "env must be an object of strings"],
  ["an env value that is an object", { command: "run", env: { A: {} } }, 'env "A" must be a string'],
  ["headers as a string", { url: "https://x.example", headers: "A: b" }, "headers must be an object of strings"],
  ["a header that is null", { url: "https://x.example", headers: { A: null } }, 'headers "A" must be a string'],
  ["a file: URL", { url: "file:///etc/passwd" }, "unsupported URL scheme"],
  ["oauth as a string", { url: "https://x.example", oauth: "yes" }, '"oauth" must be an object'],
  ["an empty clientId", { url: "https://x.example", oauth: { clientId: "" } }, '"oauth.clientId" must be a string'],
  ["a clientSecret as a number", { url: "https://x.example", oauth: { clientSecret: 5 } }, 'write it as "${VAR}"'],
  ["scopes as a string", { url: "https://x.example", oauth: { scopes: "read write" } }, '"oauth.scopes" must be a list of strings'],
  ["port 0", { url: "https://x.example", oauth: { callbackPort: 0 } }, '"oauth.callbackPort" must be a port number'],
  ["port 65536", { url: "https://x.example", oauth: { callbackPort: 65_536 } }, '"oauth.callbackPort" must be a port number'],
  ["an unset variable deep in args", { command: "run", args: ["${A:-ok}", "${UNSET_HERE}"] }, "${UNSET_HERE} is not set"],
])("an entry with %s is refused, naming the server and the file", (_what, entry, fragment) => {
  const target = configEntryTarget(FILE, "x", entry, {});
  expect(target.ok).toBe(false);
  expect(!target.ok && target.error).toContain(fragment);
  expect(!target.ok && target.error).toStartWith(`server "x" in ${FILE}`);
});

test("isTurnedOff: only enabled = false or disabled = true", () => {
  expect([{ enabled: false }, { disabled: true }].every(isTurnedOff)).toBe(true);
  expect([{}, { enabled: true }, { disabled: false }, { enabled: "false" }, null, "x"].some(isTurnedOff)).toBe(false);
});

test("a Codex config.toml's [mcp_servers.<name>] tables are read; a TOML file without one says which table it lacks", () => {
  const file = written(
    "config.toml",
    '# codex\n[mcp_servers.docs]\ncommand = "run"\nargs = ["--port", "1"]\n[mcp_servers.docs.env]\nK = "v"\n',
  );
  expect(loadConfigTarget(file, undefined, {})).toEqual({
    ok: true,
    value: { kind: "stdio", command: "run", args: ["--port", "1"], env: { K: "v" }, name: "docs" },
  });
  const none = written("other.toml", "model = 'x'\n");
  expect(loadConfigTarget(none, undefined, {})).toEqual({ ok: false, error: `config ${none} has no [mcp_servers.<name>] table` });
  const broken = written("broken.toml", "[mcp_servers.x\n");
  expect(loadConfigTarget(broken, "x", {})).toMatchObject({
    ok: false,
    error: expect.stringContaining(`config ${broken} is not valid TOML`),
  });
});

test("servers are found under mcp_servers, mcpServers, servers or mcp.servers; a name that is not there names those that are", () => {
  for (const shape of [
    { mcpServers: { a: { command: "run" } } },
    { servers: { a: { command: "run" } } },
    { mcp: { servers: { a: { command: "run" } } } },
  ])
    expect(loadConfigTarget(written("c.json", JSON.stringify(shape)), "a", {})).toMatchObject({ ok: true, value: { name: "a" } });
  const empty = written("empty.json", '{"mcpServers": {}}');
  expect(loadConfigTarget(empty, "a", {})).toEqual({ ok: false, error: `no server "a" in ${empty} (it has: none)` });
  // A name from Object.prototype is no server of the file's.
  const one = written("one.json", '{"mcpServers": {"a": {"command": "run"}}}');
  expect(loadConfigTarget(one, "toString", {})).toEqual({ ok: false, error: `no server "toString" in ${one} (it has: a)` });
});

test("loadConfigTargets: every entry, those turned off skipped; none left, or one bad entry, is an error", () => {
  const file = written(
    "all.json",
    JSON.stringify({ mcpServers: { a: { command: "run" }, off: { command: "x", disabled: true }, b: { url: "https://b.example/mcp" } } }),
  );
  const all = loadConfigTargets(file, {});
  expect(all.ok && all.value.map((target) => target.name)).toEqual(["a", "b"]);
  const allOff = written("off.json", JSON.stringify({ mcpServers: { off: { command: "x", enabled: false } } }));
  expect(loadConfigTargets(allOff, {})).toEqual({ ok: false, error: `config ${allOff} lists no servers` });
  const bad = written("bad.json", JSON.stringify({ mcpServers: { a: { command: "run" }, b: { args: [] } } }));
  expect(loadConfigTargets(bad, {})).toEqual({ ok: false, error: `server "b" in ${bad} has neither "command" nor "url"` });
});

test("a config over the size limit is refused by its size; a directory is refused as unreadable", () => {
  const huge = written("huge.json", "");
  truncateSync(huge, MAX_CONFIG_BYTES + 1);
  expect(loadConfigTarget(huge, undefined, {})).toEqual({ ok: false, error: `config ${huge} is over the ${MAX_CONFIG_BYTES}-byte limit` });
  const folder = tempDir("mcpkit-entry-");
  expect(loadConfigTargets(folder, {})).toEqual({ ok: false, error: `cannot read config ${folder} (EISDIR)` });
});
