// The one channel abstraction: a bidirectional message pipe to one peer (a stdio child, an HTTP
// session, a daemon session), with bounded buffers both ways. Errors about single bad messages
// go to onerror and the channel lives on; onclose fires once. `openChannel` is the one way every
// tool turns a target into a channel.
import type { LineStream, MessageHead } from "../wire/cut-through.ts";
import type { JsonRpcId, JsonRpcMessage, RawMessage } from "../wire/jsonrpc.ts";
import type { PieceWriter } from "../wire/line-writer.ts";

export interface CloseOptions {
  /** A signal is ending us: the whole shutdown (stdin, SIGTERM, SIGKILL) fits in well under a second. */
  quick?: boolean;
  /** A stdio server's time to exit once its stdin closes, before it is signalled (mcp-inspect test measures it). */
  stdinGraceMs?: number;
}

export interface MessageChannel {
  /** `raw` is the message exactly as it arrived (text or bytes), for forwarders that pass bytes through. */
  onmessage?: (message: JsonRpcMessage, raw?: RawMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: string) => void;
  /** The channel waits for a person (true: a sign-in in the browser), or no longer (false): requests' timers hold meanwhile. */
  onuserwait?: (waiting: boolean) => void;
  /** Room again after `hasRoom` was false. */
  ondrain?: () => void;
  /**
   * Cut-through (forwarders, stdio only): a message past HOLD_BYTES, with what its first bytes say;
   * a stream takes the rest as it comes, undefined has it held whole (and then in onmessage).
   */
  onlong?: (head: MessageHead) => LineStream | undefined;
  /** Cut-through: one message written in pieces as they come (sends meanwhile wait); undefined when it cannot. */
  openLine?(): PieceWriter | undefined;
  start(): Promise<void>;
  /** With `raw`, those exact bytes are sent (forwarding); otherwise the message is serialized. */
  send(message: JsonRpcMessage, raw?: RawMessage): Promise<void>;
  /** Cancels a request the transport's own way, if it has one; false means "send notifications/cancelled". */
  cancel?(id: JsonRpcId): boolean;
  /** Idempotent. */
  close(options?: CloseOptions): Promise<void>;
  /** Backpressure, inbound: stop reading from the peer while a consumer downstream is slow. */
  pause?(): void;
  resume?(): void;
  /**
   * Backpressure, outbound: false while the writer's bound (CHANNEL_BUFFER_BYTES; FORWARD_BUFFER_BYTES in a forwarder)
   * waits to reach the peer (see ondrain).
   */
  readonly hasRoom?: boolean;
}

/** A message from the peer that could not be delivered; the channel lives on. */
export class DroppedLineError extends Error {
  constructor(
    readonly kind: "oversize" | "invalid-utf8" | "not-json-rpc",
    message: string,
    /** For an oversize message: its first and last bytes (see idFromEdges). */
    readonly head = "",
    readonly tail = "",
  ) {
    super(message);
  }
}
