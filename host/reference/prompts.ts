// The reference server's prompts: one with a completable argument, one with an assistant turn.

import { completable, type McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";

const NAMES = ["alice", "bob", "carol"];

/** greet (its `name` completes from NAMES) and review. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "greet",
    {
      description: "Greet someone",
      argsSchema: z.object({
        name: completable(z.string().describe("Who to greet"), (value) => NAMES.filter((n) => n.startsWith(value ?? ""))),
        style: z.string().optional().describe("formal or casual"),
      }),
    },
    ({ name, style }) => ({
      messages: [
        {
          role: "user" as const,
          content: { type: "text" as const, text: style === "formal" ? `Good day, ${name}.` : `Hello, ${name}!` },
        },
      ],
    }),
  );

  server.registerPrompt("review", { description: "Review some code", argsSchema: z.object({ code: z.string() }) }, ({ code }) => ({
    messages: [
      { role: "user" as const, content: { type: "text" as const, text: `Please review this code:\n\n${code}` } },
      { role: "assistant" as const, content: { type: "text" as const, text: "Looks good to me." } },
    ],
  }));
}
