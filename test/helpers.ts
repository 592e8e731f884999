// Shared by the e2e tests: run our entry scripts as real processes, and start fixture servers.
import { spawn } from "bun";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const BUN = process.execPath;
export const REFERENCE = join(ROOT, "test/fixtures/reference-server.ts");
export const FAULTY = join(ROOT, "test/fixtures/faulty-server.ts");
export const EVERYTHING = join(ROOT, "node_modules/.bin/mcp-server-everything");
/** The stdio reference server as a command line after `--`. */
export const REFERENCE_CMD = [BUN, REFERENCE];

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is one JSON document. */
  json: any;
}

/** Runs an entry script (e.g. "mcp-inspect.ts") with args; never hangs past timeoutMs. */
export async function runTool(
  script: string,
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  const child = spawn([BUN, join(ROOT, script), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

export const inspect = (args: string[], options?: Parameters<typeof runTool>[2]) => runTool("mcp-inspect.ts", args, options);

export interface HttpFixture {
  url: string;
  stop(): Promise<void>;
}

/** Starts a server that prints `listening <url>` on stderr once ready, and waits for that line. */
export async function startHttpServer(command: string[], options: { env?: Record<string, string>; pattern?: RegExp } = {}): Promise<HttpFixture> {
  const child = spawn(command, { env: { ...process.env, ...options.env }, stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const pattern = options.pattern ?? /listening (http:\/\/\S+)/;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
    const match = seen.match(pattern);
    if (match) {
      // Keep draining stderr so the server never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return {
        url: match[1]!,
        async stop() {
          child.kill("SIGTERM");
          await child.exited;
        },
      };
    }
  }
  child.kill("SIGKILL");
  throw new Error(`server did not start: ${command.join(" ")}\n${seen}`);
}

export const startReferenceHttp = (extra: string[] = []) => startHttpServer([BUN, REFERENCE, "--http", "0", ...extra]);

/** A free loopback port that nothing listens on (for "connection refused"). */
export function closedPort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}
