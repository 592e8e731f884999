// What discovery decides from the clients' own records: a project Gemini CLI trusts, a .mcp.json
// name Claude Code rejects, and mcpkit's own approval of one exact entry.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { approve } from "../../../../lib/targets/discovery/approval.ts";
import { discoverServers } from "../../../../lib/targets/discovery/find.ts";
import { homeAndRepository, removeTempDirs } from "../../../support/helpers.ts";

afterAll(removeTempDirs);

function write(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

test("a Gemini project entry is approved where Gemini CLI trusts the folder, and not under a DO_NOT_TRUST rule", async () => {
  const { home, project, env } = homeAndRepository("mcpkit-find-");
  write(join(project, ".gemini", "settings.json"), { mcpServers: { g: { command: "run" } } });
  const approvedOf = async () => (await discoverServers({ env, cwd: project })).servers.find((server) => server.name === "g")!;
  expect((await approvedOf()).approved).toBe(false);
  write(join(home, ".gemini", "trustedFolders.json"), { [dirname(project)]: "TRUST_FOLDER" });
  expect(await approvedOf()).toMatchObject({ approved: true, approvedBy: "gemini" });
  write(join(home, ".gemini", "trustedFolders.json"), { [dirname(project)]: "TRUST_FOLDER", [project]: "DO_NOT_TRUST" });
  expect((await approvedOf()).approved).toBe(false);
});

test("a Copilot CLI workspace entry is approved inside a folder its config.json trusts (checked with copilot mcp list)", async () => {
  const { home, project, env } = homeAndRepository("mcpkit-find-");
  write(join(project, ".github", "mcp.json"), { mcpServers: { c: { type: "local", command: "run" } } });
  const approvedOf = async () => (await discoverServers({ env, cwd: project })).servers.find((server) => server.name === "c")!;
  expect((await approvedOf()).approved).toBe(false);
  write(join(home, ".copilot", "config.json"), { trusted_folders: [dirname(project)] });
  expect(await approvedOf()).toMatchObject({ approved: true, approvedBy: "copilot" });
});

test("Claude Code's disabledMcpjsonServers turns a .mcp.json entry off; mcpkit's approval holds for that exact entry only", async () => {
  const { home, project, env } = homeAndRepository("mcpkit-find-");
  write(join(project, ".mcp.json"), { mcpServers: { off: { command: "run" }, mine: { command: "run", args: ["1"] } } });
  write(join(home, ".claude", "settings.json"), { disabledMcpjsonServers: ["off"] });
  const found = async () => (await discoverServers({ env, cwd: project })).servers;
  expect((await found()).find((server) => server.name === "off")!.turnedOff).toBe(true);
  const mine = (await found()).find((server) => server.name === "mine")!;
  expect((await approve(mine, env)).ok).toBe(true);
  expect((await found()).find((server) => server.name === "mine")).toMatchObject({ approved: true, approvedBy: "mcpkit" });
  write(join(project, ".mcp.json"), { mcpServers: { mine: { command: "run", args: ["2"] } } });
  expect((await found()).find((server) => server.name === "mine")!.approved).toBe(false);
});
