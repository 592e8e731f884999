// Each client's own shape read into the common one, and what a server is when two clients wrote it.
import { expect, test } from "bun:test";
import { commonEntry, runsOnItsOwn, serverIdentity } from "../../../../lib/targets/discovery/common-entry.ts";

test("opencode, Copilot CLI, Zed and Goose shapes become command/args/env or url/headers", () => {
  expect(commonEntry("opencode", { type: "local", command: ["run", "-x"], environment: { K: "{env:TOKEN}" }, enabled: true })).toEqual({
    command: "run",
    args: ["-x"],
    env: { K: "${TOKEN}" },
    enabled: true,
  });
  expect(commonEntry("opencode", { type: "remote", url: "https://x/mcp", headers: { A: "b" } })).toEqual({
    url: "https://x/mcp",
    headers: { A: "b" },
  });
  expect(commonEntry("copilot", { type: "local", tools: ["*"], command: "run", args: [] })).toEqual({ command: "run", args: [] });
  expect(commonEntry("copilot", { type: "sse", tools: ["*"], url: "https://x" })).toEqual({ type: "sse", url: "https://x" });
  expect(commonEntry("zed", { source: "custom", command: { path: "run", args: ["a"], env: { K: "v" } } })).toEqual({
    command: "run",
    args: ["a"],
    env: { K: "v" },
  });
  expect(commonEntry("goose", { name: "g", type: "stdio", cmd: "run", args: ["a"], envs: { K: "v" }, enabled: true })).toEqual({
    command: "run",
    args: ["a"],
    env: { K: "v" },
    enabled: true,
  });
  expect(commonEntry("goose", { type: "streamable_http", uri: "https://x/mcp" })).toEqual({ url: "https://x/mcp", type: "http" });
  expect(commonEntry("gemini", { command: "run", env: { A: "$TOKEN", B: "${OTHER}" } }).env).toEqual({ A: "${TOKEN}", B: "${OTHER}" });
});

test("only entries naming a process or a URL are servers of ours: Goose built-ins and Zed extension settings are the client's", () => {
  expect(runsOnItsOwn("goose", { type: "builtin", name: "developer" })).toBe(false);
  expect(runsOnItsOwn("goose", { type: "stdio", cmd: "run" })).toBe(true);
  expect(runsOnItsOwn("zed", { settings: { token: "x" } })).toBe(false);
  expect(runsOnItsOwn("zed", { command: "run" })).toBe(true);
  expect(runsOnItsOwn("cursor", {})).toBe(true);
});

test("one server written by two clients has one identity; a different command, env value or header does not", () => {
  const claude = serverIdentity("claude-code", { type: "stdio", command: "run", args: ["a"], env: {} });
  expect(serverIdentity("gemini", { command: "run", args: ["a"] })).toBe(claude);
  expect(serverIdentity("opencode", { type: "local", command: ["run", "a"] })).toBe(claude);
  expect(serverIdentity("codex", { command: "run", args: ["b"] })).not.toBe(claude);
  expect(serverIdentity("cursor", { command: "run", args: ["a"], env: { K: "v" } })).not.toBe(claude);
  const url = serverIdentity("claude-code", { type: "http", url: "https://x/mcp", headers: { A: "1", B: "2" } });
  expect(serverIdentity("cursor", { url: "https://x/mcp", headers: { B: "2", A: "1" } })).toBe(url);
  expect(serverIdentity("cursor", { url: "https://x/mcp", headers: { A: "other", B: "2" } })).not.toBe(url);
  expect(serverIdentity("claude-code", { type: "sse", url: "https://x/mcp", headers: { A: "1", B: "2" } })).not.toBe(url);
});
