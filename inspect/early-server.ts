// Start-up at the floor: a one-shot command against a plain stdio server spawns that
// server before the rest of mcp-inspect is loaded, so that its start-up and ours overlap; with
// --stateful (or a stateful config entry) it attaches to the server's mcp-daemon session instead,
// so that the socket's connect and the daemon's answer overlap our start-up. Only an argv this file
// understands whole is taken this way: a one-shot command and flags that inspect/flags.ts marks
// `early`, and the server after `--` or as a --config entry. Anything else (--help, a URL, a flag it does not
// know) starts nothing here and goes the usual way.
// The session adopts the channel when the target it resolves is this very one; otherwise (a usage
// error, another target) run() discards it. A spawned server never heard a byte from us, so it is
// stopped at once; a daemon session is only detached from, as any call does.

import { checkValue, type ValueKind } from "../lib/cli/values.ts";
import { type ExitSignal, onExitSignals } from "../lib/io/signals.ts";
import type { PipedChild } from "../lib/io/spawn.ts";
import type { StdioTarget, Target } from "../lib/targets/target.ts";
import type { MessageChannel } from "../lib/transport/channel.ts";
import type { StdioChannel } from "../lib/transport/stdio.ts";
import type { JsonRpcMessage, RawMessage } from "../lib/wire/jsonrpc.ts";
import {
  COMMON_ARGS,
  type CommandSpec,
  type EarlyValue,
  type FlagsDef,
  type InspectFlagDef,
  ONE_SHOT,
  type OneShotName,
  OUTPUT_FORMATS,
} from "./flags.ts";

/** How one spelling of a flag is read early: its value's shape, and for `value`, the kind its declaration names. */
interface EarlyFlag {
  /** The flag's name in its declaration (what citty would name it in the parsed args). */
  name: string;
  takes: EarlyValue;
  kind?: ValueKind;
  /** --no-<flag>: the switch given as off. */
  off?: true;
}

/**
 * How the early path reads `spelling` (--name, --no-name, or an alias) among these declarations, or
 * undefined when none of them marks it `early`. A flag given is looked up, not found in a table built
 * of every command's flags: building that table at start-up cost a warm call ~0.8 ms. One spelling
 * reads the same in every command, so the first declaration that has it answers.
 */
function earlyFlag(spelling: string, declarations: FlagsDef[]): EarlyFlag | undefined {
  if (!spelling.startsWith("--")) return aliasFlag(spelling, declarations);
  const name = spelling.slice(2);
  const def = declared(name, declarations, () => true);
  if (def) return readAs(name, def);
  // A switch that is on by default is turned off by --no-<flag>.
  const negated = name.startsWith("no-") ? name.slice(3) : undefined;
  const off = negated === undefined ? undefined : declared(negated, declarations, (d) => d.type === "boolean" && d.default === true);
  if (off) return { name: negated!, takes: "none", off: true };
  return aliasFlag(spelling, declarations);
}

/** The first early declaration of `name` among these that `fits` (own properties only: never the prototype's). */
function declared(name: string, declarations: FlagsDef[], fits: (def: InspectFlagDef) => boolean): InspectFlagDef | undefined {
  for (const defs of declarations) {
    const def = Object.hasOwn(defs, name) ? defs[name]! : undefined;
    if (def?.early !== undefined && fits(def)) return def;
  }
  return undefined;
}

/** The early flag this spelling is an alias of, if any: a one-letter alias is spelled -v, a longer one --verbose. */
function aliasFlag(spelling: string, declarations: FlagsDef[]): EarlyFlag | undefined {
  for (const defs of declarations) {
    for (const name in defs) {
      const def = defs[name]!;
      const aliases = "alias" in def && def.alias ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
      if (def.early !== undefined && aliases.some((alias) => (alias.length === 1 ? `-${alias}` : `--${alias}`) === spelling))
        return readAs(name, def);
    }
  }
  return undefined;
}

