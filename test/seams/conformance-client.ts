/**
 * The client the conformance suite runs (`--command "bun test/seams/conformance-client.ts TOOL"`,
 * the server URL appended): mcp-inspect or mcp-host signing in to the scenario's server headless,
 * with what the scenario's context (MCP_CONFORMANCE_CONTEXT) says the client is: a pre-registered
 * client, a client credentials client with a secret or a private key, our metadata document.
 *   inspect: `auth`, then list-tools and a call of each tool (a step-up comes with a call)
 *   host:    one -p run that calls the scenario's tool (test-tool)
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
/** The client ID metadata document URL the suite's auth/basic-cimd server expects. */
const CONFORMANCE_DOCUMENT = "https://conformance-test.local/client-metadata.json";
const [tool, ...rest] = process.argv.slice(2);
const url = rest.at(-1);
if ((tool !== "inspect" && tool !== "host") || !url) {
  process.stderr.write("usage: conformance-client.ts inspect|host URL\n");
  process.exit(2);
}
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
  name?: string;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
};
const scenario = context.name ?? process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const home = mkdtempSync(join(tmpdir(), "mcpkit-conformance-"));
const env: Record<string, string | undefined> = {
  ...process.env,
  MCPKIT_AUTH_DIR: join(home, "auth"),
  BROWSER: `${process.execPath} ${join(ROOT, "test/fixtures/browser.ts")}`,
  ANTHROPIC_API_KEY: "",
  ANTHROPIC_AUTH_TOKEN: "",
  OPENAI_API_KEY: "",
  GEMINI_API_KEY: "",
};
const flags: string[] = [];
const machine = scenario.includes("client-credentials");
if (context.client_id) flags.push("--client-id", context.client_id);
if (context.client_secret) {
  env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
  flags.push("--client-secret-env", "CONFORMANCE_CLIENT_SECRET");
}
if (context.private_key_pem) {
  const keyFile = join(home, "client-key.pem");
  writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 });
  flags.push("--client-key-file", keyFile);
}
if (machine) flags.push("--grant", "client-credentials");
// The suite's server expects its own document URL as the client ID, and fetches nothing: forced,
// since we cannot fetch it either.
if (scenario === "auth/basic-cimd") {
  env.MCPKIT_CLIENT_METADATA_URL = CONFORMANCE_DOCUMENT;
  flags.push("--registration", "metadata-document");
}

function run(script: string, args: string[]): { code: number; stdout: string } {
  const child = Bun.spawnSync([process.execPath, join(ROOT, script), ...args], { env, stdout: "pipe", stderr: "inherit" });
  return { code: child.exitCode ?? 1, stdout: child.stdout.toString() };
}

if (tool === "inspect") {
  const listed = run("mcp-inspect.ts", ["list-tools", "--url", url, "--oauth", ...flags]);
  process.stdout.write(listed.stdout);
  if (listed.code !== 0) process.exit(listed.code);
  const names = ((JSON.parse(listed.stdout).data?.tools ?? []) as { name: string }[]).map((t) => t.name);
  for (const name of names) process.stdout.write(run("mcp-inspect.ts", ["call-tool", name, "--url", url, "--oauth", ...flags]).stdout);
} else {
  const prompt = "call test-tool"; // the tool of the suite's auth scenarios (a step-up comes with a call)
  const ran = run("mcp-host.ts", ["--server", url, "--oauth", ...flags, "-p", prompt]);
  process.stdout.write(ran.stdout);
  process.exit(ran.code);
}
