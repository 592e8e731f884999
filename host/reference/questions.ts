// The reference server's tools that ask the client something: sampling, elicitation (form and URL,
// in a call and later on its own) and roots.
//
// In a call they are written once as multi-round-trip handlers: on 2026-07-28 the client fulfils
// the input_required result and retries; on 2025 connections the SDK's legacy shim turns them into
// real server->client requests (sampling/createMessage, elicitation/create, roots/list).

import process from "node:process";
import { inputRequired, inputResponse, type McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { text } from "./tools.ts";

/** sample, elicit, elicit_url, elicit_later. */
export function registerQuestionTools(server: McpServer, era: "legacy" | "modern"): void {
  server.registerTool(
    "sample",
    {
      description: "Asks the client to sample an LLM message; returns its text",
      inputSchema: z.object({ prompt: z.string().default("Say hello") }),
    },
    async ({ prompt }, ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, "sample");
      if (r.kind !== "sampling") {
        return inputRequired({
          inputRequests: {
            sample: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: prompt } }],
              maxTokens: 100,
            }),
          },
        });
      }
      const content = r.result.content;
      const blocks = Array.isArray(content) ? content : [content];
      const answer = blocks.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("");
      return text(answer);
    },
  );

  server.registerTool("elicit", { description: "Asks the client (user) for {name}; returns action + content as JSON" }, async (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "name");
    if (r.kind !== "elicit") {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: "What is your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          }),
        },
      });
    }
    return text(JSON.stringify({ action: r.action, content: r.content }));
  });

  server.registerTool(
    "elicit_url",
    {
      description: "Asks the client to open url (URL-mode elicitation); returns the action",
      inputSchema: z.object({ url: z.string().default("https://example.com/consent") }),
    },
    async ({ url }, ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, "visit");
      if (r.kind !== "elicit") {
        return inputRequired({ inputRequests: { visit: inputRequired.elicitUrl({ message: "Please confirm in your browser", url }) } });
      }
      return text(JSON.stringify({ action: r.action }));
    },
  );

  // A question the server asks on its own, later, while the client sits idle (2025 sessions only:
  // 2026-07-28 has no server->client requests outside a call). The answer comes back as a log message.
  server.registerTool(
    "elicit_later",
    {
      description:
        "Answers at once, then asks the user for {name} after delayMs (2025 era only); with wait, asks at once on the standalone " +
        "stream, outside the call, and answers with the reply",
      inputSchema: z.object({ delayMs: z.number().int().min(0).default(100), wait: z.boolean().default(false) }),
    },
    async ({ delayMs, wait }) => {
      if (era === "modern") return { ...text("elicit_later needs a 2025 session"), isError: true };
      // No related request: over HTTP the question goes on the session's GET stream, not the call's.
      const ask = () =>
        server.server.elicitInput({
          message: "A later question: your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        });
      if (wait) {
        const result = await ask();
        return text(`${result.action} ${JSON.stringify(result.content ?? {})}`);
      }
      setTimeout(() => {
        ask()
          .then((result) =>
            server.server.sendLoggingMessage({
              level: "info",
              logger: "later",
              data: `later: ${result.action} ${JSON.stringify(result.content ?? {})}`,
            }),
          )
          .catch((error) => process.stderr.write(`elicit_later: ${(error as Error).message}\n`));
      }, delayMs);
      return text("will ask later");
    },
  );
}

export function registerRootsTool(server: McpServer): void {
  server.registerTool("roots", { description: "Asks the client for its roots; returns them as JSON" }, async (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "roots");
    if (r.kind !== "roots") {
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    }
    return text(JSON.stringify(r.roots));
  });
}
