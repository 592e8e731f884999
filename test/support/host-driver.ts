// Drives the real mcp-host process as a user would: lines in on stdin, the transcript read back
// from stdout, Ctrl-C as SIGINT.

import { type Subprocess, spawn } from "bun";
import { NO_VENDOR_KEYS, ROOT, toolCommand, WAIT_GUARD_MS } from "./helpers.ts";

export const HOST = toolCommand("mcp-host.ts");

export class HostDriver {
  readonly child: Subprocess<"pipe", "pipe", "pipe">;
  stdout = "";
  stderr = "";
  /** Output before this index has been matched already. */
  #cursor = 0;
  /** Called after each chunk of output: the waits look again then, and only then. */
  #onoutput = new Set<() => void>();
  #ended = false;

  constructor(args: string[], env: Record<string, string> = {}) {
    const environment = { ...process.env, ...NO_VENDOR_KEYS, NO_COLOR: "1", ...env };
    this.child = spawn([...HOST, ...args], { cwd: ROOT, env: environment, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.#drain(this.child.stdout, (text) => (this.stdout += text)).then(() => {
      this.#ended = true;
      for (const look of this.#onoutput) look();
    });
    void this.#drain(this.child.stderr, (text) => (this.stderr += text));
  }

  send(...lines: string[]): void {
    for (const line of lines) this.child.stdin.write(`${line}\n`);
    this.child.stdin.flush();
  }

  /** Waits until the transcript (after what earlier waits consumed) matches; returns the match. */
  waitFor(pattern: RegExp | string, ms = WAIT_GUARD_MS): Promise<RegExpMatchArray> {
    const regex = typeof pattern === "string" ? new RegExp(escapeRegExp(pattern)) : pattern;
    return new Promise((resolve, reject) => {
      const finish = (outcome: () => void) => {
        clearTimeout(timer);
        this.#onoutput.delete(look);
        outcome();
      };
      const fail = (why: string) => {
        const rest = this.stdout.slice(this.#cursor);
        const detail = `\n--- transcript since last match ---\n${rest}\n--- stderr ---\n${this.stderr.slice(-2000)}`;
        finish(() => reject(new Error(`${why} waiting for ${regex}${detail}`)));
      };
      const look = () => {
        const match = this.stdout.slice(this.#cursor).match(regex);
        if (match) {
          this.#cursor += (match.index ?? 0) + match[0].length;
          finish(() => resolve(match));
        } else if (this.#ended) fail("the host closed its stdout");
      };
      const timer = setTimeout(() => fail(`still (after ${ms} ms)`), ms);
      this.#onoutput.add(look);
      look();
    });
  }

  interrupt(): void {
    this.child.kill("SIGINT");
  }

  async exit(ms = WAIT_GUARD_MS): Promise<number> {
    const timer = setTimeout(() => this.child.kill("SIGKILL"), ms);
    const code = await this.child.exited;
    clearTimeout(timer);
    return code;
  }

  async #drain(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      sink(decoder.decode(chunk, { stream: true }));
      for (const look of this.#onoutput) look();
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
