// The reference server's resources, its resource template, and their subscriptions.

import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import * as z from "zod";
import { text } from "./tools.ts";

const ITEM_IDS = ["item-1", "item-2", "item-3", "item-4", "item-5"];
// 1x1 transparent PNG.
const PIXEL_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** ref://hello, ref://data.json, ref://pixel.png and the template ref://items/{id} (its id completes). */
export function registerResources(server: McpServer): void {
  server.registerResource("hello", "ref://hello", { mimeType: "text/plain", description: "A greeting" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "Hello, world" }],
  }));

  server.registerResource("data", "ref://data.json", { mimeType: "application/json", description: "Some JSON" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ name: "mcpkit", items: [1, 2, 3] }) }],
  }));

  server.registerResource("pixel", "ref://pixel.png", { mimeType: "image/png", description: "A 1x1 PNG (blob)" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "image/png", blob: PIXEL_PNG_BASE64 }],
  }));

  server.registerResource(
    "item",
    new ResourceTemplate("ref://items/{id}", {
      list: undefined,
      complete: { id: (value) => ITEM_IDS.filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain", description: "An item by id" },
    async (uri, vars) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `Item ${String(vars.id)}` }] }),
  );
}

/**
 * 2025-era resources/subscribe + unsubscribe (2026-07-28 uses subscriptions/listen, served by the
 * entry), and the `touch` tool that fires notifications/resources/updated: on 2025 only for a
 * subscribed URI (over HTTP it travels on the session's GET stream); on 2026-07-28 to every open
 * subscriptions/listen stream whose filter names the URI (stdio: the entry's listen router; HTTP:
 * the handler's bus, through `publishResourceUpdated`).
 */
export function registerSubscriptions(server: McpServer, era: "legacy" | "modern", publishResourceUpdated?: (uri: string) => void): void {
  const subscribed = new Set<string>();
  server.registerTool(
    "touch",
    {
      description: "Emits notifications/resources/updated for uri (subscriptions)",
      inputSchema: z.object({ uri: z.string().default("ref://hello") }),
    },
    async ({ uri }) => {
      if (publishResourceUpdated) publishResourceUpdated(uri);
      else if (era === "modern" || subscribed.has(uri)) await server.server.sendResourceUpdated({ uri });
      return text(`touched ${uri}`);
    },
  );
  server.server.setRequestHandler("resources/subscribe", async (req) => {
    subscribed.add(req.params.uri);
    return {};
  });
  server.server.setRequestHandler("resources/unsubscribe", async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });
}
