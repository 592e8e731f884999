// `mcp-inspect mcp`: a stdio MCP server whose tools inspect one target server, its tasks included.
// The target is reached through ONE connection kept across calls (so a stateful server keeps its state),
// opened on first use and reopened when the target dies. Its own tools are reachable only
// through call_tool, never re-exported. stdout carries protocol bytes only.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { McpError } from "../lib/client/raw-client.ts";
import { SessionExpiredError } from "../lib/io/fetch.ts";
import { createLogger } from "../lib/io/log.ts";
import { onExitSignals } from "../lib/io/signals.ts";
import { wholeLines } from "../lib/io/whole-lines.ts";
import { describeTarget, type Target } from "../lib/targets/target.ts";
import { oversizeRefusal } from "../lib/wire/json-scan.ts";
import { serializeMessage } from "../lib/wire/jsonrpc.ts";
import { MAX_MESSAGE_BYTES } from "../lib/wire/limits.ts";
import * as operations from "./operations.ts";
import { classify } from "./output.ts";
import { type Call, openSession, type Session, type SessionOptions } from "./session.ts";
import type { TaskMode } from "./tasks.ts";

/** The options of each session to the target, as a one-shot command takes them. */
export type InspectorOptions = SessionOptions;

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };

/** The persistent link to the target: connected lazily, replaced after the target dies. */
class TargetLink {
  #session?: Promise<Session>;

  constructor(
    readonly target: Target,
    readonly options: InspectorOptions,
  ) {}

  async run<T>(work: (call: Call) => Promise<T>): Promise<T> {
    const session = await this.#current();
    try {
      return await session.run(work);
    } catch (error) {
      if (!(error instanceof McpError) || (error.kind !== "transport" && error.kind !== "closed")) throw error;
      // The connection itself failed: the next call starts a fresh one. A session the HTTP
      // server forgot was never acted on, so this call may safely go again at once.
      this.#drop(session);
      if (!(error.cause instanceof SessionExpiredError)) throw error;
      return (await this.#current()).run(work);
    }
  }

  /** Concurrent callers share one connection attempt; a failed or dead one is replaced once. */
  #current(): Promise<Session> {
    this.#session ??= this.#open();
    const attempt = this.#session;
    return attempt.then(
      (session) => {
        if (!session.closed) return session;
        this.#drop(session);
        return this.#current();
      },
      (error) => {
        if (this.#session === attempt) this.#session = undefined;
        throw error;
      },
    );
  }

  async #open(): Promise<Session> {
    const session = await openSession(this.target, this.options);
    try {
      await session.connect();
    } catch (error) {
      void session.close();
      throw error;
    }
    return session;
  }

  #drop(session: Session): void {
    void this.#session?.then(
      (current) => {
        if (current === session) this.#session = undefined;
      },
      () => {},
    );
    void session.close();
  }

  async close(): Promise<void> {
    const session = await this.#session?.catch(() => undefined);
    await session?.close();
  }
}

