/**
 * The client the conformance suite runs (`--command "bun test/seams/conformance-client.ts TOOL"`,
 * the server URL appended): mcp-inspect or mcp-host signing in to the scenario's server headless,
 * with what the scenario's context (MCP_CONFORMANCE_CONTEXT) says the client is: a pre-registered
 * client, a client credentials client with a secret or a private key, our metadata document.
 *   inspect: `auth`, then list-tools and a call of each tool (a step-up comes with a call); the
 *            calls the context names (toolCalls) as given; a call that ends with exit 8 (the server
 *            needs answers) made again by a new process with the answers file it printed, as a
 *            script would; resources and prompts listed and the first of each read
 *   host:    one -p run that calls the scenario's tool (test-tool) for auth/*; otherwise one -p run per call the
 *            context names, or per tool mcp-inspect lists (with the simplest arguments)
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
  toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
};
const scenario = context.name ?? process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const home = mkdtempSync(join(tmpdir(), "mcpkit-conformance-"));
const env: Record<string, string | undefined> = {
  ...process.env,
  MCPKIT_AUTH_DIR: join(home, "auth"),
  MCPKIT_DAEMON_DIR: mkdtempSync("/tmp/mcpd-conformance-"),
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

/** Arguments a tool's schema requires, each of the simplest value of its type. */
function simplest(schema: { properties?: Record<string, { type?: string }>; required?: string[] } | undefined) {
  const values: Record<string, unknown> = { number: 1, integer: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries((schema?.required ?? []).map((key) => [key, values[schema?.properties?.[key]?.type ?? ""] ?? "x"]));
}

/** One mcp-inspect call-tool; its code and envelope. */
function callOnce(name: string, args: Record<string, unknown>, extra: string[]): { code: number; envelope: any } {
  const ran = run("mcp-inspect.ts", ["call-tool", name, "--params", JSON.stringify(args), "--url", url!, ...flags, ...extra]);
  process.stdout.write(ran.stdout);
  return { code: ran.code, envelope: JSON.parse(ran.stdout || "{}") };
}

/**
 * One call as a script following README would make it: exit 8 means the server needs answers; a
 * 2025 server's question needs the call kept alive, so the call is made again with --stateful
 * (mcp-daemon keeps the question); then the same call with the answers file the envelope holds.
 */
function call(name: string, args: Record<string, unknown>): void {
  // The 2025 elicitation scenarios ask every call: a script that knows its server is 2025 starts --stateful.
  let asked = callOnce(name, args, scenario.startsWith("elicitation-") ? ["--stateful"] : []);
  if (asked.code !== 8) return;
  const stateful = asked.envelope.metadata?.protocolVersion !== "2026-07-28" ? ["--stateful"] : [];
  if (stateful.length > 0 && !scenario.startsWith("elicitation-")) asked = callOnce(name, args, stateful);
  const answers = asked.envelope.error?.details?.answers;
  if (asked.code !== 8 || answers === undefined) return;
  const file = join(home, `answers-${name}.json`);
  writeFileSync(file, JSON.stringify(answers));
  callOnce(name, args, [...stateful, "--input-responses", `@${file}`]);
}

const isAuth = scenario.startsWith("auth/");
if (tool === "inspect" && !isAuth) {
  const listed = run("mcp-inspect.ts", ["list-tools", "--url", url, ...flags]);
  process.stdout.write(listed.stdout);
  const tools = (JSON.parse(listed.stdout || "{}").data?.tools ?? []) as { name: string; inputSchema?: never }[];
  if (context.toolCalls) for (const named of context.toolCalls) call(named.name, named.arguments ?? {});
  else for (const listedTool of tools) call(listedTool.name, simplest(listedTool.inputSchema));
  const resources = run("mcp-inspect.ts", ["list-resources", "--url", url, ...flags]);
  const first = JSON.parse(resources.stdout || "{}").data?.resources?.[0]?.uri;
  if (first) run("mcp-inspect.ts", ["read-resource", first, "--url", url, ...flags]);
  const prompts = run("mcp-inspect.ts", ["list-prompts", "--url", url, ...flags]);
  const prompt = JSON.parse(prompts.stdout || "{}").data?.prompts?.[0]?.name;
  if (prompt) run("mcp-inspect.ts", ["get-prompt", prompt, "--url", url, ...flags]);
  run("mcp-daemon.ts", ["stop"]);
} else if (tool === "inspect") {
  const listed = run("mcp-inspect.ts", ["list-tools", "--url", url, "--oauth", ...flags]);
  process.stdout.write(listed.stdout);
  if (listed.code !== 0) process.exit(listed.code);
  const names = ((JSON.parse(listed.stdout).data?.tools ?? []) as { name: string }[]).map((t) => t.name);
  for (const name of names) process.stdout.write(run("mcp-inspect.ts", ["call-tool", name, "--url", url, "--oauth", ...flags]).stdout);
} else if (isAuth) {
  const prompt = "call test-tool"; // the tool of the suite's auth scenarios (a step-up comes with a call)
  const ran = run("mcp-host.ts", ["--server", url, "--oauth", ...flags, "-p", prompt]);
  process.stdout.write(ran.stdout);
  process.exit(ran.code);
} else {
  // One -p run per call the scenario names (or per tool mcp-inspect lists, with the simplest arguments), its
  // arguments as the scripted model's JSON object.
  let calls = context.toolCalls;
  if (!calls) {
    const listed = JSON.parse(run("mcp-inspect.ts", ["list-tools", "--url", url, ...flags]).stdout || "{}");
    const tools = (listed.data?.tools ?? []) as { name: string; inputSchema?: never }[];
    calls = tools.map((listedTool) => ({ name: listedTool.name, arguments: simplest(listedTool.inputSchema) }));
  }
  for (const named of calls) {
    const prompt = `call ${named.name} ${JSON.stringify(named.arguments ?? {})}`;
    process.stdout.write(run("mcp-host.ts", ["--server", url, ...flags, "-p", prompt]).stdout);
  }
}
