// Slash commands, and what Tab offers: command names, /server:prompt names, @server:uri mentions
// and prompt argument values (asked of the server through completion/complete).
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Chat, TurnResult } from "./chat.ts";
import { rootFor } from "./options.ts";
import type { ServerConnection } from "./servers.ts";
import type { Terminal } from "./terminal.ts";

export interface HostContext {
  servers: Map<string, ServerConnection>;
  chat: Chat;
  terminal: Terminal;
  roots: { uri: string; name: string }[];
  /** Runs cancellable work (Ctrl-C aborts its signal). */
  run(work: (signal: AbortSignal) => Promise<TurnResult>): Promise<TurnResult | undefined>;
}

const COMMANDS: Record<string, string> = {
  "/help": "this list",
  "/servers": "connected servers and what they negotiated",
  "/tools": "every tool, as the model sees it",
  "/resources": "resources and templates (attach one with @server:uri in a message)",
  "/prompts": "prompts (run one with /server:prompt key=value)",
  "/roots": "the directories servers may see",
  "/root add <dir>": "add a root (servers are told)",
  "/watch @server:uri": "subscribe to a resource; updates appear as notes",
  "/unwatch @server:uri": "stop watching",
  "/complete <text>": "show what Tab would offer for <text>",
  "/quit": "leave (also Ctrl-C at an empty prompt, or Ctrl-D)",
};

export type CommandOutcome = "quit" | TurnResult | undefined;

export async function runCommand(line: string, host: HostContext): Promise<CommandOutcome> {
  const { terminal } = host;
  const [command = "", ...rest] = line.trim().split(/\s+/);
  const argument = line.trim().slice(command.length).trim();
  switch (command) {
    case "/quit":
    case "/exit":
      return "quit";
    case "/help":
      for (const [name, what] of Object.entries(COMMANDS)) terminal.print(`  ${name.padEnd(24)} ${what}`);
      terminal.print("  /<server>:<prompt> k=v   run a server's prompt; it seeds the conversation");
      terminal.print("  @<server>:<uri>          in a message: attach that resource as context");
      return undefined;
    case "/servers":
      for (const server of host.servers.values()) terminal.print(`  ${server.describe()}`);
      return undefined;
    case "/tools":
      for (const spec of host.chat.tools) terminal.print(`  ${spec.name}  ${firstLine(spec.description)}`);
      if (host.chat.tools.length === 0) terminal.print("  (no tools)");
      return undefined;
    case "/resources":
      for (const server of host.servers.values()) {
        for (const r of server.resources) terminal.print(`  @${server.key}:${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}`);
        for (const t of server.templates) terminal.print(`  @${server.key}:${t.uriTemplate}  ${t.name} (template)`);
      }
      return undefined;
    case "/prompts":
      for (const server of host.servers.values()) {
        for (const p of server.prompts) {
          const args = (p.arguments ?? []).map((a) => (a.required ? `${a.name}=` : `[${a.name}=]`)).join(" ");
          terminal.print(`  /${server.key}:${p.name} ${args}  ${firstLine(p.description)}`);
        }
      }
      return undefined;
    case "/roots":
      for (const root of host.roots) terminal.print(`  ${root.uri}`);
      return undefined;
    case "/root":
      return addRoot(rest, host);
    case "/watch":
    case "/unwatch":
      return watch(command === "/watch", argument, host);
    case "/complete":
      for (const candidate of await completeLine(argument, host)) terminal.print(`  ${candidate}`);
      return undefined;
  }
  const prompt = /^\/([A-Za-z0-9_-]+):(\S+)$/.exec(command);
  if (prompt) return runPrompt(prompt[1]!, prompt[2]!, argument, host);
  terminal.print(`unknown command ${command} (see /help)`, "red");
  return undefined;
}

async function addRoot(rest: string[], host: HostContext): Promise<undefined> {
  const [verb, ...words] = rest;
  const directory = words.join(" ");
  if (verb !== "add" || directory === "") {
    host.terminal.print("usage: /root add <dir>", "red");
    return undefined;
  }
  const path = resolve(directory);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    host.terminal.print(`not a directory: ${path}`, "red");
    return undefined;
  }
  const root = rootFor(path);
  if (host.roots.some((r) => r.uri === root.uri)) {
    host.terminal.print(`already a root: ${root.uri}`);
    return undefined;
  }
  host.roots.push(root);
  await Promise.all([...host.servers.values()].map((server) => server.rootsChanged()));
  host.terminal.print(`added root ${root.uri}`);
  return undefined;
}

async function watch(on: boolean, argument: string, host: HostContext): Promise<undefined> {
  const mention = /^@([A-Za-z0-9_-]+):(\S+)$/.exec(argument);
  const server = mention ? host.servers.get(mention[1]!) : undefined;
  if (!mention || !server) {
    host.terminal.print(`usage: /${on ? "watch" : "unwatch"} @server:uri (servers: ${[...host.servers.keys()].join(", ")})`, "red");
    return undefined;
  }
  const uri = mention[2]!;
  try {
    if (on) {
      await server.watch(uri);
      host.terminal.print(`watching @${server.key}:${uri} (${server.modern ? "subscriptions/listen" : "resources/subscribe"})`);
    } else {
      host.terminal.print((await server.unwatch(uri)) ? `stopped watching @${server.key}:${uri}` : `not watching @${server.key}:${uri}`);
    }
  } catch (error) {
    host.terminal.print(`cannot watch @${server.key}:${uri}: ${(error as Error).message}`, "red");
  }
  return undefined;
}