/** A flag read as its declaration says. */
function readAs(name: string, def: InspectFlagDef): EarlyFlag {
  return { name, takes: def.early!, ...(def.value ? { kind: def.value } : {}) };
}

/** The declarations of a one-shot command the early path takes: its own, then the common ones; undefined for any other. */
function earlyDeclarations(name: string): FlagsDef[] | undefined {
  if (!Object.hasOwn(ONE_SHOT, name)) return undefined;
  const spec: CommandSpec = ONE_SHOT[name as OneShotName];
  return spec.early === false ? undefined : [spec.args, COMMON_ARGS];
}

/** Every one-shot command's declarations the early path may read (the command word may come after the flags). */
function anyEarlyDeclarations(): FlagsDef[] {
  const declarations: FlagsDef[] = [COMMON_ARGS];
  for (const name in ONE_SHOT) {
    const own = earlyDeclarations(name)?.[0];
    if (own) declarations.push(own);
  }
  return declarations;
}

type Held =
  | { kind: "message"; message: JsonRpcMessage; raw?: RawMessage }
  | { kind: "error"; error: Error }
  | { kind: "close"; reason?: string };

type EarlyChannel = MessageChannel & { pause(): void; resume(): void };
/** Opens the one transport an early server needs (loaded for it alone: a warm call never loads the stdio one). */
type OpenEarly = (onstderr: (line: string) => void) => EarlyChannel;

/** A started server (or an attached daemon session) waiting for its session: what it says meanwhile is held, to be replayed in order. */
class EarlyServer {
  readonly #held: Held[] = [];
  #onstderr?: (line: string) => void;
  #adopted = false;
  readonly channel: EarlyChannel;
  readonly started: Promise<void>;

