// `<tool> config`: the exact entry an MCP client needs to run one of our tools (lib/targets/
// client-config/write.ts builds it), printed, or with --write merged into that client's file.
import { existsSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import { quietStdout } from "../io/runtime.ts";
import {
  CLIENTS,
  type ClientName,
  clientConfigLocation,
  clientEntry,
  handsOnVariables,
  mergeIntoConfig,
  mergeIntoToml,
  toolCommand,
} from "../targets/client-config/write.ts";
import { approve } from "../targets/discovery/approval.ts";
import { projectRoot, userHome } from "../targets/discovery/clients.ts";
import { failed, type Result } from "../wire/result.ts";
import { fail } from "./fail.ts";

/** A flag that names a URL, so the entry bridges to it (`mcp-proxy --url`) and needs no command. */
const BRIDGE_FLAGS = new Set(["--url", "--server", "--config"]);
const VARIABLE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

const CONFIG_USAGE = (
  tool: string,
  example: string,
) => `Usage: ${tool} config --client <${CLIENTS.join("|")}> [--name NAME] [--write] [--file PATH] [${tool} options] -- <server command>

Prints the entry a client needs to run ${tool} (with the absolute path of this binary); with --write,
adds it to the client's config file (a backup is made first; other servers are kept).

Example:
  ${tool} config --client claude-desktop --name myserver ${example}
`;

/**
 * `<tool> config ...`: own flags are read here; every other flag before `--` belongs to the tool
 * and goes into the entry's args, followed by the server command.
 */
export async function runConfigCommand(
  tool: string,
  argv: string[],
  serverCommand: string[],
  options: { leadingArgs?: string[]; example: string; entryScript: string; repeated?: Record<string, string[]> },
): Promise<number> {
  let client: string | undefined;
  let name: string | undefined;
  let file: string | undefined;
  let write = false;
  const passthrough: string[] = [];
  // --env goes into the entry's env; -H stays our flag, its ${VAR} left for the client to hand on.
  const envPairs = [...(options.repeated?.env ?? [])];
  const headers = [...(options.repeated?.header ?? [])];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--help" || flag === "-h") {
      quietStdout().write(CONFIG_USAGE(tool, options.example));
      return 0;
    } else if (flag === "--client") client = value();
    else if (flag === "--name") name = value();
    else if (flag === "--file") file = value();
    else if (flag === "--write") write = true;
    else if (flag === "--env" || flag === "-e") envPairs.push(value() ?? "");
    else if (flag === "--header" || flag === "-H") headers.push(value() ?? "");
    else passthrough.push(arg);
  }
  const env = parseEnvPairs(envPairs);
  if (!env.ok) return fail(env.error);
  for (const header of headers) passthrough.push("-H", header);
  const bridged = passthrough.some((arg) => BRIDGE_FLAGS.has(arg.split("=")[0]!));
  if (!client || !(CLIENTS as readonly string[]).includes(client))
    return fail(`--client must be one of ${CLIENTS.join(", ")} (see ${tool} config --help)`);
  if (serverCommand.length === 0 && !bridged)
    return fail(`give the server command after --, e.g. ${tool} config --client ${client} ${options.example}`);
  name ??= serverCommand.length > 0 ? basename(serverCommand.at(-1)!).replace(/\.[a-z]+$/i, "") || "server" : urlName(passthrough);
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return fail(`--name ${JSON.stringify(name)} may hold only letters, digits, '_', '.' and '-'`);
  const location = clientConfigLocation(client as ClientName);
  const target = file ? resolve(file) : location.file;
  const command = serverCommand.length > 0 ? ["--", ...serverCommand] : [];
  const used = variablesIn([...headers, ...Object.values(env.value)]);
  const entry = clientEntry(
    client as ClientName,
    {
      ...toolCommand(tool, [...(options.leadingArgs ?? []), ...passthrough, ...command], process.execPath, options.entryScript),
      env: env.value,
    },
    used,
  );
  if (used.length > 0 && !handsOnVariables(client as ClientName) && client !== "codex")
    process.stderr.write(`note: ${client} does not hand on variables; set ${used.join(", ")} in the entry's env yourself\n`);
  // A client may start the server from any directory: relative paths are worth a warning.
  const relative = [...passthrough, ...serverCommand.slice(1)].filter((arg) => !isAbsolute(arg) && !arg.startsWith("-") && existsSync(arg));
  for (const arg of relative)
    process.stderr.write(`note: ${arg} is a relative path; the client may run it from another directory (use ${resolve(arg)})\n`);
  if (!write) {
    const printed =
      location.format === "toml"
        ? (await import("../targets/client-config/toml.ts")).serverTable(name, entry)
        : `${JSON.stringify({ [location.key]: { [name]: entry } }, null, 2)}\n`;
    quietStdout().write(printed);
    process.stderr.write(`add this to ${target} (or run again with --write)\n`);
    return 0;
  }
  const merged = location.format === "toml" ? await mergeIntoToml(target, name, entry) : mergeIntoConfig(target, location.key, name, entry);
  if (!merged.ok) return fail(merged.error);
  // What we wrote into a project's file is the user's own doing: approved, as if they had typed it.
  if (location.scope === "project") await approveWritten(name, target, entry);
  quietStdout().write(`wrote "${name}" to ${target}${merged.value.backup ? ` (backup: ${merged.value.backup})` : ""}\n`);
  return 0;
}

function parseEnvPairs(pairs: string[]): Result<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) return failed(`bad --env ${JSON.stringify(pair)} (write it as KEY=value)`);
    env[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return { ok: true, value: env };
}

/** The variables `${NAME}` (or `${env:NAME}`) the texts name, each once. */
function variablesIn(texts: string[]): string[] {
  return [...new Set(texts.flatMap((text) => [...text.matchAll(VARIABLE)].map((match) => match[1]!)))];
}

/** A bridge entry's default name: the URL's host, as a name may be spelled. */
function urlName(args: string[]): string {
  const at = args.findIndex((arg) => arg === "--url" || arg.startsWith("--url="));
  const url = at === -1 ? undefined : args[at]!.includes("=") ? args[at]!.slice(6) : args[at + 1];
  try {
    return new URL(url ?? "").hostname.replace(/[^A-Za-z0-9_.-]/g, "-") || "server";
  } catch {
    return "server";
  }
}

async function approveWritten(name: string, file: string, entry: Record<string, unknown>): Promise<void> {
  const home = userHome(process.env);
  const saved = await approve({ name, scope: "project", file, project: projectRoot(process.cwd(), home), entry });
  if (!saved.ok) process.stderr.write(`note: ${saved.error}; mcp-inspect servers --approve ${name} approves it\n`);
}
