// The connection `mcp-inspect test` checks a server over: an inspect Session whose channel is
// tapped both ways, so the checks see what the raw client does not pass on (lines on stdout that
// are not JSON-RPC, progress and answers for a request already given up on) and how the server
// process ended.
import type { RawClient } from "../../lib/client/raw-client.ts";
import { type ChannelAuth, openChannel } from "../../lib/open.ts";
import type { Target } from "../../lib/targets/target.ts";
import { DroppedLineError, type MessageChannel } from "../../lib/transport/channel.ts";
import { StdioChannel } from "../../lib/transport/stdio.ts";
import type { JsonRpcMessage } from "../../lib/wire/jsonrpc.ts";
import { Session } from "../session.ts";
import { SHUTDOWN_GRACE_MS } from "./model.ts";

export interface Tapped {
  /** performance.now() when it passed. */
  at: number;
  direction: "in" | "out";
  message: JsonRpcMessage;
}

export interface ProbeOptions {
  version: string;
  timeoutMs: number;
  protocolVersion?: string;
  auth?: ChannelAuth;
}

export class Probe {
  /** Every message both ways, in order. */
  readonly messages: Tapped[] = [];
  /** What the server wrote that is not JSON-RPC (or not UTF-8), as the channel described it. */
  readonly junk: string[] = [];

  private constructor(
    readonly session: Session,
    readonly channel: MessageChannel,
  ) {}

  static async open(target: Target, options: ProbeOptions): Promise<Probe> {
    const channel = await openChannel(target, { auth: options.auth });
    const session = new Session(
      { version: options.version, timeoutMs: options.timeoutMs, protocolVersion: options.protocolVersion },
      channel,
    );
    const probe = new Probe(session, channel);
    probe.#tap();
    return probe;
  }

  get client(): RawClient {
    return this.session.client;
  }

  get stdio(): boolean {
    return this.channel instanceof StdioChannel;
  }

  /** Messages from the server that came after `since`. */
  inboundSince(since: number): JsonRpcMessage[] {
    return this.messages.filter((m) => m.direction === "in" && m.at > since).map((m) => m.message);
  }

  /**
   * Closes stdin and lets the server take up to SHUTDOWN_GRACE_MS to exit on its own, then signals
   * it. How it went: the ms it took, or undefined when it had to be signalled.
   */
  async shutdown(): Promise<{ exitedAfterMs?: number; exit?: { code: number | null; signal: string | null } }> {
    const started = performance.now();
    await this.channel.close({ stdinGraceMs: SHUTDOWN_GRACE_MS });
    const exit = this.channel instanceof StdioChannel ? this.channel.exit : undefined;
    const byItself = exit !== undefined && exit.signal === null;
    return { ...(byItself ? { exitedAfterMs: Math.round(performance.now() - started) } : {}), ...(exit ? { exit } : {}) };
  }

  #tap(): void {
    const channel = this.channel;
    const onmessage = channel.onmessage;
    channel.onmessage = (message, raw) => {
      this.messages.push({ at: performance.now(), direction: "in", message });
      onmessage?.(message, raw);
    };
    const onerror = channel.onerror;
    channel.onerror = (error) => {
      if (error instanceof DroppedLineError && error.kind !== "oversize") this.junk.push(error.message);
      onerror?.(error);
    };
    const send = channel.send.bind(channel);
    channel.send = (message, raw) => {
      this.messages.push({ at: performance.now(), direction: "out", message });
      return send(message, raw);
    };
  }
}
