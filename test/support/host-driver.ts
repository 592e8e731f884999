// Drives the real mcp-host process as a user would: lines in on stdin, the transcript read back
// from stdout, Ctrl-C as SIGINT.

import { join } from "node:path";
import { type Subprocess, spawn } from "bun";
import { BUN, NO_VENDOR_KEYS, ROOT } from "./helpers.ts";

export const HOST = join(ROOT, "mcp-host.ts");
const DEFAULT_WAIT_MS = 15_000;

export class HostDriver {
  readonly child: Subprocess<"pipe", "pipe", "pipe">;
  stdout = "";
  stderr = "";
  /** Output before this index has been matched already. */
  #cursor = 0;

  constructor(args: string[], env: Record<string, string> = {}) {
    const environment = { ...process.env, ...NO_VENDOR_KEYS, NO_COLOR: "1", ...env };
    this.child = spawn([BUN, HOST, ...args], { cwd: ROOT, env: environment, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.#drain(this.child.stdout, (text) => (this.stdout += text));
    void this.#drain(this.child.stderr, (text) => (this.stderr += text));
  }

  send(...lines: string[]): void {
    for (const line of lines) this.child.stdin.write(`${line}\n`);
    this.child.stdin.flush();
  }

  /** Waits until the transcript (after what earlier waits consumed) matches; returns the match. */
  async waitFor(pattern: RegExp | string, ms = DEFAULT_WAIT_MS): Promise<RegExpMatchArray> {
    const regex = typeof pattern === "string" ? new RegExp(escapeRegExp(pattern)) : pattern;
    const deadline = Date.now() + ms;
    for (;;) {
      const rest = this.stdout.slice(this.#cursor);
      const match = rest.match(regex);
      if (match) {
        this.#cursor += (match.index ?? 0) + match[0].length;
        return match;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${regex}\n--- transcript since last match ---\n${rest}\n--- stderr ---\n${this.stderr.slice(-2000)}`,
        );
      }
      await Bun.sleep(10);
    }
  }

  interrupt(): void {
    this.child.kill("SIGINT");
  }

  async exit(ms = DEFAULT_WAIT_MS): Promise<number> {
    const timer = setTimeout(() => this.child.kill("SIGKILL"), ms);
    const code = await this.child.exited;
    clearTimeout(timer);
    return code;
  }

  async #drain(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) sink(decoder.decode(chunk, { stream: true }));
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
