// The host's terminal: one queue of input lines (typed at a TTY with tab completion, or piped in by
// a script, which then reads the same way), questions that may arrive while another is open (a
// server asks while the chat waits at its prompt: the newest question is answered first, then the
// older one is asked again), and output that never lets server- or model-supplied text rewrite the
// screen.
// One concept past 250 lines: the one terminal of the chat, its questions and its output.
import { createInterface, type Interface } from "node:readline";
import { setImmediate } from "node:timers";
import type { ConsolaInstance } from "consola/core";
import { createLogger } from "../lib/io/log.ts";
import { ownStderr } from "../lib/io/stderr.ts";
import { stripControl } from "../lib/io/text.ts";
import { wholeLines } from "../lib/io/whole-lines.ts";
import { MAX_INPUT_LINE_BYTES } from "../lib/wire/limits.ts";

export type Completer = (line: string) => Promise<string[]>;

const STYLES = { dim: "2", bold: "1", cyan: "36", yellow: "33", red: "31", green: "32" } as const;
export type Style = keyof typeof STYLES;
/** Lines of input history kept for the arrow keys. */
const HISTORY_LINES = 200;
const CLEAR_LINE = "\r\u001b[K";

interface Question {
  prompt: string;
  resolve: (line: string | null) => void;
  /** What the user had typed at this prompt when a newer question took the screen. */
  draft?: string;
}

export class Terminal {
  #log?: ConsolaInstance;
  readonly interactive: boolean;
  readonly #color: boolean;
  readonly #output: NodeJS.WriteStream;
  /** Where everything but the model's answer goes: stderr in one-shot mode, so stdout is the answer. */
  readonly #chatter: NodeJS.WriteStream;
  readonly #rl: Interface;
  readonly #lines: string[] = [];
  /** Open questions, the newest last: it gets the next line. */
  readonly #questions: Question[] = [];
  /** The question whose prompt is on screen. */
  #shown?: Question;
  #delivering = false;
  #ended = false;
  #atLineStart = true;
  #interruptHandler: () => void = () => {};

