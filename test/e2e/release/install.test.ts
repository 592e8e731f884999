// The release as a user meets it: the archive build.ts packs, served over loopback HTTP, installed
// by install.sh, and the installed binary used against our fixture.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarGz } from "../../../build/archive.ts";
import pkg from "../../../package.json" with { type: "json" };
import { packRelease, serveFiles } from "../../support/binary.ts";
import { NO_VENDOR_KEYS, REFERENCE_CMD, ROOT, TEST_GUARD_MS } from "../../support/helpers.ts";

const work = mkdtempSync(join(tmpdir(), "mcpkit-dist-"));
const release = join(work, "release");
const tampered = join(work, "tampered");
/**
 * A release whose mcpkit is a script that prints the version (all install.sh runs of it): for the tests of how
 * install.sh treats the files in the prefix, which would otherwise download, check and unpack 120 MB each.
 */
const standIn = join(work, "stand-in");
let server: ReturnType<typeof Bun.serve>;

/** Async on purpose: the loopback server lives in this process, and a blocking spawn would starve it. */
async function run(command: string[], options: { env?: Record<string, string>; cwd?: string; unset?: string[] } = {}) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...options.env };
  for (const name of options.unset ?? []) delete env[name];
  const child = Bun.spawn(command, { cwd: options.cwd ?? ROOT, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  // The archive build.ts makes for this machine, from the binary the suites share.
  await packRelease(release);
  // The same release with one byte of the archive changed.
  mkdirSync(tampered);
  const archive = readFileSync(join(release, "mcpkit-linux-x64.tar.gz"));
  archive[Math.floor(archive.length / 2)]! ^= 0xff;
  writeFileSync(join(tampered, "mcpkit-linux-x64.tar.gz"), archive);
  writeFileSync(join(tampered, "SHA256SUMS"), readFileSync(join(release, "SHA256SUMS")));
  writeRelease(standIn, `#!/bin/sh\necho ${pkg.version}\n`);
  server = serveFiles(work);
}, TEST_GUARD_MS);

/** A release in `dir` whose archive holds `script` as mcpkit. */
function writeRelease(dir: string, script: string): void {
  mkdirSync(dir, { recursive: true });
  const archive = tarGz([{ name: "mcpkit", data: new TextEncoder().encode(script), executable: true }], 0);
  writeFileSync(join(dir, "mcpkit-linux-x64.tar.gz"), archive);
  writeFileSync(join(dir, "SHA256SUMS"), `${createHash("sha256").update(archive).digest("hex")}  mcpkit-linux-x64.tar.gz\n`);
}

afterAll(() => {
  server?.stop(true);
  rmSync(work, { recursive: true, force: true });
});

