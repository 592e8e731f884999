// One run of the host: the servers it connects, the conversation, and who owns Ctrl-C at each
// moment (a running turn, a server's open question, the prompt). Every way out closes every server.

import type { LogLevelName } from "../lib/io/log-levels.ts";
import { signalExitCode } from "../lib/io/signals.ts";
import type { ChannelAuth } from "../lib/open.ts";
import type { Target } from "../lib/targets/target.ts";
import { openInBrowser } from "../lib/terminal/browser.ts";
import type { CloseOptions } from "../lib/transport/channel.ts";
import { answerElicitation, answerSampling } from "./asks.ts";
import { Chat, type TurnResult } from "./chat.ts";
import { completeLine, type HostContext, runCommand } from "./commands.ts";
import { type EraChoice, EXIT } from "./options.ts";
import type { LLMProvider } from "./provider.ts";
import { keyForTarget, ServerConnection, type ServerEvents } from "./servers.ts";
import { Terminal } from "./terminal.ts";
import { uniqueServerKey } from "./tools.ts";

export interface HostSessionOptions {
  provider: LLMProvider;
  targets: Target[];
  era: EraChoice;
  roots: { uri: string; name: string }[];
  /** OAuth: the flags (--oauth, --no-browser, --callback-port, --client-id); questions go to the terminal. */
  auth: Omit<ChannelAuth, "ui">;
  /** One-shot mode: stdout carries only the model's answer. */
  oneShot: boolean;
  /** The level of server log messages asked for; --log-file also keeps every line shown. */
  logLevel?: LogLevelName;
  logFile?: string;
}

export class HostSession implements HostContext {
  readonly servers = new Map<string, ServerConnection>();
  readonly terminal: Terminal;
  readonly roots: { uri: string; name: string }[];
  chat!: Chat;
  /** The running turn, which Ctrl-C cancels. */
  #current?: AbortController;
  /** Every connection made, connected or not, so that leaving closes them all. */
  readonly #connections: ServerConnection[] = [];
  readonly #options: HostSessionOptions;
  #leaving = false;

  constructor(options: HostSessionOptions) {
    this.#options = options;
    this.roots = options.roots;
    this.terminal = new Terminal({
      completer: (line) => completeLine(line, this),
      chatterToStderr: options.oneShot,
      logFile: options.logFile,
    });
    for (const [signal, code] of [
      ["SIGTERM", signalExitCode("SIGTERM")],
      ["SIGHUP", signalExitCode("SIGHUP")],
    ] as const)
      process.once(signal, () => void this.leave(code));
    // Until the chat starts, Ctrl-C leaves (an OAuth sign-in may be waiting for the browser).
    this.terminal.oninterrupt = () => void this.leave(EXIT.interrupted);
  }

