// The real peers of `npm run test:seams`, pinned, installed from the npm registry into
// ${MCPKIT_TEST_CACHE:-~/.cache/mcpkit-test}/<package>@<version> (DESIGN.md, "Testing"): once,
// atomically (a temporary folder renamed into place, so a broken install is never taken for a
// good one), never as dependencies of the product. Node 24 comes as the registry's node-<os>-<arch>.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const NODE_MAJOR = 24;

export function testCache(): string {
  return process.env.MCPKIT_TEST_CACHE || join(homedir(), ".cache", "mcpkit-test");
}

/** The folder `spec` (name@version) is installed in, installing it first if it is not there. */
export async function installed(spec: string): Promise<string> {
  const dir = join(testCache(), spec.replaceAll("/", "+"));
  if (existsSync(dir)) return dir;
  mkdirSync(testCache(), { recursive: true });
  const draft = `${dir}.${process.pid}.partial`;
  rmSync(draft, { recursive: true, force: true });
  const child = Bun.spawn(["npm", "install", "--prefix", draft, "--no-audit", "--no-fund", "--loglevel=error", spec], {
    env: { ...process.env, npm_config_loglevel: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) {
    rmSync(draft, { recursive: true, force: true });
    throw new Error(`npm install ${spec} failed: ${`${out}${err}`.trim().slice(-600)}`);
  }
  try {
    renameSync(draft, dir);
  } catch (error) {
    // Another run installed it meanwhile: theirs is as good.
    rmSync(draft, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}

/** The bin folder of the registry's Node 24 for this machine. */
export async function node24Bin(): Promise<string> {
  const pkg = `node-${process.platform}-${process.arch}`;
  return join(await installed(`${pkg}@${NODE_MAJOR}`), "node_modules", pkg, "bin");
}

/** The path of a package's command, installed. */
export async function binOf(spec: string, bin: string): Promise<string> {
  return join(await installed(spec), "node_modules", ".bin", bin);
}