/** Serves until our client leaves; resolves with the exit code. */
export async function serveInspector(target: Target, options: InspectorOptions): Promise<number> {
  const log = createLogger({ level: options.logLevel ?? "warn", file: options.logFile, tag: "mcp-inspect mcp" });
  const link = new TargetLink(target, options);
  const name = describeTarget(target);

  /** Runs one inspection; failures become isError results that say what went wrong. */
  const inspect = async (work: (call: Call) => Promise<unknown>): Promise<ToolResult> => {
    try {
      const data = await link.run(work);
      return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }] };
    } catch (error) {
      const failure = classify(error);
      return { content: [{ type: "text", text: `error: ${failure.message}` }], isError: true };
    }
  };

  /** A tool result passes through as the server gave it; anything else (a detached task) as JSON text. */
  const asToolResult = async (work: () => Promise<Record<string, unknown>>): Promise<ToolResult> => {
    try {
      const data = await work();
      return Array.isArray(data.content) ? (data as ToolResult) : { content: [{ type: "text", text: JSON.stringify(data, null, 2) }] };
    } catch (error) {
      return { content: [{ type: "text", text: `error: ${classify(error).message}` }], isError: true };
    }
  };

  const factory = () => {
    const server = new McpServer(
      { name: "mcp-inspect", version: options.version },
      {
        instructions: `Inspection tools for the MCP server ${name}. Its own tools are reached through call_tool.`,
        capabilities: { tools: {} },
      },
    );
    const readOnly = { readOnlyHint: true, openWorldHint: false };
    // Each tool runs the operation the CLI command of that name runs (inspect/operations.ts).
    server.registerTool("list_tools", { description: `List the tools of ${name}`, annotations: readOnly }, () =>
      inspect(operations.listTools),
    );
    server.registerTool(
      "call_tool",
      {
        description: `Call a tool of ${name} and return its result as the server gave it (a tool that requires a task runs as one)`,
        inputSchema: z.object({
          name: z.string().describe("tool name"),
          arguments: z.record(z.string(), z.unknown()).optional().describe("tool arguments"),
          task: z.boolean().optional().describe("run it as a task and wait for its result"),
          detach: z
            .boolean()
            .optional()
            .describe("run it as a task and return the task (its taskId) at once, for get_task, get_task_result and cancel_task"),
        }),
      },
      async ({ name: tool, arguments: args, task, detach }) => {
        const mode: TaskMode = detach ? "detach" : task ? "wait" : "auto";
        // The link outlives each call: a task it leaves running can be followed by a later one.
        const input = { name: tool, base: args ?? {}, pairs: [], validate: false, mode, lasting: true };
        return asToolResult(() => link.run((call) => operations.callTool(call, input)));
      },
    );
    const taskId = z.object({ taskId: z.string().describe("the task's id (from call_tool with detach)") });
    server.registerTool(
      "get_task",
      { description: `Show the state of a task on ${name}`, inputSchema: taskId, annotations: readOnly },
      ({ taskId: id }) => inspect((call) => operations.followTask(call, { action: "get", taskId: id })),
    );
    server.registerTool(
      "get_task_result",
      {
        description: `Wait for a task on ${name} to end and return its result as the server gave it`,
        inputSchema: taskId,
        annotations: readOnly,
      },
      ({ taskId: id }) => asToolResult(() => link.run((call) => operations.followTask(call, { action: "result", taskId: id }))),
    );
    server.registerTool("cancel_task", { description: `Cancel a task on ${name}`, inputSchema: taskId }, ({ taskId: id }) =>
      inspect((call) => operations.followTask(call, { action: "cancel", taskId: id })),
    );
    server.registerTool("list_resources", { description: `List the resources of ${name}`, annotations: readOnly }, () =>
      inspect(operations.listResources),
    );
    server.registerTool(
      "list_resource_templates",
      { description: `List the resource templates of ${name} (URIs with {placeholders})`, annotations: readOnly },
      () => inspect(operations.listResourceTemplates),
    );
    server.registerTool(
      "read_resource",
      {
        description: `Read a resource of ${name}`,
        inputSchema: z.object({ uri: z.string().describe("resource URI") }),
        annotations: readOnly,
      },
      ({ uri }) => inspect((call) => operations.readResource(call, uri)),
    );
    server.registerTool("list_prompts", { description: `List the prompts of ${name}`, annotations: readOnly }, () =>
      inspect(operations.listPrompts),
    );
    server.registerTool(
      "get_prompt",
      {
        description: `Get a prompt of ${name}, filled in with string arguments`,
        inputSchema: z.object({ name: z.string().describe("prompt name"), arguments: z.record(z.string(), z.string()).optional() }),
        annotations: readOnly,
      },
      ({ name: prompt, arguments: args }) => inspect((call) => operations.getPrompt(call, { name: prompt, values: args ?? {} })),
    );
    server.registerTool(
      "complete",
      {
        description: `Ask ${name} to complete an argument of a prompt or a resource template (give prompt or resource)`,
        inputSchema: z.object({
          prompt: z.string().optional().describe("prompt name"),
          resource: z.string().optional().describe("resource template URI"),
          argument: z.object({ name: z.string(), value: z.string() }).describe("the argument being typed and its partial value"),
          context: z.record(z.string(), z.string()).optional().describe("arguments already resolved"),
        }),
        annotations: readOnly,
      },
      (input) => inspect((call) => operations.complete(call, operations.completionParams(input))),
    );
    server.registerTool(
      "get_server_info",
      { description: `Show the name, version, protocol revision and capabilities of ${name}`, annotations: readOnly },
      () => inspect(operations.serverInfo),
    );
    server.registerTool("ping", { description: `Check that ${name} answers`, annotations: readOnly }, () => inspect(operations.ping));
    return server;
  };

  // A message over the cap is dropped before the SDK sees it, answered when its id can be read, and the session goes on.
  const input = wholeLines(process.stdin, {
    maxLineBytes: MAX_MESSAGE_BYTES,
    onoversize: (dropped) => {
      log.warn(`dropped a ${dropped.bytes}-byte message from the client (over the ${MAX_MESSAGE_BYTES}-byte limit)`);
      const refusal = oversizeRefusal(dropped, MAX_MESSAGE_BYTES, "mcp-inspect");
      if (refusal) process.stdout.write(`${serializeMessage(refusal)}\n`);
    },
  });
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES + 1 });
  const handle = serveStdio(factory, { transport, onerror: (error) => log.debug(error.message) });
  // Our client leaving (stdin EOF) or a signal ends the inspector and the target with it.
  const code = await new Promise<number>((resolve) => {
    process.stdin.once("end", () => resolve(0));
    process.stdin.once("close", () => resolve(0));
    onExitSignals((_signal, exitCode) => resolve(exitCode));
  });
  await handle.close().catch(() => {});
  await link.close();
  return code;
}
