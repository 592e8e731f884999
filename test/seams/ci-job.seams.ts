// README's "Test your server in CI" job, its steps run as they are written: install.sh fetches the
// release (the archive build.ts packs, served over loopback through MCPKIT_DOWNLOAD_URL, instead of
// GitHub), the installed mcp-inspect runs `test --junit` and `diff` against a committed contract.
// Only what is GitHub's own is stood in for: $GITHUB_PATH, $GITHUB_STEP_SUMMARY, the server's build.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { compiledTools, packRelease, serveFiles } from "../support/binary.ts";
import { BUN, ROOT, removeTempDirs, TEST_GUARD_MS, tempDir } from "../support/helpers.ts";

const RULE_BREAKER = join(ROOT, "test/fixtures/rule-breaker.ts");
const work = tempDir("mcpkit-ci-job-");
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  await packRelease(join(work, "release"));
  server = serveFiles(work);
}, TEST_GUARD_MS);
afterAll(() => {
  server?.stop(true);
  removeTempDirs();
});

/** The `run:` steps of README's job, in order. */
function jobSteps(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### Test your server in CI"));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return [...yaml.matchAll(/^\s*- run: (.*?)(\s+#.*)?$/gm)].map((match) => match[1]!);
}

/** Runs README's job in a fresh HOME and checkout, `command` standing in for `node build/index.js`. */
async function runJob(command: string, checkout: string): Promise<{ step: string; code: number; output: string }[]> {
  const home = tempDir("mcpkit-ci-home-");
  const githubPath = join(home, "github-path");
  const summary = join(checkout, "step-summary.md");
  const ran: { step: string; code: number; output: string }[] = [];
  let path = process.env.PATH ?? "";
  for (const written of jobSteps()) {
    const step = written
      .replace(/^curl -fsSL \S+\/install\.sh \| sh$/, `sh ${join(ROOT, "install.sh")}`)
      .replace(/^npm ci && npm run build$/, "true")
      .replaceAll("node build/index.js", command);
    const child = Bun.spawn(["sh", "-c", step], {
      cwd: checkout,
      env: {
        ...process.env,
        HOME: home,
        PATH: path,
        NO_COLOR: "1",
        MCPKIT_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/release`,
        GITHUB_PATH: githubPath,
        GITHUB_STEP_SUMMARY: summary,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    ran.push({ step: written, code, output: `${out}${err}` });
    if (code !== 0) break;
    // What GitHub does with $GITHUB_PATH between steps.
    if (existsSync(githubPath)) path = `${readFileSync(githubPath, "utf8").trim().split("\n").join(":")}:${path}`;
  }
  return ran;
}

test(
  "README's job passes on a server that keeps the rules and its committed contract: install.sh, test --junit, diff",
  async () => {
    const checkout = tempDir("mcpkit-ci-checkout-");
    const served = `${BUN} ${RULE_BREAKER}`;
    const snapshot = Bun.spawn(
      [join(await compiledTools(), "mcp-inspect"), "snapshot", "--out", "mcp-contract.json", "--", BUN, RULE_BREAKER],
      {
        cwd: checkout,
      },
    );
    expect(await snapshot.exited).toBe(0);
    const ran = await runJob(served, checkout);
    expect(ran.map(({ step, code }) => [step, code])).toEqual(jobSteps().map((step) => [step, 0]));
    expect(ran[0]!.output).toContain("checksum verified");
    expect(statSync(join(checkout, "mcp-checks.xml")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(checkout, "mcp-checks.xml"), "utf8")).toContain('failures="0"');
    expect(readFileSync(join(checkout, "step-summary.md"), "utf8")).toContain("MCP contract");
  },
  TEST_GUARD_MS,
);

test(
  "README's job fails at its diff step (exit 10) when the server breaks its committed contract",
  async () => {
    const checkout = tempDir("mcpkit-ci-checkout-");
    const snapshot = Bun.spawn(
      [join(await compiledTools(), "mcp-inspect"), "snapshot", "--out", "mcp-contract.json", "--", BUN, RULE_BREAKER],
      {
        cwd: checkout,
      },
    );
    expect(await snapshot.exited).toBe(0);
    const ran = await runJob(`${BUN} ${RULE_BREAKER} contract-v2`, checkout);
    const failed = ran.at(-1)!;
    expect(failed.step).toStartWith("mcp-inspect diff");
    expect(failed.code).toBe(10);
    expect(readFileSync(join(checkout, "step-summary.md"), "utf8")).toContain("breaking");
  },
  TEST_GUARD_MS,
);
