// The official conformance suite, which `mcp-inspect test --conformance` runs as its own process:
// pinned, installed from the npm registry on first use into the user's cache (never bundled or
// copied), and run on a node of at least MIN_NODE_MAJOR that --node names or PATH has.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { oneLine } from "../../lib/io/text.ts";
import { failed, type Result } from "../../lib/wire/result.ts";

export const CONFORMANCE_PACKAGE = "@modelcontextprotocol/conformance";
export const CONFORMANCE_VERSION = "0.2.0-alpha.11";
export const CONFORMANCE = `${CONFORMANCE_PACKAGE}@${CONFORMANCE_VERSION}`;
/** The suite's engines field asks for this much node. */
export const MIN_NODE_MAJOR = 22;
/** npm with a cold cache on a slow line: minutes, not hours. */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
/** `node -p process.versions.node` answers at once, or it is not a node. */
const VERSION_TIMEOUT_MS = 10_000;
/** What of a failing child's output the one error line keeps. */
const ERROR_TAIL_CHARS = 300;

type Env = Record<string, string | undefined>;

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it did not run at all (ENOENT, EACCES), or that it ran past its time. */
  problem?: string;
}

/** Runs a command without a shell, its output collected; a command that outlives `timeoutMs` is killed. */
export function runCollected(command: string, args: string[], options: { env: Env; cwd?: string; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], shell: false });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk));
    let problem: string | undefined;
    const timer = setTimeout(() => {
      problem = `still running after ${options.timeoutMs / 1000} s`;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, problem: error.code ?? error.message });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...(problem ? { problem } : {}) });
    });
  });
}

/** The node to run the suite on: --node's, else the first `node` on PATH, at least MIN_NODE_MAJOR either way. */
export async function findNode(given: string | undefined, env: Env = process.env): Promise<Result<string>> {
  const candidates = given
    ? [given]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, "node"));
  const seen: string[] = [];
  for (const node of candidates) {
    if (!given && !existsSync(node)) continue;
    const ran = await runCollected(node, ["-p", "process.versions.node"], { env: { ...env }, timeoutMs: VERSION_TIMEOUT_MS });
    const version = ran.code === 0 ? ran.stdout.trim() : undefined;
    const major = Number(version?.split(".")[0]);
    if (major >= MIN_NODE_MAJOR) return { ok: true, value: node };
    seen.push(`${node} ${version ? `is ${version}` : `does not run (${ran.problem ?? `exit ${ran.code}`})`}`);
  }
  const why = seen.length > 0 ? seen.join("; ") : "no node on PATH";
  return failed(`--conformance needs node ${MIN_NODE_MAJOR} or later (${why}): give one with --node PATH`);
}

/** ${XDG_CACHE_HOME:-~/.cache}/mcpkit, where the suite is installed. */
export function cacheDir(env: Env = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "mcpkit");
}

/**
 * The suite's entry script, installed now if it is not there yet: into a temporary folder, then
 * renamed into place, so a run cut short never leaves a half-installed suite that looks whole.
 */
export async function installedSuite(env: Env = process.env): Promise<Result<string>> {
  const dir = join(cacheDir(env), `${CONFORMANCE_PACKAGE.replace("/", "+")}@${CONFORMANCE_VERSION}`);
  const entry = join(dir, "node_modules", ...CONFORMANCE_PACKAGE.split("/"), "dist", "index.js");
  if (existsSync(entry)) return { ok: true, value: entry };
  const draft = `${dir}.${process.pid}.partial`;
  try {
    rmSync(draft, { recursive: true, force: true });
    mkdirSync(draft, { recursive: true, mode: 0o700 });
  } catch (error) {
    return failed(`cannot install ${CONFORMANCE}: cannot write ${draft} (${(error as Error).message})`);
  }
  const npmArgs = ["install", "--prefix", draft, "--no-audit", "--no-fund", "--no-save", "--ignore-scripts", CONFORMANCE];
  const ran = await runCollected("npm", npmArgs, { env: { ...env, npm_config_loglevel: "error" }, timeoutMs: INSTALL_TIMEOUT_MS });
  if (ran.code !== 0 || !existsSync(join(draft, "node_modules", ...CONFORMANCE_PACKAGE.split("/"), "dist", "index.js"))) {
    rmSync(draft, { recursive: true, force: true });
    if (ran.problem === "ENOENT") return failed(`cannot install ${CONFORMANCE}: npm is not on PATH (it comes with node)`);
    const said = oneLine(lastLines(`${ran.stderr}\n${ran.stdout}`)).slice(-ERROR_TAIL_CHARS);
    const registry = env.npm_config_registry || "the npm registry";
    return failed(
      `cannot install ${CONFORMANCE} with npm (${ran.problem ?? `exit ${ran.code}`}; is ${registry} reachable?): ` +
        (said || "it said nothing"),
    );
  }
  try {
    renameSync(draft, dir);
  } catch {
    // Another run renamed its own copy first: that one serves.
    rmSync(draft, { recursive: true, force: true });
  }
  return existsSync(entry) ? { ok: true, value: entry } : failed(`cannot install ${CONFORMANCE}: ${dir} is incomplete (remove it)`);
}

/** npm's error lines, without its log-file footer. */
function lastLines(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, "").trim())
    .filter((line) => line && !/complete log of this run|^A complete log/i.test(line) && !/^\/.*debug-\d+\.log$/.test(line));
  return lines.slice(0, 2).join(" ");
}
