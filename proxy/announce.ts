// After a restart the client must learn that the lists may have changed, in the form its protocol
// era expects: plain list_changed notifications on 2025 revisions; on 2026-07-28 only on the
// subscriptions/listen streams that opted in to them, tagged with their subscription id.
import type { JsonObject, JsonRpcId, JsonRpcNotification, JsonRpcRequest } from "../lib/wire/jsonrpc.ts";
import { META_SUBSCRIPTION_ID } from "../lib/wire/protocol.ts";

export function startAnnouncements(
  capabilities: JsonObject,
  era: "legacy" | "modern" | "none",
  resent: { id: JsonRpcId; method: string; message: JsonRpcRequest }[],
): JsonRpcNotification[] {
  if (era === "none") return [];
  // tools always: the proxy itself declares tools.listChanged, for restart_server.
  const kinds = ["tools", ...["prompts", "resources"].filter((kind) => (capabilities[kind] as JsonObject | undefined)?.listChanged)];
  if (era === "legacy") return kinds.map((kind) => ({ jsonrpc: "2.0", method: `notifications/${kind}/list_changed` }));
  const listens = resent.filter((entry) => entry.method === "subscriptions/listen");
  return kinds.flatMap((kind) =>
    listens
      .filter((listen) => (listen.message.params?.notifications as JsonObject | undefined)?.[`${kind}ListChanged`])
      .map((listen) => ({
        jsonrpc: "2.0" as const,
        method: `notifications/${kind}/list_changed`,
        params: { _meta: { [META_SUBSCRIPTION_ID]: listen.id } },
      })),
  );
}
