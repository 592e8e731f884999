// `<tool> config`: the exact entry an MCP client needs to run one of our tools (lib/targets/
// client-config/write.ts builds it), printed, or with --write merged into that client's file.
import { existsSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import {
  CLIENTS,
  type ClientName,
  clientConfigLocation,
  clientEntry,
  mergeIntoConfig,
  mergeIntoToml,
  toolCommand,
} from "../targets/client-config/write.ts";
import { fail } from "./fail.ts";

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
  options: { leadingArgs?: string[]; example: string; entryScript: string },
): Promise<number> {
  let client: string | undefined;
  let name: string | undefined;
  let file: string | undefined;
  let write = false;
  const passthrough: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--help" || flag === "-h") {
      process.stdout.write(CONFIG_USAGE(tool, options.example));
      return 0;
    } else if (flag === "--client") client = value();
    else if (flag === "--name") name = value();
    else if (flag === "--file") file = value();
    else if (flag === "--write") write = true;
    else passthrough.push(arg);
  }
  if (!client || !(CLIENTS as readonly string[]).includes(client))
    return fail(`--client must be one of ${CLIENTS.join(", ")} (see ${tool} config --help)`);
  if (serverCommand.length === 0)
    return fail(`give the server command after --, e.g. ${tool} config --client ${client} ${options.example}`);
  name ??= basename(serverCommand.at(-1)!).replace(/\.[a-z]+$/i, "") || "server";
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return fail(`--name ${JSON.stringify(name)} may hold only letters, digits, '_', '.' and '-'`);
  const location = clientConfigLocation(client as ClientName);
  const target = file ? resolve(file) : location.file;
  const entry = clientEntry(
    client as ClientName,
    toolCommand(tool, [...(options.leadingArgs ?? []), ...passthrough, "--", ...serverCommand], process.execPath, options.entryScript),
  );
  // A client may start the server from any directory: relative paths are worth a warning.
  const relative = [...passthrough, ...serverCommand.slice(1)].filter((arg) => !isAbsolute(arg) && !arg.startsWith("-") && existsSync(arg));
  for (const arg of relative)
    process.stderr.write(`note: ${arg} is a relative path; the client may run it from another directory (use ${resolve(arg)})\n`);
  if (!write) {
    const printed =
      location.format === "toml"
        ? (await import("../targets/client-config/toml.ts")).serverTable(name, entry)
        : `${JSON.stringify({ [location.key]: { [name]: entry } }, null, 2)}\n`;
    process.stdout.write(printed);
    process.stderr.write(`add this to ${target} (or run again with --write)\n`);
    return 0;
  }
  const merged = location.format === "toml" ? await mergeIntoToml(target, name, entry) : mergeIntoConfig(target, location.key, name, entry);
  if (!merged.ok) return fail(merged.error);
  process.stdout.write(`wrote "${name}" to ${target}${merged.value.backup ? ` (backup: ${merged.value.backup})` : ""}\n`);
  return 0;
}
