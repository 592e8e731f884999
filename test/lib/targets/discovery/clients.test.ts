// Where each client keeps its files, per OS, and which folders count as the project.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configSources, findProject, projectRoot, userSources } from "../../../../lib/targets/discovery/clients.ts";
import { removeTempDirs, tempDir } from "../../../support/helpers.ts";

afterAll(removeTempDirs);

const fileOf = (platform: NodeJS.Platform, env: Record<string, string>, client: string, home = "/h") =>
  userSources({ home, project: "/p", platform, env })
    .filter((source) => source.client === client)
    .map((source) => source.file);

test("the desktop apps' folders per OS, and the variables that move the CLIs' homes", () => {
  expect(fileOf("darwin", {}, "cline")).toEqual([
    "/h/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
  ]);
  expect(fileOf("win32", { APPDATA: "/h/AppData/Roaming" }, "goose")).toEqual(["/h/AppData/Roaming/Block/goose/config/config.yaml"]);
  expect(fileOf("win32", { APPDATA: "/a" }, "zed")).toEqual(["/a/Zed/settings.json"]);
  expect(fileOf("darwin", {}, "zed")).toEqual(["/h/.config/zed/settings.json"]);
  expect(fileOf("linux", { XDG_CONFIG_HOME: "/x" }, "opencode")).toEqual(["/x/opencode/opencode.json", "/x/opencode/opencode.jsonc"]);
  expect(fileOf("linux", { QWEN_HOME: "/q" }, "qwen")).toEqual(["/q/settings.json"]);
  expect(fileOf("linux", { COPILOT_HOME: "/c" }, "copilot")).toEqual(["/c/mcp-config.json"]);
  expect(fileOf("win32", {}, "lm-studio")).toEqual(["/h/.lmstudio/mcp.json"]);
  expect(fileOf("linux", {}, "amazon-q")).toEqual(["/h/.aws/amazonq/mcp.json"]);
});

test("Gemini extensions: each installed extension's gemini-extension.json, in name order", () => {
  const home = tempDir();
  for (const name of ["b-ext", "a-ext"]) mkdirSync(join(home, ".gemini", "extensions", name), { recursive: true });
  writeFileSync(join(home, ".gemini", "extensions", "not-a-folder"), "");
  expect(fileOf("linux", {}, "gemini", home)).toEqual([
    join(home, ".gemini", "settings.json"),
    join(home, ".gemini", "extensions", "a-ext", "gemini-extension.json"),
    join(home, ".gemini", "extensions", "b-ext", "gemini-extension.json"),
  ]);
});

test("the project is the git root from below it; Claude reads .mcp.json up to /, Codex up to the root, nearest first", () => {
  const dir = tempDir();
  const root = join(dir, "repo");
  const sub = join(root, "a", "b");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(sub, { recursive: true });
  expect(projectRoot(sub, join(dir, "home"))).toBe(root);
  expect(projectRoot(dir, join(dir, "home"))).toBe(dir);
  const sources = configSources({ home: join(dir, "home"), project: root, cwd: sub, platform: "linux", env: {} });
  const claude = sources.filter((source) => source.client === "claude-code" && source.scope === "project").map((source) => source.file);
  expect(claude.slice(0, 4)).toEqual([
    join(sub, ".mcp.json"),
    join(root, "a", ".mcp.json"),
    join(root, ".mcp.json"),
    join(dir, ".mcp.json"),
  ]);
  expect(claude.at(-1)).toBe("/.mcp.json");
  const codex = sources.filter((source) => source.client === "codex" && source.scope === "project").map((source) => source.file);
  expect(codex).toEqual([
    join(sub, ".codex", "config.toml"),
    join(root, "a", ".codex", "config.toml"),
    join(root, ".codex", "config.toml"),
  ]);
  const local = sources.find((source) => source.scope === "local")!;
  expect(local.key).toEqual(["projects", root, "mcpServers"]);
  // config --write puts a project file beside the nearest one there is, else at the root.
  expect(findProject(sub, join(dir, "home"))).toBe(root);
  writeFileSync(join(root, "a", ".mcp.json"), "{}");
  expect(findProject(sub, join(dir, "home"))).toBe(join(root, "a"));
});
