// Real peers from the npm registry, pinned, for the real-peer tier (`npm run test:seams`): each is
// installed once into ${MCPKIT_TEST_CACHE:-~/.cache/mcpkit-test}/<package>@<version>, atomically
// (into a temporary folder beside it, then renamed into place: a run that stops halfway, or two
// runs at once, never leave a half-installed peer), and never as a dependency of the product.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The cache folder of the real-peer tier. */
export function peerCache(env: Record<string, string | undefined> = process.env): string {
  return env.MCPKIT_TEST_CACHE || join(env.HOME ?? homedir(), ".cache", "mcpkit-test");
}

/** Where `name@version` lives once installed (a scope's slash becomes "+": one folder per peer). */
export function peerDir(name: string, version: string): string {
  return join(peerCache(), `${name.replace("/", "+")}@${version}`);
}

/** The folder holding node_modules/<name>, installing it first when it is not there yet. */
export function installPeer(name: string, version: string): string {
  const dir = peerDir(name, version);
  if (existsSync(join(dir, "node_modules", name, "package.json"))) return dir;
  mkdirSync(peerCache(), { recursive: true });
  const draft = mkdtempSync(join(peerCache(), `.${name.replace("/", "+")}@${version}.`));
  try {
    const npm = Bun.spawnSync(
      ["npm", "install", "--prefix", draft, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", `${name}@${version}`],
      { stdout: "pipe", stderr: "pipe" },
    );
    if (npm.exitCode !== 0) throw new Error(`npm install ${name}@${version} failed: ${npm.stderr.toString().slice(-2000)}`);
    try {
      renameSync(draft, dir);
    } catch (error) {
      // Another run installed it meanwhile: theirs is as good as ours.
      if (!existsSync(join(dir, "node_modules", name, "package.json"))) throw error;
    }
  } finally {
    rmSync(draft, { recursive: true, force: true });
  }
  return dir;
}