async function runPrompt(key: string, name: string, argument: string, host: HostContext): Promise<CommandOutcome> {
  const { terminal } = host;
  const server = host.servers.get(key);
  const prompt = server?.prompts.find((p) => p.name === name);
  if (!server || !prompt) {
    terminal.print(`no prompt /${key}:${name} (see /prompts)`, "red");
    return undefined;
  }
  const args = parsePairs(argument);
  for (const declared of prompt.arguments ?? []) {
    if (!declared.required || declared.name in args) continue;
    const value = await terminal.ask(`  ${declared.name}${declared.description ? ` (${declared.description})` : ""}: `);
    if (value === null || value.trim() === "") {
      terminal.print(`/${key}:${name} needs ${declared.name}`, "red");
      return undefined;
    }
    args[declared.name] = value.trim();
  }
  return host.run(async (signal) => {
    const result = await server.client.getPrompt({ name, arguments: args, ...server.requestMeta }, { signal });
    const seeded = host.chat.seed(result.messages as { role: string; content: unknown }[]);
    for (const message of seeded) {
      const text = message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(" ");
      terminal.print(`[${message.role}] ${text}`, "dim");
    }
    if (seeded.at(-1)?.role !== "user") return { gaveUp: false, cancelled: false, capped: false, failed: false };
    return host.chat.respond(signal);
  });
}

/** `key=value key2="two words"` */
export function parsePairs(text: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z0-9_.-]+)=("([^"]*)"|'([^']*)'|\S*)/g)) {
    pairs[match[1]!] = match[3] ?? match[4] ?? match[2]!;
  }
  return pairs;
}

/** Full-line candidates for what the user has typed so far. */
export async function completeLine(line: string, host: HostContext): Promise<string[]> {
  const promptArg = /^\/([A-Za-z0-9_-]+):(\S+)\s(?:.*\s)?([A-Za-z0-9_.-]+)=(\S*)$/.exec(line);
  if (promptArg) return completeArgument(line, promptArg, host);
  if (/^\/\S*$/.test(line)) {
    const names = [...Object.keys(COMMANDS).map((c) => c.split(" ")[0]!), "/exit"];
    for (const server of host.servers.values()) names.push(...server.prompts.map((p) => `/${server.key}:${p.name} `));
    return [...new Set(names)].filter((name) => name.startsWith(line));
  }
  const mention = /(^|\s)@(\S*)$/.exec(line);
  if (mention) {
    const typed = mention[2]!;
    const before = line.slice(0, line.length - typed.length - 1);
    const candidates: string[] = [];
    for (const server of host.servers.values()) {
      for (const uri of [...server.resources.map((r) => r.uri), ...server.templates.map((t) => t.uriTemplate)])
        candidates.push(`${server.key}:${uri}`);
      candidates.push(...(await completeTemplate(server, typed)));
    }
    return [...new Set(candidates)].filter((c) => c.startsWith(typed)).map((c) => `${before}@${c}`);
  }
  return [];
}

/** `@server:ref://items/it` + Tab: the template's last variable, completed by the server (ref/resource). */
async function completeTemplate(server: ServerConnection, typed: string): Promise<string[]> {
  if (!typed.startsWith(`${server.key}:`) || !server.capabilities.completions) return [];
  const uri = typed.slice(server.key.length + 1);
  const found: string[] = [];
  for (const { uriTemplate } of server.templates) {
    const variable = /^([^{}]*)\{([A-Za-z0-9_]+)\}$/.exec(uriTemplate);
    if (!variable || !uri.startsWith(variable[1]!)) continue;
    try {
      const result = await server.client.complete({
        ref: { type: "ref/resource", uri: uriTemplate },
        argument: { name: variable[2]!, value: uri.slice(variable[1]!.length) },
      });
      found.push(...result.completion.values.map((value) => `${server.key}:${variable[1]}${value}`));
    } catch {
      // A server that cannot complete this template simply offers nothing.
    }
  }
  return found;
}

async function completeArgument(line: string, match: RegExpExecArray, host: HostContext): Promise<string[]> {
  const [, key, name, argument, value] = match as unknown as [string, string, string, string, string];
  const server = host.servers.get(key);
  if (!server?.prompts.some((p) => p.name === name) || !server.capabilities.completions) return [];
  const context = parsePairs(line.slice(line.indexOf(" "), line.length - argument.length - value.length - 1));
  try {
    const result = await server.client.complete({
      ref: { type: "ref/prompt", name },
      argument: { name: argument, value },
      ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
    });
    const stem = line.slice(0, line.length - value.length);
    return result.completion.values.map((candidate) => `${stem}${candidate}`);
  } catch {
    return [];
  }
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n")[0] ?? "";
}
