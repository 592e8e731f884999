// One run of the conformance suite against a target: an HTTP server directly, a stdio server
// through `mcp-proxy serve` (this same program, as the sibling tool), the suite writing its results
// into a folder of its own that verdicts.ts folds into checks.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT } from "../../lib/cli/exit-codes.ts";
import { oneLine } from "../../lib/io/text.ts";
import { toolCommand } from "../../lib/targets/client-config/write.ts";
import type { StdioTarget, Target } from "../../lib/targets/target.ts";
import { serverEnvironment } from "../../lib/transport/environment.ts";
import type { CheckResult } from "../checks/model.ts";
import { CommandError } from "../output.ts";
import { CONFORMANCE, runCollected } from "./suite.ts";
import { foldResults } from "./verdicts.ts";

/** The whole suite (some 30 scenarios, a few seconds each at most) on a loaded machine. */
const SUITE_TIMEOUT_MS = 10 * 60_000;
/** serve prints `listening <url>` once its port is bound: seconds. */
const SERVE_START_MS = 30_000;
/** How long serve gets to stop its servers after SIGTERM before it is killed. */
const SERVE_STOP_MS = 5_000;
const LISTENING = /^listening (http:\/\/\S+)$/m;

export interface ConformanceInput {
  target: Target;
  node: string;
  suite: string;
  signal?: AbortSignal;
}

export async function runConformance(input: ConformanceInput): Promise<CheckResult[]> {
  const { target } = input;
  const served = target.kind === "stdio" ? await startServe(target, input.signal) : undefined;
  const work = mkdtempSync(join(tmpdir(), "mcpkit-conformance-"));
  try {
    const url = served?.url ?? (target.kind === "http" ? target.url : "");
    const output = join(work, "results");
    const ran = await runCollected(input.node, [input.suite, "server", "--url", url, "--output-dir", output], {
      env: serverEnvironment({ NO_COLOR: "1" }),
      cwd: work,
      timeoutMs: SUITE_TIMEOUT_MS,
    });
    if (input.signal?.aborted) throw input.signal.reason;
    let checks: CheckResult[] = [];
    try {
      checks = foldResults(output, ran.stdout);
    } catch {
      // No results folder at all: the suite did not get as far as a scenario.
    }
    if (checks.length === 0) {
      const said = oneLine(`${ran.stderr} ${ran.stdout}`).slice(-300);
      throw new CommandError(EXIT.connection, `${CONFORMANCE} ran no scenario (${ran.problem ?? `exit ${ran.code}`}): ${said}`);
    }
    return checks;
  } finally {
    rmSync(work, { recursive: true, force: true });
    await served?.stop();
  }
}

/** How to run mcp-proxy from here: the sibling binary or link, the one binary by name, or the entry script beside ours. */
function proxyCommand(args: string[]): { command: string; args: string[] } {
  const script = fileURLToPath(new URL("../../mcp-proxy.ts", import.meta.url));
  if (basename(process.execPath).startsWith("deno")) return { command: process.execPath, args: ["run", "-A", script, ...args] };
  return toolCommand("mcp-proxy", args, process.execPath, script);
}

/** `mcp-proxy serve -- <the target's command>`, started from the target's definition, once it listens. */
async function startServe(target: StdioTarget, signal?: AbortSignal): Promise<{ url: string; stop(): Promise<void> }> {
  const { command, args } = proxyCommand(["serve", "--log-level", "warn", "--", target.command, ...target.args]);
  // serve passes its whole environment to the server: the same minimal set a target gets anyway.
  const child = spawn(command, args, { env: serverEnvironment(target.env), cwd: target.cwd, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), SERVE_STOP_MS);
    await exited;
    clearTimeout(timer);
  };
  const onAbort = () => void stop();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return { url: await listeningUrl(child, exited), stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

function listeningUrl(child: ChildProcess, exited: Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => {
      reject(new CommandError(EXIT.connection, `mcp-proxy serve did not listen within ${SERVE_START_MS / 1000} s`));
    }, SERVE_START_MS);
    child.once("error", (error) => reject(new CommandError(EXIT.connection, `cannot start mcp-proxy serve (${error.message})`)));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      // Keep only enough to find the line and to say why it stopped.
      text = `${text}${chunk}`.slice(-4096);
      const match = LISTENING.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(
        new CommandError(EXIT.connection, `mcp-proxy serve stopped before it listened: ${oneLine(text).slice(-300) || "it said nothing"}`),
      );
    });
  });
}