  constructor(
    options: {
      input?: NodeJS.ReadStream;
      output?: NodeJS.WriteStream;
      completer?: Completer;
      chatterToStderr?: boolean;
      logFile?: string;
    } = {},
  ) {
    const input = options.input ?? process.stdin;
    // --log-file: every line shown (the host's own and the servers') is also kept there.
    if (options.logFile) this.#log = createLogger({ file: options.logFile, level: "trace", stream: { write: () => true } });
    this.#output = options.output ?? process.stdout;
    this.#chatter = options.chatterToStderr ? process.stderr : this.#output;
    this.interactive = Boolean(input.isTTY && this.#chatter.isTTY);
    this.#color = this.interactive && !process.env.NO_COLOR;
    const completer = options.completer;
    // Piped, a line over the cap is skipped with a word on stderr: readline alone would hold a line without end.
    const lines = this.interactive
      ? input
      : wholeLines(input, {
          maxLineBytes: MAX_INPUT_LINE_BYTES,
          onoversize: ({ bytes }) =>
            ownStderr().write(`mcp-host: skipped an input line of ${bytes} bytes (over the ${MAX_INPUT_LINE_BYTES}-byte limit)\n`),
        });
    this.#rl = createInterface({
      input: lines,
      output: this.interactive ? this.#chatter : undefined,
      terminal: this.interactive,
      historySize: HISTORY_LINES,
      ...(this.interactive && completer
        ? {
            completer: (line: string, callback: (error: null, result: [string[], string]) => void) => {
              completer(line).then(
                (candidates) => callback(null, [candidates.map(stripControl), line]),
                () => callback(null, [[], line]),
              );
            },
          }
        : {}),
    });
    this.#rl.on("line", (line) => this.#push(line));
    // Lines still queued are answers: they are handed out before the open questions get "no input".
    this.#rl.on("close", () => {
      this.#ended = true;
      this.#deliverSoon();
    });
    // At a TTY, readline owns Ctrl-C; piped, the signal arrives as SIGINT.
    this.#rl.on("SIGINT", () => this.#interruptHandler());
    if (!this.interactive) process.on("SIGINT", () => this.#interruptHandler());
  }

  /** Ctrl-C: the host decides whether it cancels work, a question, clears the line or exits. */
  set oninterrupt(handler: () => void) {
    this.#interruptHandler = handler;
  }

  /** How many questions are open (the chat's own prompt included). */
  get openQuestions(): number {
    return this.#questions.length;
  }

  /**
   * The next line of input after showing `prompt` (untrusted text is stripped); null when input has
   * ended, the signal aborts, or the question is cancelled.
   */
  ask(prompt: string, options: { style?: Style; signal?: AbortSignal } = {}): Promise<string | null> {
    const shown = this.#styled(stripControl(prompt), options.style);
    if (options.signal?.aborted) return Promise.resolve(null);
    this.#ensureLineStart();
    const queued = this.#lines.shift();
    if (queued !== undefined) {
      // Typed ahead: show which question the line answers.
      this.#chatter.write(`${shown}${queued}\n`);
      return Promise.resolve(queued);
    }
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      const question: Question = {
        prompt: shown,
        resolve: (line) => {
          options.signal?.removeEventListener("abort", abandon);
          resolve(line);
        },
      };
      const abandon = () => this.#withdraw(question);
      options.signal?.addEventListener("abort", abandon, { once: true });
      this.#questions.push(question);
      this.#show(question);
    });
  }

  /** A yes/no question; anything but y/yes is no, and null is the input ending unanswered. */
  async confirm(question: string, signal?: AbortSignal): Promise<boolean | null> {
    const answer = await this.ask(`${question} [y/N] `, { style: "yellow", signal });
    if (answer === null && this.#ended && !signal?.aborted) return null;
    return /^\s*y(es)?\s*$/i.test(answer ?? "");
  }

  /** Withdraws the newest question (Ctrl-C while a server's question is open): it gets no answer. */
  cancelNewestQuestion(): void {
    const newest = this.#questions.at(-1);
    if (newest) this.#withdraw(newest);
  }

  /** Clears whatever the user has typed at the prompt (Ctrl-C on a non-empty line). */
  clearLine(): void {
    if (this.interactive) this.#eraseInput();
  }

  get currentLine(): string {
    return this.interactive ? this.#rl.line : "";
  }

  /** One whole line of (untrusted) text, optionally styled. At a TTY, an open prompt is redrawn below it. */
  print(text: string, style?: Style): void {
    const redraw = this.interactive && this.#questions.length > 0;
    if (redraw) this.#chatter.write(CLEAR_LINE);
    else this.#ensureLineStart();
    this.#chatter.write(`${this.#styled(stripControl(text), style)}\n`);
    if (redraw) this.#rl.prompt(true);
    this.#log?.info(stripControl(text));
  }

  /** A line for stderr (a server's own output), keeping an open prompt intact at a TTY. */
  printError(text: string): void {
    const redraw = this.interactive && this.#questions.length > 0;
    if (redraw) this.#chatter.write(CLEAR_LINE);
    // A server's own words: bounded, in case nothing reads our stderr.
    ownStderr().write(`${stripControl(text)}\n`);
    this.#log?.info(stripControl(text));
    if (redraw) this.#rl.prompt(true);
  }

  /** Streamed text, as it arrives. */
  write(text: string): void {
    const safe = stripControl(text);
    if (safe === "") return;
    this.#output.write(safe);
    this.#atLineStart = safe.endsWith("\n");
  }

  close(): void {
    this.#ended = true;
    this.#rl.close();
  }

  #styled(text: string, style: Style | undefined): string {
    return this.#color && style ? `\u001b[${STYLES[style]}m${text}\u001b[0m` : text;
  }

  #show(question: Question): void {
    const previous = this.#shown;
    this.#shown = question;
    if (this.interactive) {
      // A half-typed answer stays with its own question, not with the one that interrupted it.
      if (previous && previous !== question && this.#rl.line !== "") {
        previous.draft = this.#rl.line;
        this.#eraseInput();
      }
      this.#rl.setPrompt(question.prompt);
      this.#rl.prompt();
      if (question.draft) {
        this.#rl.write(question.draft);
        question.draft = undefined;
      }
    } else {
      this.#ensureLineStart();
      this.#chatter.write(question.prompt);
      this.#atLineStart = false;
    }
  }

  #withdraw(question: Question): void {
    const index = this.#questions.indexOf(question);
    if (index === -1) return;
    const newest = index === this.#questions.length - 1;
    this.#questions.splice(index, 1);
    if (this.interactive && newest) this.#chatter.write(CLEAR_LINE);
    question.resolve(null);
    if (newest) {
      this.#shown = undefined;
      this.#deliverSoon();
    }
  }

  /** Readline's own keys: to the end of the line, then delete everything before the cursor. */
  #eraseInput(): void {
    this.#rl.write(null, { ctrl: true, name: "e" });
    this.#rl.write(null, { ctrl: true, name: "u" });
  }

  #ensureLineStart(): void {
    if (!this.#atLineStart) this.#chatter.write("\n");
    this.#atLineStart = true;
  }

  #push(line: string): void {
    this.#lines.push(line);
    this.#deliverSoon();
  }

  /**
   * Hands queued lines to the newest question, one per turn of the event loop: lines pasted or
   * piped together arrive in one tick, and the code that got an answer must be able to ask its next
   * question (a form's next field) before the following line is given to an older one.
   */
  #deliverSoon(): void {
    if (this.#delivering) return;
    this.#delivering = true;
    setImmediate(() => {
      this.#delivering = false;
      const top = this.#questions.at(-1);
      if (!top) return;
      if (this.#lines.length === 0) {
        if (!this.#ended) {
          if (top !== this.#shown) this.#show(top);
          return;
        }
        // Input is over: each open question, newest first, gets no answer.
        this.#questions.pop();
        this.#shown = undefined;
        this.#ensureLineStart();
        top.resolve(null);
        this.#deliverSoon();
        return;
      }
      if (top !== this.#shown) this.#show(top);
      this.#questions.pop();
      this.#shown = undefined;
      const line = this.#lines.shift()!;
      if (!this.interactive) this.#chatter.write(`${line}\n`);
      this.#atLineStart = true;
      top.resolve(line);
      this.#deliverSoon();
    });
  }
}
