// Our own requests over a channel, the one way the raw client, mcp-proxy and mcp-daemon send
// them: the correlator's peer sends each request on the channel, and a request we give up on is
// cancelled the channel's own way (2026-07-28 HTTP closes its stream) or with notifications/cancelled.
import type { MessageChannel } from "../transport/channel.ts";
import type { JsonRpcId, JsonRpcNotification } from "../wire/jsonrpc.ts";
import type { CorrelatorPeer } from "./correlator.ts";

/** "We no longer want the answer to `id`", as MCP says it. */
export function cancelled(id: JsonRpcId, reason: string): JsonRpcNotification {
  return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } };
}

/** The correlator's peer on `channel`. A cancellation that cannot be sent is dropped: the link is gone anyway. */
export function channelPeer(channel: MessageChannel): CorrelatorPeer {
  return {
    send: (request) => channel.send(request),
    cancel: (id, reason) => {
      if (channel.cancel?.(id)) return;
      channel.send(cancelled(id, reason)).catch(() => {});
    },
  };
}
