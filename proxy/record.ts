// `mcp-proxy --record FILE`: the session as the client saw it, one JSON line per message with its
// time and who sent it, after a first line that names the server (header values redacted: an
// Authorization header must not end up in a file that is passed around). The file is created
// 0600 and never opened through a link; past --record-max it stops growing and says so, last.
import { closeSync, constants, fchmodSync, openSync, writeSync } from "node:fs";
import type { ConsolaInstance } from "consola";
import type { Target } from "../lib/targets/target.ts";
import type { RawMessage } from "../lib/wire/jsonrpc.ts";
import { RECORDING_FORMAT } from "../lib/wire/protocol.ts";
import type { Result } from "../lib/wire/result.ts";

export const REDACTED = "[redacted]";

export type Sender = "client" | "server";

/** The server as the recording names it: the command, or the URL with its headers' names only. */
function described(target: Target): Record<string, unknown> {
  if (target.kind === "http")
    return { url: target.url, headers: Object.fromEntries(Object.keys(target.headers).map((name) => [name, REDACTED])) };
  return { command: target.command, args: target.args, env: Object.keys(target.env ?? {}) };
}

export class Recorder {
  #bytes = 0;
  #full = false;
  readonly #started = performance.now();

  private constructor(
    readonly file: string,
    private readonly fd: number,
    private readonly maxBytes: number,
    private readonly log: ConsolaInstance,
  ) {}

  /** Creates (or truncates) the file, refusing a link; the first line names the target. */
  static open(file: string, maxBytes: number, target: Target, log: ConsolaInstance): Result<Recorder> {
    let fd: number;
    try {
      fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      // A file that was there keeps its mode through O_TRUNC: a session is private whoever made the file.
      fchmodSync(fd, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ELOOP" ? "it is a symbolic link: not writing through it" : (code ?? (error as Error).message);
      return { ok: false, error: `cannot record to ${file} (${why})` };
    }
    const recorder = new Recorder(file, fd, maxBytes, log);
    recorder.#line({ recording: RECORDING_FORMAT, started: new Date().toISOString(), server: described(target) });
    return { ok: true, value: recorder };
  }

  /** One message as it passed; what is not JSON is kept as its text. */
  message(from: Sender, raw: RawMessage): void {
    if (this.#full) return;
    const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    const ms = Math.round((performance.now() - this.#started) * 1000) / 1000;
    this.#line({ at: new Date().toISOString(), ms, from, ...(message === undefined ? { text } : { message }) });
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Closed already.
    }
  }

  #line(entry: Record<string, unknown>): void {
    const line = `${JSON.stringify(entry)}\n`;
    const size = Buffer.byteLength(line);
    if (this.#bytes + size > this.maxBytes) {
      this.#full = true;
      const truncated = `the recording reached --record-max (${this.maxBytes} bytes)`;
      const stop = `${JSON.stringify({ at: new Date().toISOString(), truncated })}\n`;
      writeSync(this.fd, stop);
      this.log.warn(`${this.file} reached --record-max (${this.maxBytes} bytes): the rest of the session is not recorded`);
      return;
    }
    this.#bytes += size;
    writeSync(this.fd, line);
  }
}
