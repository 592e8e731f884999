import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientEntry, mergeIntoConfig, toolCommand } from "../lib/client-config.ts";
import { parseJsonc } from "../lib/jsonc.ts";
import { BUN, ROOT, runTool } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the command names the tool's own binary, the multi-tool binary, or bun with the script", () => {
  expect(toolCommand("mcp-proxy", ["--", "x"], "/opt/bin/mcp-proxy")).toEqual({ command: "/opt/bin/mcp-proxy", args: ["--", "x"] });
  expect(toolCommand("mcp-proxy", ["--", "x"], "/nonexistent/mcpkit")).toEqual({ command: "/nonexistent/mcpkit", args: ["mcp-proxy", "--", "x"] });
  expect(toolCommand("mcp-proxy", ["--", "x"], "/usr/bin/bun", "/src/mcp-proxy.ts")).toEqual({ command: "/usr/bin/bun", args: ["/src/mcp-proxy.ts", "--", "x"] });
  expect(clientEntry("vscode", { command: "c", args: [] })).toEqual({ type: "stdio", command: "c", args: [] });
});

test("--write keeps every other entry, replaces its own, and backs the file up first", () => {
  const file = join(dir, "claude.json");
  writeFileSync(file, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "keep-me" }, dev: { command: "old" } } }));
  const merged = mergeIntoConfig(file, "mcpServers", "dev", { command: "/abs/mcp-proxy", args: ["--", "node", "s.js"] }, new Date(0));
  expect(merged.ok).toBe(true);
  const config = JSON.parse(readFileSync(file, "utf8"));
  expect(config).toEqual({ theme: "dark", mcpServers: { other: { command: "keep-me" }, dev: { command: "/abs/mcp-proxy", args: ["--", "node", "s.js"] } } });
  const backup = readdirSync(dir).find((name) => name.startsWith("claude.json.bak-"))!;
  expect(JSON.parse(readFileSync(join(dir, backup), "utf8")).mcpServers.dev.command).toBe("old");
});

test("a config file that is not valid JSON is refused and left as it was", () => {
  const file = join(dir, "broken.json");
  writeFileSync(file, "{ not json");
  const merged = mergeIntoConfig(file, "mcpServers", "dev", { command: "x" });
  expect(merged.ok).toBe(false);
  expect(readFileSync(file, "utf8")).toBe("{ not json");
});

test("mcp-proxy config prints the entry with absolute paths, and --write creates a VS Code file", async () => {
  const printed = await runTool("mcp-proxy.ts", ["config", "--client", "claude-desktop", "--name", "dev", "--watch", "src", "--", "node", "/srv/s.js"]);
  expect(printed.code).toBe(0);
  expect(JSON.parse(printed.stdout)).toEqual({ mcpServers: { dev: { command: BUN, args: [join(ROOT, "mcp-proxy.ts"), "--watch", "src", "--", "node", "/srv/s.js"] } } });
  const file = join(dir, "vscode", "mcp.json");
  const written = await runTool("mcp-inspect.ts", ["config", "--client", "vscode", "--file", file, "--write", "--", "node", "/srv/s.js"]);
  expect(written.stdout).toContain(`wrote "s" to ${file}`);
  expect(JSON.parse(readFileSync(file, "utf8")).servers.s).toEqual({ type: "stdio", command: BUN, args: [join(ROOT, "mcp-inspect.ts"), "mcp", "--", "node", "/srv/s.js"] });
  const bad = await runTool("mcp-proxy.ts", ["config", "--client", "emacs", "--", "x"]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("--client must be one of claude-desktop, claude-code, cursor, vscode");
});

test("--write into a JSONC file keeps its comments, trailing commas and number literals; only the entry changes", () => {
  const file = join(dir, "vscode-settings.json");
  const original = `// my settings
{
  "editor.fontSize": 13.50, // exactly as typed
  "limits": [1e3, 0x0, 10,],
  /* servers below */
  "servers": {
    "keep": { "command": "keep-me", }, // trailing comma above
  },
}
`;
  writeFileSync(file, original.replace("0x0", "0"));
  const merged = mergeIntoConfig(file, "servers", "dev", { command: "/abs/mcp-inspect", args: ["mcp"] });
  expect(merged.ok).toBe(true);
  const text = readFileSync(file, "utf8");
  for (const kept of ["// my settings", "13.50, // exactly as typed", "[1e3, 0, 10,]", "/* servers below */", "// trailing comma above", '"keep-me",']) expect(text).toContain(kept);
  expect(parseJsonc(text)).toEqual({
    ok: true,
    value: { "editor.fontSize": 13.5, limits: [1000, 0, 10], servers: { keep: { command: "keep-me" }, dev: { command: "/abs/mcp-inspect", args: ["mcp"] } } },
  });
});

test.skipIf(process.getuid?.() !== 0)("--write to a read-only file system: a one-line error, the file unchanged, and no backup left behind", () => {
  const ro = mkdtempSync("/tmp/mcpkit-ro-");
  try {
    const script = [
      `mount -t tmpfs tmpfs ${ro}`,
      `printf '{"mcpServers":{}}' > ${ro}/claude.json`,
      `mount -o remount,ro ${ro}`,
      `${BUN} ${join(ROOT, "mcp-inspect.ts")} config --client claude-desktop --file ${ro}/claude.json --write -- node /srv/s.js; echo "exit=$?"`,
      `ls -A ${ro}`,
      `cat ${ro}/claude.json`,
    ].join(" && ");
    const run = Bun.spawnSync(["unshare", "-m", "sh", "-c", script], { env: { ...process.env, NO_COLOR: "1" } });
    const out = `${run.stdout}${run.stderr}`;
    expect(out).toContain("cannot write");
    expect(out).toContain("read-only file system");
    expect(out).toContain("exit=1");
    expect(out).not.toContain(".bak-");
    expect(out).toContain('{"mcpServers":{}}');
  } finally {
    rmSync(ro, { recursive: true, force: true });
  }
});
