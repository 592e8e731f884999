// Discovery's work grows with the entries, not with their square: a ~/.claude.json of 200,000
// servers is read, listed and resolved (bench/config-scale.ts measures it beside 20,000).
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverServers, pickServer, serverStates } from "../../../../lib/targets/discovery/index.ts";
import { homeAndRepository, removeTempDirs } from "../../../support/helpers.ts";

afterAll(removeTempDirs);

const ENTRIES = 200_000;

test("200,000 entries, half of them one name in two clients, are found, given their states and resolved", async () => {
  const { home, project, env } = homeAndRepository("mcpkit-scale-");
  const entries = (client: string) =>
    Object.fromEntries(Array.from({ length: ENTRIES / 2 }, (_, i) => [`server-${i}`, { command: "run", args: [client, String(i)] }]));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: entries("claude") }));
  mkdirSync(join(home, ".gemini"));
  writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ mcpServers: entries("gemini") }));
  const found = await discoverServers({ env, cwd: project });
  expect(found.servers.length).toBe(ENTRIES);
  const states = serverStates(found.servers);
  expect(states.size).toBe(ENTRIES);
  expect(states.get(found.servers[0]!)?.ambiguousWith).toEqual([join(home, ".gemini", "settings.json")]);
  expect(pickServer(found.servers, "server-7")?.ok).toBe(false);
});
