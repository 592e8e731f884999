// Any lib message channel (stdio child, HTTP session, daemon session) as an SDK Transport, structurally: start,
// send, close and the three hooks. lib/ does not import the SDK, so the shapes are typed loosely.
import type { MessageChannel } from "../lib/transport/channel.ts";
import type { JsonRpcMessage } from "../lib/wire/jsonrpc.ts";

export class ChannelTransport {
  // deno-lint-ignore no-explicit-any
  onmessage?: (message: any) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly channel: MessageChannel;

  constructor(channel: MessageChannel) {
    this.channel = channel;
    channel.onmessage = (message) => this.onmessage?.(message);
    channel.onerror = (error) => this.onerror?.(error);
    channel.onclose = () => this.onclose?.();
  }

  start(): Promise<void> {
    return this.channel.start();
  }

  send(message: unknown): Promise<void> {
    // A transport with its own way to cancel (2026-07-28 HTTP closes the request's stream) uses it.
    const cancelled = message as { method?: string; params?: { requestId?: unknown } };
    if (cancelled.method === "notifications/cancelled" && this.channel.cancel) {
      const id = cancelled.params?.requestId;
      if ((typeof id === "string" || typeof id === "number") && this.channel.cancel(id)) return Promise.resolve();
    }
    return this.channel.send(message as JsonRpcMessage);
  }

  close(): Promise<void> {
    return this.channel.close();
  }
}
