// The reference server's tools that answer from their arguments alone (and the ones about this
// process): what most tests call. Tools that ask the client something are in questions.ts.

import process from "node:process";
import { fromJsonSchema, type LoggingLevel, type McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import * as z from "zod";
import { waitMs } from "../../lib/io/reading.ts";
import { SLOW_TASK_INPUT, TASK_TOOL } from "./tasks.ts";

const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
// Typed loosely: the SDK's JSON Schema type does not know the 2026-07-28 x-mcp-header keyword.
const REGION_QUERY_SCHEMA = {
  type: "object",
  properties: { region: { type: "string", "x-mcp-header": "Region" }, query: { type: "string" } },
  required: ["region", "query"],
} as unknown as Parameters<typeof fromJsonSchema>[0];
/** Tools added by `grow`, kept for the whole process (2026-07-28 builds a server per request). */
const grownTools: string[] = [];

export const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

/** echo, add, fail, slow, slow_task, big, log, typed. */
export function registerBasicTools(server: McpServer): void {
  server.registerTool(
    "echo",
    { description: "Echo the message back", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => text(message),
  );

  server.registerTool(
    "add",
    {
      description: "Add two numbers",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } }),
  );

  server.registerTool("fail", { description: "Always fails (isError)" }, async () => ({
    ...text("fail: requested failure"),
    isError: true,
  }));

  server.registerTool(
    "slow",
    {
      description: "Takes steps*delayMs; reports progress; honours cancellation",
      inputSchema: z.object({
        steps: z.number().int().min(0).default(5),
        delayMs: z.number().int().min(0).default(100),
      }),
    },
    async ({ steps, delayMs }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      const signal = ctx.mcpReq.signal;
      let done = 0;
      for (let i = 1; i <= steps; i++) {
        await waitMs(delayMs, signal);
        if (signal.aborted) break;
        done = i;
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` },
          });
        }
      }
      if (signal.aborted) {
        // Visible to tests that check the cancellation reached the server.
        process.stderr.write(`slow: cancelled after ${done} steps\n`);
        return text(`cancelled after ${done} steps`);
      }
      return text(`done ${steps} steps`);
    },
  );

  // Listed here; its calls and tasks/* are answered by tasks.ts before the SDK sees them.
  const slowTask = server.registerTool(
    TASK_TOOL,
    {
      description: "Like slow, but runs only as a task: steps*delayMs, each step in the task's statusMessage; tasks/cancel stops it",
      inputSchema: SLOW_TASK_INPUT,
    },
    async () => ({ ...text(`${TASK_TOOL} runs only as a task`), isError: true }),
  );
  // registerTool has no `execution` option (v2 dropped tasks); 2025 clients read it from tools/list.
  slowTask.execution = { taskSupport: "required" };

  server.registerTool(
    "big",
    {
      description: "Returns one text content of exactly `bytes` 'x' characters",
      inputSchema: z.object({ bytes: z.number().int().min(0) }),
    },
    async ({ bytes }) => text("x".repeat(bytes)),
  );

  server.registerTool(
    "log",
    {
      description: "Sends a notifications/message log entry, then returns 'logged'",
      inputSchema: z.object({ level: z.string(), message: z.string() }),
    },
    async ({ level, message }, ctx) => {
      const lvl = (LOG_LEVELS.includes(level) ? level : "info") as LoggingLevel;
      await ctx.mcpReq.log(lvl, message, "reference");
      return text("logged");
    },
  );

  server.registerTool(
    "typed",
    {
      description: "Returns its arguments as JSON (argument coercion tests)",
      inputSchema: z.object({
        code: z.string(),
        count: z.number().int(),
        ratio: z.number().optional(),
        flag: z.boolean().optional(),
        tags: z.array(z.string()).optional(),
        nested: z.object({ x: z.number().int() }).optional(),
      }),
    },
    async (args) => text(JSON.stringify(args)),
  );
}

/**
 * The tools `grow` has added so far, then `grow` itself. The tool list changes at run time;
 * list_changed tells clients (registerTool announces it on stdio and 2025 sessions; 2026-07-28 HTTP
 * publishes on the handler's listen bus through `publishToolsChanged`).
 */
export function registerGrowTool(server: McpServer, publishToolsChanged?: () => void): void {
  for (const name of grownTools) server.registerTool(name, { description: "Added by grow" }, async () => text(name));
  server.registerTool("grow", { description: "Adds a tool named grown_<n> and announces the new tool list" }, async () => {
    const name = `grown_${grownTools.length + 1}`;
    grownTools.push(name);
    server.registerTool(name, { description: "Added by grow" }, async () => text(name));
    publishToolsChanged?.();
    return text(`added ${name}`);
  });
}

/** 2026-07-28 HTTP mirrors `region` into an Mcp-Param-Region header; the SDK server checks it. */
export function registerRegionQueryTool(server: McpServer): void {
  server.registerTool(
    "region_query",
    {
      description: "Returns region:query; its region travels in the Mcp-Param-Region header over HTTP",
      inputSchema: lazyJsonSchema<{ region: string; query: string }>(REGION_QUERY_SCHEMA),
    },
    async ({ region, query }) => text(`${region}:${query}`),
  );
}

/**
 * fromJsonSchema, compiled on the first call instead of at registration: compiling the validator
 * took ~10 ms of every server start (and of every 2026-07-28 HTTP request, which builds a server).
 */
function lazyJsonSchema<T>(schema: Parameters<typeof fromJsonSchema>[0]): StandardSchemaWithJSON<T, T> {
  let compiled: StandardSchemaWithJSON<T, T>["~standard"] | undefined;
  const standard = () => (compiled ??= fromJsonSchema<T>(schema)["~standard"]);
  return {
    "~standard": {
      version: 1,
      vendor: "mcp",
      jsonSchema: { input: () => schema, output: () => schema },
      validate: (data) => standard().validate(data),
    },
  } as StandardSchemaWithJSON<T, T>;
}

/** Process identity and death, for tests of persistent connections and reconnects. */
export function registerProcessTools(server: McpServer): void {
  server.registerTool("whoami", { description: "Returns this server process's pid" }, async () => text(String(process.pid)));
  server.registerTool("crash", { description: "Exits the server process with code 7 right after answering" }, async () => {
    setTimeout(() => process.exit(7), 20);
    return text("crashing");
  });
}