  constructor(
    readonly target: StdioTarget,
    readonly stateful: boolean,
    open: OpenEarly,
  ) {
    this.channel = open((line) => this.#onstderr?.(line));
    this.channel.onmessage = (message, raw) => this.#held.push({ kind: "message", message, raw });
    this.channel.onerror = (error) => this.#held.push({ kind: "error", error });
    this.channel.onclose = (reason) => this.#held.push({ kind: "close", reason });
    this.started = this.channel.start();
    // A spawn or attach that fails is reported by whoever adopts the channel (its start() gives the same promise).
    this.started.catch(() => {});
    // Nothing is read until a session has set its handlers: no message waits here in memory. A
    // daemon channel reads its attach answer first, and only then has a stream to pause.
    if (stateful)
      void this.started.then(
        () => this.#adopted || this.channel.pause(),
        () => {},
      );
    else this.channel.pause();
  }

  /** Hands the channel to `attach` (which sets its handlers), then replays what came meanwhile and lets it read. */
  adopt<T>(onstderr: ((line: string) => void) | undefined, attach: (channel: MessageChannel) => T): T {
    this.#adopted = true;
    const taken = attach(this.channel);
    if (onstderr && !this.stateful) {
      // The lines written before now are the tail the channel keeps for error reports.
      const tail = (this.channel as StdioChannel).stderrTail;
      if (tail) for (const line of tail.split("\n")) onstderr(line);
      this.#onstderr = onstderr;
    }
    for (const event of this.#held.splice(0)) {
      if (event.kind === "message") this.channel.onmessage?.(event.message, event.raw);
      else if (event.kind === "error") this.channel.onerror?.(event.error);
      else this.channel.onclose?.(event.reason);
    }
    this.channel.resume();
    return taken;
  }
}

/** A one-shot command as the early path read its argv: all of it, so nothing else need read it (inspect/early-call.ts). */
export interface EarlyCall {
  command: OneShotName;
  target: StdioTarget;
  /** The words after the command's name. */
  positionals: string[];
  /** Each flag given, by its declared name: a switch's state, or the value (the last --env pair is in `target`). */
  flags: Record<string, string | boolean>;
}

let early: EarlyServer | undefined;
let earlyCallRead: EarlyCall | undefined;
let stopGuarding: (() => void) | undefined;
let interruption: { signal: ExitSignal; code: number; command: string } | undefined;

/**
 * Starts the server of a one-shot command now, if argv names one plainly. Resolves once it is
 * spawned (or once it is clear that nothing is started here). A second call does nothing.
 */
export async function startEarly(argv: string[]): Promise<void> {
  if (early || stopGuarding) return;
  const found = await earlyTarget(argv);
  if (!found) return;
  const { call, stateful } = found;
  const { command, target } = call;
  // Our signal handlers are in place before the server exists: a Ctrl-C now must not orphan it.
  stopGuarding = onExitSignals((signal, code) => {
    // Once the command has its own handlers, it answers the signal (and closes the server).
    if (process.listenerCount(signal) > 1 || interruption) return;
    interruption = { signal, code, command };
    void discardEarly();
  });
  let open: OpenEarly;
  let attachSent: Promise<void> | undefined;
  if (stateful) {
    const { DaemonChannel } = await import("../lib/daemon/client.ts");
    const channel = new DaemonChannel(target);
    attachSent = channel.attachSent;
    open = () => channel;
  } else {
    const { command, args, env, cwd } = target;
    // The server before its transport loads (~1 ms, on Bun): its start-up is the long pole of a cold
    // call. A --cwd is checked first, by the transport, for its own message.
    const spawned = cwd === undefined ? await spawnBeforeTransport(command, args, env) : undefined;
    const { StdioChannel } = await import("../lib/transport/stdio.ts");
    open = (onstderr) => new StdioChannel({ command, args, env, cwd, onstderr, spawned });
  }
  early = new EarlyServer(target, stateful, open);
  earlyCallRead = call;
  // Without this turn of the event loop the attach frame would leave only once the rest has loaded,
  // and the daemon's answer would come after it all instead of meanwhile (~1 ms of a warm call).
  await attachSent;
}

/** Spawns the server as lib/transport/stdio.ts would, keeping what it says for the channel that adopts it (on Bun). */
async function spawnBeforeTransport(command: string, args: string[], env: Record<string, string>): Promise<PipedChild | undefined> {
  const [{ spawnEarly }, { serverSpawnOptions }] = await Promise.all([
    import("../lib/io/spawn.ts"),
    import("../lib/transport/environment.ts"),
  ]);
  return spawnEarly(command, args, serverSpawnOptions({ env }));
}

/** The one-shot command whose server (or daemon session) the early path started, while no session has taken it and no signal came. */
export function earlyCall(): EarlyCall | undefined {
  return early && !interruption ? earlyCallRead : undefined;
}

/** A signal that came before the command could answer it: run() reports it, with its exit code. */
export function earlyInterruption(): { signal: ExitSignal; code: number; command: string } | undefined {
  return interruption;
}

/**
 * Hands the early server to a session when `target` (stateful, or not) is the one it was started
 * for: `attach` builds the session on its channel. Undefined when there is none, or it is another target's.
 */
export function adoptEarlyServer<T>(
  target: Target,
  stateful: boolean,
  onstderr: ((line: string) => void) | undefined,
  attach: (channel: MessageChannel) => T,
): T | undefined {
  const server = early;
  if (!server || interruption || server.stateful !== (stateful || Boolean(target.stateful)) || !sameServer(server.target, target))
    return undefined;
  early = undefined;
  stopGuarding?.();
  return server.adopt(onstderr, attach);
}

/** Stops the early server if no session took it; run() calls this last. */
export async function discardEarly(): Promise<void> {
  const server = early;
  early = undefined;
  await (server && !server.stateful ? (server.channel as StdioChannel).discard() : server?.channel.close());
  if (!interruption) stopGuarding?.();
}

/** The command and the stdio target argv names, if this file understands all of argv; undefined otherwise. */
async function earlyTarget(argv: string[]): Promise<{ call: EarlyCall; stateful: boolean } | undefined> {
  const dashes = argv.indexOf("--");
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const server = dashes === -1 ? [] : argv.slice(dashes + 1);
  const flags: Record<string, string> = {};
  const values: Record<string, string | boolean> = {};
  const env: Record<string, string> = {};
  const positionals: string[] = [];
  // The command word may come after options, so argv is read with every command's early flags, and
  // then each flag given is checked to be one of that command's.
  const given = new Set<string>();
  const anyCommand = anyEarlyDeclarations();
  for (let i = 0; i < own.length; i++) {
    const word = own[i]!;
    if (!word.startsWith("-") || word === "-") {
      positionals.push(word);
      continue;
    }
    const equals = word.startsWith("--") ? word.indexOf("=") : -1;
    const flag = equals === -1 ? word : word.slice(0, equals);
    const early = earlyFlag(flag, anyCommand);
    if (early === undefined) return undefined;
    const takes = early.takes;
    given.add(flag);
    if (takes === "none") {
      if (equals !== -1) return undefined;
      flags[flag] = "";
      values[early.name] = !early.off;
      continue;
    }
    const value = equals !== -1 ? word.slice(equals + 1) : own[++i];
    if (value === undefined || !valueFits(flag, early, value)) return undefined;
    values[early.name] = value;
    if (takes === "pair") env[value.slice(0, value.indexOf("="))] = value.slice(value.indexOf("=") + 1);
    else if (flag in flags) return undefined;
    else flags[flag] = value;
  }
  const [name, ...rest] = positionals;
  const declarations = name === undefined ? undefined : earlyDeclarations(name);
  if (!declarations || [...given].some((flag) => earlyFlag(flag, declarations) === undefined)) return undefined;
  const takesPositionals = Object.values(declarations[0]!).some((def) => def.type === "positional");
  if ((!takesPositionals && rest.length > 0) || (takesPositionals && !rest[0])) return undefined;
  if ("--json" in flags && "--text" in flags) return undefined;
  if ("--format" in flags && ("--json" in flags || "--text" in flags)) return undefined;
  const cwd = flags["--cwd"];
  const stateful = "--stateful" in flags;
  const command = name as OneShotName;
  const call = (target: StdioTarget): EarlyCall => ({ command, target, positionals: rest, flags: values });
  if (server.length > 0) {
    if ("--config" in flags || "--server" in flags) return undefined;
    return {
      call: call({ kind: "stdio", command: server[0]!, args: server.slice(1), env, ...(cwd !== undefined ? { cwd } : {}) }),
      stateful,
    };
  }
  if (!("--config" in flags)) return undefined;
  // A config entry, read as the command reads it (lib/targets/target.ts and its JSONC parser load only now);
  // nobody is asked anything here, so an entry that needs a question (an approval) is not started early.
  const { resolveTargetDiscovering } = await import("../lib/targets/resolve.ts");
  const resolved = await resolveTargetDiscovering(
    { config: flags["--config"], server: flags["--server"], cwd, env: Object.entries(env).map(([k, v]) => `${k}=${v}`) },
    [],
  );
  return resolved.ok && resolved.value.kind === "stdio"
    ? { call: call(resolved.value), stateful: stateful || Boolean(resolved.value.stateful) }
    : undefined;
}

/** Whether the value passes the check the command itself would make (so the early server is not started for a usage error). */
function valueFits(flag: string, { takes, kind }: EarlyFlag, value: string): boolean {
  if (takes === "value") return kind !== undefined && checkValue(flag, kind, value).ok;
  if (takes === "pair") return value.indexOf("=") > 0;
  if (takes === "format") return OUTPUT_FORMATS.includes(value);
  return value !== "" && !value.startsWith("-");
}

/** The same process definition: command, args, env and cwd (a name or timeout does not change what runs). */
function sameServer(a: StdioTarget, b: Target): boolean {
  if (b.kind !== "stdio") return false;
  const sorted = (env: Record<string, string>) => JSON.stringify(Object.entries(env).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return a.command === b.command && JSON.stringify(a.args) === JSON.stringify(b.args) && sorted(a.env) === sorted(b.env) && a.cwd === b.cwd;
}