const install = (prefix: string, from: string, extra: string[] = []) =>
  run(["sh", join(ROOT, "install.sh"), "--prefix", prefix, ...extra], {
    env: { MCPKIT_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/${from}`, HOME: work },
  });

describe("install.sh", () => {
  test(
    "installs the verified binary and its tool links, and the installed mcp-inspect works",
    async () => {
      const prefix = join(work, "good");
      const result = await install(prefix, "release");
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("checksum verified");
      for (const tool of ["mcpkit", "mcp-inspect", "mcp-proxy", "mcp-daemon", "mcp-host"])
        expect(result.stdout).toContain(join(prefix, "bin", tool));
      expect(result.stdout).toContain(`"command": "${join(prefix, "bin", "mcp-proxy")}"`);
      expect(lstatSync(join(prefix, "bin", "mcp-proxy")).isSymbolicLink()).toBe(true);

      const bin = join(prefix, "bin");
      expect((await run([join(bin, "mcp-inspect"), "--version"])).stdout.trim()).toBe(pkg.version);
      const listed = await run([join(bin, "mcp-inspect"), "list-tools", "--", ...REFERENCE_CMD]);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).data.tools.map((t: { name: string }) => t.name)).toContain("echo");
      expect((await run([join(bin, "mcp-proxy"), "--help"])).stdout).toContain("hot-reloading");
      expect((await run([join(bin, "mcpkit"), "mcp-daemon", "--help"])).stdout).toContain("stateful");
      expect((await run([join(bin, "mcpkit"), "nope"])).stderr).toContain('unknown tool "nope"');
      // The installed mcp-host's tour: its reference server is this same binary, run again.
      const tour = await run([join(bin, "mcp-host"), "-p", "call add a=2 b=3"], { env: NO_VENDOR_KEYS });
      expect(tour.stdout).toContain("mcp__reference__add returned: 5");
      expect(tour.code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "one changed byte in the archive stops the install with a checksum message, and installs nothing",
    async () => {
      const prefix = join(work, "bad");
      const result = await install(prefix, "tampered");
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("checksum mismatch for mcpkit-linux-x64.tar.gz");
      expect(result.stderr).toContain("nothing was installed");
      expect(existsSync(join(prefix, "bin", "mcpkit"))).toBe(false);
    },
    TEST_GUARD_MS,
  );

  test(
    "an archive whose binary does not run here leaves the existing install as it was",
    async () => {
      const prefix = join(work, "keep");
      expect((await install(prefix, "stand-in")).code).toBe(0);
      writeRelease(join(work, "broken"), "#!/bin/sh\nexit 132\n");
      const result = await install(prefix, "broken");
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("does not run on this machine");
      expect((await run([join(prefix, "bin", "mcp-inspect"), "--version"])).stdout.trim()).toBe(pkg.version);
    },
    TEST_GUARD_MS,
  );

  test(
    "a tool name in the prefix that is a directory, or a link to one, stops the install before anything is written",
    async () => {
      for (const kind of ["directory", "link"] as const) {
        const prefix = join(work, `occupied-${kind}`);
        const bin = join(prefix, "bin");
        mkdirSync(join(work, `elsewhere-${kind}`), { recursive: true });
        mkdirSync(bin, { recursive: true });
        if (kind === "directory") mkdirSync(join(bin, "mcp-proxy"));
        else symlinkSync(join(work, `elsewhere-${kind}`), join(bin, "mcp-proxy"));
        const result = await install(prefix, "stand-in");
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(`${join(bin, "mcp-proxy")} is a directory (or a link to one)`);
        expect(existsSync(join(bin, "mcpkit"))).toBe(false);
        expect(readdirSync(join(work, `elsewhere-${kind}`))).toEqual([]);
      }
    },
    TEST_GUARD_MS,
  );

  test(
    "links planted at the names install.sh writes (.mcpkit.new, mcpkit) are replaced or left alone, never written through",
    async () => {
      const prefix = join(work, "planted");
      const bin = join(prefix, "bin");
      mkdirSync(bin, { recursive: true });
      const precious = join(work, "precious-file");
      writeFileSync(precious, "keep me\n");
      symlinkSync(precious, join(bin, ".mcpkit.new"));
      symlinkSync(precious, join(bin, "mcpkit"));
      const result = await install(prefix, "stand-in");
      expect(result.code).toBe(0);
      expect(readFileSync(precious, "utf8")).toBe("keep me\n");
      expect(lstatSync(join(bin, "mcpkit")).isFile()).toBe(true);
      expect(readdirSync(bin).filter((name) => name.startsWith(".mcpkit.") && name !== ".mcpkit.new")).toEqual([]);
    },
    TEST_GUARD_MS,
  );

  test(
    "the printed mcpServers snippet is valid JSON even when the prefix holds quotes and backslashes",
    async () => {
      const prefix = join(work, 'odd "name" \\ here');
      const result = await install(prefix, "stand-in");
      expect(result.code).toBe(0);
      const snippet = JSON.parse(result.stdout.slice(result.stdout.indexOf("\n{") + 1));
      expect(snippet.mcpServers["my-server-dev"].command).toBe(join(prefix, "bin", "mcp-proxy"));
    },
    TEST_GUARD_MS,
  );

  test(
    "plain http to another host is refused, and bad options are named",
    async () => {
      const remote = await run(["sh", join(ROOT, "install.sh"), "--prefix", join(work, "x")], {
        env: { MCPKIT_DOWNLOAD_URL: "http://example.com/mcpkit", HOME: work },
      });
      expect(remote.code).not.toBe(0);
      expect(remote.stderr).toContain("only https, or http on this machine");
      const sneaky = await run(["sh", join(ROOT, "install.sh"), "--prefix", join(work, "x")], {
        env: { MCPKIT_DOWNLOAD_URL: "http://localhost:1@example.com/mcpkit", HOME: work },
      });
      expect(sneaky.stderr).toContain("refusing a download URL with credentials");
      const bad = await run(["sh", join(ROOT, "install.sh"), "--bogus"], { env: { HOME: work } });
      expect(bad.stderr).toContain("unknown option --bogus");
    },
    TEST_GUARD_MS,
  );

  test(
    "a .env and a bunfig.toml with a preload in the working directory do not touch the installed binary",
    async () => {
      const prefix = join(work, "good");
      if (!existsSync(join(prefix, "bin", "mcpkit"))) expect((await install(prefix, "release")).code).toBe(0);
      const cwd = join(work, "hostile");
      mkdirSync(cwd, { recursive: true });
      const marker = join(cwd, "preload-ran");
      writeFileSync(join(cwd, "evil.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
      writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./evil.ts"]\n');
      writeFileSync(join(cwd, ".env"), `MCPKIT_DAEMON_DIR=${join(cwd, "from-dotenv")}\n`);
      // With no MCPKIT_DAEMON_DIR of its own, the binary would take the .env's if it read it.
      const status = await run([join(prefix, "bin", "mcp-daemon"), "status", "--json"], {
        cwd,
        env: { HOME: work },
        unset: ["MCPKIT_DAEMON_DIR", "XDG_RUNTIME_DIR"],
      });
      expect(JSON.parse(status.stdout).socket).toBe(join(work, ".mcpkit", "run", "daemon.sock"));
      expect((await run([join(prefix, "bin", "mcp-inspect"), "--version"], { cwd })).code).toBe(0);
      expect(existsSync(marker)).toBe(false);
    },
    TEST_GUARD_MS,
  );
});
