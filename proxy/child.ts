// The server process the proxy talks to now, one at a time. Each start is a new generation, so the
// messages and the close of a process that has since been replaced are told apart from the new
// one's; and the proxy's own requests go to it (the replayed handshake, a restart's tool lists),
// under ids of ours, their answers settled here and never passed to the client.
import { RequestCorrelator } from "../lib/client/correlator.ts";
import { channelPeer } from "../lib/client/peer.ts";
import type { CloseOptions, MessageChannel } from "../lib/transport/channel.ts";
import type { LineStream, MessageHead } from "../lib/wire/cut-through.ts";
import { completeMessage } from "../lib/wire/json-scan.ts";
import type { JsonObject, JsonRpcId, JsonRpcMessage, JsonRpcResponse, RawMessage } from "../lib/wire/jsonrpc.ts";
import { proxyIds } from "./in-flight.ts";

export class ServerChild {
  readonly #connect: () => Promise<MessageChannel>;
  #channel?: MessageChannel;
  #generation = 0;
  readonly #ownIds = proxyIds("own");
  readonly #own = new RequestCorrelator(() => this.#ownIds.next());
  /** A message from the current process (a replaced one's are dropped). */
  onmessage?: (message: JsonRpcMessage, raw: RawMessage | undefined) => void;
  /** A message from a process, the current one or not, that could not be delivered. */
  onerror?: (error: Error) => void;
  /** The current process went away on its own; the proxy's own requests to it have failed already. */
  onclose?: (reason: string) => void;
  /** A process has room for more input again (or a new one, with an empty pipe, started). */
  ondrain?: () => void;
  /** A long message from the current process, offered as a stream (cut-through). */
  onlong?: (head: MessageHead) => LineStream | undefined;

  constructor(connect: () => Promise<MessageChannel>) {
    this.#connect = connect;
  }

  /** The current process, if one runs. */
  get channel(): MessageChannel | undefined {
    return this.#channel;
  }

  get generation(): number {
    return this.#generation;
  }

  /** No process has run yet. */
  get neverStarted(): boolean {
    return this.#channel === undefined && this.#generation === 0;
  }

  /** Starts a new process; `closing` says whether the proxy closed meanwhile (then it is stopped again). */
  async start(closing: () => boolean): Promise<void> {
    const channel = await this.#connect();
    const generation = ++this.#generation;
    this.#channel = channel;
    channel.onmessage = (message, raw) => {
      if (generation === this.#generation) this.onmessage?.(message, raw);
    };
    channel.onerror = (error) => this.onerror?.(error);
    channel.onclose = (reason) => {
      if (generation !== this.#generation) return;
      this.onclose?.(reason ?? "the server went away");
    };
    channel.ondrain = () => this.ondrain?.();
    channel.onlong = (head) => (generation === this.#generation ? this.onlong?.(head) : undefined);
    // A new process has an empty pipe: whatever held the client back for the old one is over.
    this.ondrain?.();
    await channel.start();
    // The client may have left while the process started: it must not outlive us.
    if (closing()) {
      await channel.close().catch(() => {});
      throw new Error("the proxy is closing");
    }
  }

  /** Stops the current process; whatever it still sends is dropped. */
  async stop(options?: CloseOptions): Promise<void> {
    const channel = this.#channel;
    this.#channel = undefined;
    this.#generation++;
    await channel?.close(options).catch(() => {});
  }

  /** The proxy's own request to the current process. */
  request(method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject> {
    const channel = this.#channel;
    if (!channel) return Promise.reject(new Error("no server process"));
    return this.#own.request(channelPeer(channel), method, params, { timeoutMs });
  }

  /** Whether the proxy's own requests may be answered: one of theirs, or any of them while an id is still unknown. */
  awaits(id?: JsonRpcId): boolean {
    return id === undefined ? this.#own.size > 0 : this.#ownIds.owns(id);
  }

  /** Settles one of the proxy's own requests; false when `message` answers one of the client's. */
  settles(message: JsonRpcResponse, raw: RawMessage | undefined): boolean {
    if (!this.#ownIds.owns(message.id)) return false;
    this.#own.settle((raw === undefined ? message : completeMessage(message, raw)) as JsonRpcResponse);
    return true;
  }

  /** The proxy's own requests in flight fail now (the process is gone, or being replaced). */
  abandonRequests(reason: string): void {
    this.#own.rejectAll(reason);
  }

  /** The proxy is closing: its own requests fail, now and from now on. */
  closeRequests(reason: string): void {
    this.#own.close(reason);
  }
}
