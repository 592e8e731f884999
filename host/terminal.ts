// The host's terminal: one queue of input lines (typed at a TTY with tab completion, or piped in by
// a script, which then reads the same way), answers to the host's questions, and output that never
// lets server- or model-supplied text rewrite the screen.
import { createInterface, type Interface } from "node:readline";
import { stripControl } from "../lib/log.ts";

export type Completer = (line: string) => Promise<string[]>;

const STYLES = { dim: "2", bold: "1", cyan: "36", yellow: "33", red: "31", green: "32" } as const;
export type Style = keyof typeof STYLES;

export class Terminal {
  readonly interactive: boolean;
  readonly #color: boolean;
  readonly #output: NodeJS.WriteStream;
  /** Where everything but the model's answer goes: stderr in one-shot mode, so stdout is the answer. */
  readonly #chatter: NodeJS.WriteStream;
  readonly #rl: Interface;
  readonly #lines: string[] = [];
  #waiting?: (line: string | null) => void;
  #ended = false;
  #atLineStart = true;
  #interruptHandler: () => void = () => {};

  constructor(options: { input?: NodeJS.ReadStream; output?: NodeJS.WriteStream; completer?: Completer; chatterToStderr?: boolean } = {}) {
    const input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#chatter = options.chatterToStderr ? process.stderr : this.#output;
    this.interactive = Boolean(input.isTTY && this.#chatter.isTTY);
    this.#color = this.interactive && !process.env.NO_COLOR;
    const completer = options.completer;
    this.#rl = createInterface({
      input,
      output: this.interactive ? this.#chatter : undefined,
      terminal: this.interactive,
      historySize: 200,
      ...(this.interactive && completer
        ? {
            completer: (line: string, callback: (error: null, result: [string[], string]) => void) => {
              completer(line).then(
                (candidates) => callback(null, [candidates, line]),
                () => callback(null, [[], line]),
              );
            },
          }
        : {}),
    });
    this.#rl.on("line", (line) => this.#push(line));
    this.#rl.on("close", () => {
      this.#ended = true;
      this.#deliver(null);
    });
    // At a TTY, readline owns Ctrl-C; piped, the signal arrives as SIGINT.
    this.#rl.on("SIGINT", () => this.#interruptHandler());
    if (!this.interactive) process.on("SIGINT", () => this.#interruptHandler());
  }

  /** Ctrl-C: the host decides whether it cancels work, clears the line or exits. */
  onInterrupt(handler: () => void): void {
    this.#interruptHandler = handler;
  }

  /** The next line of input after showing `prompt`; null when input has ended. */
  ask(prompt: string): Promise<string | null> {
    this.#ensureLineStart();
    const queued = this.#lines.shift();
    if (queued !== undefined || this.#ended) {
      const line = queued ?? null;
      if (!this.interactive) this.#chatter.write(`${prompt}${line ?? ""}\n`);
      return Promise.resolve(line);
    }
    // A question left unanswered (its work was cancelled) gets no answer rather than the next line.
    this.#deliver(null);
    return new Promise((resolve) => {
      this.#waiting = resolve;
      if (this.interactive) {
        this.#rl.setPrompt(prompt);
        this.#rl.prompt();
      } else {
        this.#chatter.write(prompt);
        this.#atLineStart = false;
      }
    });
  }

  /** A yes/no question; anything but y/yes (or no input at all) is no. */
  async confirm(question: string): Promise<boolean> {
    const answer = await this.ask(`${this.style("yellow", question)} [y/N] `);
    return /^\s*y(es)?\s*$/i.test(answer ?? "");
  }

  /** Clears whatever the user has typed at the prompt (Ctrl-C on a non-empty line). */
  clearLine(): void {
    if (!this.interactive) return;
    this.#rl.write(null, { ctrl: true, name: "u" });
  }

  get currentLine(): string {
    return this.interactive ? this.#rl.line : "";
  }

  /** One whole line of (untrusted) text, optionally styled. */
  print(text: string, style?: Style): void {
    this.#ensureLineStart();
    const safe = stripControl(text);
    this.#chatter.write(`${style ? this.style(style, safe) : safe}\n`);
  }

  /** Streamed text, as it arrives. */
  write(text: string): void {
    const safe = stripControl(text);
    if (safe === "") return;
    this.#output.write(safe);
    this.#atLineStart = safe.endsWith("\n");
  }

  style(style: Style, text: string): string {
    return this.#color ? `\u001b[${STYLES[style]}m${text}\u001b[0m` : text;
  }

  close(): void {
    this.#ended = true;
    this.#rl.close();
  }

  #ensureLineStart(): void {
    if (!this.#atLineStart) this.#chatter.write("\n");
    this.#atLineStart = true;
  }

  #push(line: string): void {
    if (this.#waiting) this.#deliver(line);
    else this.#lines.push(line);
  }

  #deliver(line: string | null): void {
    const waiting = this.#waiting;
    if (!waiting) return;
    this.#waiting = undefined;
    if (!this.interactive) this.#chatter.write(`${line ?? ""}\n`);
    this.#atLineStart = true;
    waiting(line);
  }
}