  /** Connects every target; resolves with how many answered. */
  async connect(): Promise<number> {
    const { targets, era } = this.#options;
    const terminal = this.terminal;
    const taken = new Set<string>();
    const connections = targets.map(
      (target) => new ServerConnection(uniqueServerKey(keyForTarget(target), taken), target, this.#events(), era, this.#options.logLevel),
    );
    this.#connections.push(...connections);
    const results = await Promise.allSettled(
      connections.map((connection) =>
        connection.connect({
          era,
          onstderr: stderrPrinter(() => connection.key, terminal),
          auth: {
            ...this.#options.auth,
            ui: terminal,
          },
        }),
      ),
    );
    const keys = new Set<string>();
    results.forEach((result, i) => {
      const connection = connections[i]!;
      if (result.status === "fulfilled") {
        // Unnamed stdio servers are known by the name they give themselves, as the tools' namespace.
        // URL servers keep their host's name: a remote server's self-given name is often just "mcp".
        const self = connection.target.kind === "http" ? undefined : connection.client.getServerVersion()?.name;
        connection.key = uniqueServerKey(connection.target.name ?? self ?? connection.key, keys);
        this.servers.set(connection.key, connection);
        terminal.print(`connected to ${connection.describe()}`, "green");
      } else {
        terminal.print(`could not connect to ${connection.key}: ${(result.reason as Error).message}`, "red");
      }
    });
    const askUrl = (server: string, elicitation: Record<string, unknown>, signal: AbortSignal) =>
      answerElicitation(server, elicitation, terminal, openInBrowser, signal);
    this.chat = new Chat(this.servers, this.#options.provider, terminal, askUrl);
    return this.servers.size;
  }

  /** Runs cancellable work: Ctrl-C aborts its signal. */
  async run(work: (signal: AbortSignal) => Promise<TurnResult>): Promise<TurnResult> {
    const controller = new AbortController();
    this.#current = controller;
    try {
      return await work(controller.signal);
    } catch (error) {
      if (controller.signal.aborted) {
        this.terminal.print("cancelled", "yellow");
        return { gaveUp: false, cancelled: true, capped: false, failed: false };
      }
      this.terminal.print(`error: ${(error as Error).message}`, "red");
      return { gaveUp: false, cancelled: false, capped: false, failed: true };
    } finally {
      this.#current = undefined;
    }
  }

  /** The chat at the prompt, until /quit, end of input or Ctrl-C at an empty prompt. */
  async repl(): Promise<number> {
    const terminal = this.terminal;
    let exitCode: number = EXIT.ok;
    terminal.oninterrupt = () => {
      if (this.#current) this.#current.abort();
      else if (terminal.openQuestions > 1) terminal.cancelNewestQuestion();
      else if (terminal.currentLine !== "") terminal.clearLine();
      else {
        exitCode = EXIT.interrupted;
        terminal.close();
      }
    };
    this.#banner();
    for (;;) {
      const line = await terminal.ask("you> ", { style: "bold" });
      if (line === null) break;
      if (line.trim() === "") continue;
      const outcome = line.trim().startsWith("/") ? await runCommand(line, this) : await this.run((signal) => this.chat.turn(line, signal));
      if (outcome === "quit") break;
    }
    return exitCode;
  }

  /** One answer, then out: the exit code says how it went. */
  async answerOnce(message: string): Promise<number> {
    this.terminal.oninterrupt = () => this.#current?.abort();
    this.#banner();
    const outcome = await this.run((signal) => this.chat.turn(message, signal));
    if (outcome.failed) return EXIT.model;
    if (outcome.cancelled) return EXIT.interrupted;
    // No answer came of the tools: one failed and the model gave up, or the model never stopped.
    return outcome.gaveUp || outcome.capped ? EXIT.toolError : EXIT.ok;
  }

  /** Closes every server (their process groups included) and the terminal; `quick` on a signal. */
  async close(options?: CloseOptions): Promise<void> {
    this.terminal.close();
    await Promise.all(this.#connections.map((connection) => connection.close(options)));
  }

  /** A signal, or Ctrl-C before the chat starts: close everything, then exit with 128+N. */
  async leave(code: number): Promise<void> {
    if (this.#leaving) return;
    this.#leaving = true;
    this.terminal.close();
    this.#current?.abort();
    await this.close({ quick: true });
    process.exit(code);
  }

  #banner(): void {
    const { provider } = this.#options;
    const servers = `${this.servers.size} server(s)`;
    this.terminal.print(`mcp-host · model ${provider.name}/${provider.model} · ${servers} · /help for commands`, "dim");
  }

  #events(): ServerEvents {
    const { terminal } = this;
    const provider = this.#options.provider;
    // A server's question ends when the server withdraws it or the user cancels the turn it belongs to.
    const withTurn = (signal: AbortSignal) => (this.#current ? AbortSignal.any([signal, this.#current.signal]) : signal);
    return {
      note: (server, line) => terminal.print(`  [${server}] ${line}`, "dim"),
      onlistschanged: () => this.chat?.refreshTools(),
      handlers: {
        sampling: (server, params, signal) => answerSampling(server, params, terminal, provider, withTurn(signal)),
        elicitation: (server, params, signal) => answerElicitation(server, params, terminal, openInBrowser, withTurn(signal)),
        roots: () => this.roots,
      },
    };
  }
}

/** A server's stderr on ours, line by line (as mcp-proxy shows its child's), each prefixed with its name. */
function stderrPrinter(key: () => string, terminal: Terminal): (line: string) => void {
  return (line) => terminal.printError(`[${key()}] ${line}`);
}
