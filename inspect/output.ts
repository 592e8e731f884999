// mcp-inspect's output contract: one JSON envelope on stdout for machines (the default when
// stdout is not a terminal), readable text for people, and exit codes that never change.

import { EXIT, EXIT_NAMES } from "../lib/cli/exit-codes.ts";
import { McpError } from "../lib/client/raw-client.ts";
import { HttpStatusError, NetworkError } from "../lib/io/fetch.ts";
import { stripControl, terminalSafeJson } from "../lib/io/text.ts";

export { EXIT };

export interface Metadata {
  command: string;
  target: string;
  protocolVersion?: string;
  timestamp: string;
  durationMs: number;
}

/** A failure with the exit code it maps to. */
export class CommandError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Maps anything thrown while talking to a server onto the stable exit codes. */
export function classify(error: unknown, stderrTail?: string): CommandError {
  if (error instanceof CommandError) return error;
  const withStderr = (details: Record<string, unknown>) =>
    stderrTail?.trim() ? { ...details, serverStderr: stripControl(stderrTail.trim()) } : details;
  if (error instanceof McpError) {
    switch (error.kind) {
      case "timeout":
        return new CommandError(EXIT.timeout, error.message, withStderr({}));
      case "cancelled":
        return new CommandError(EXIT.interrupted, error.message);
      case "protocol":
        return new CommandError(EXIT.protocol, `the server answered with an error: ${error.message}`, { rpcError: error.rpc });
      case "transport":
        if (error.status === 401 || error.status === 403) {
          const explained = error.cause instanceof HttpStatusError && error.cause.explained;
          const hint = explained ? "" : ' (sign in with mcp-inspect auth, or pass --header "Authorization: Bearer <token>")';
          return new CommandError(EXIT.auth, `${error.message}${hint}`, { httpStatus: error.status });
        }
        return new CommandError(EXIT.connection, error.message, error.status ? { httpStatus: error.status } : {});
      case "closed":
        return new CommandError(EXIT.connection, `lost the server: ${error.message}`, withStderr({}));
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof NetworkError) return new CommandError(EXIT.connection, `cannot reach the server: ${message}`);
  // Our code tripping over a value the server sent is the server's malformed answer.
  if (error instanceof TypeError) return new CommandError(EXIT.protocol, `the server sent a malformed answer (${message})`);
  return new CommandError(EXIT.connection, message, withStderr({}));
}

export function successEnvelope(data: unknown, metadata: Metadata): string {
  return terminalSafeJson({ success: true, data, metadata });
}

export function errorEnvelope(error: CommandError, metadata: Metadata, data?: unknown): string {
  const envelope: Record<string, unknown> = {
    success: false,
    error: { code: EXIT_NAMES[error.exitCode] ?? "ERROR", message: error.message, details: { exitCode: error.exitCode, ...error.details } },
    metadata,
  };
  if (data !== undefined) envelope.data = data;
  return terminalSafeJson(envelope);
}

// Text for people. Everything the server wrote is stripped of control sequences first.
type Json = Record<string, unknown>;
const clean = (value: unknown) => stripControl(String(value ?? ""));

export function renderText(command: string, data: unknown): string {
  const value = (data ?? {}) as Json;
  switch (command) {
    case "list-tools":
      return list(value.tools, (tool) => `${clean(tool.name)}${signature(tool.inputSchema)}${describeLine(tool.description)}`, "no tools");
    case "list-resources":
      return list(
        value.resources,
        (r) => `${clean(r.uri)}  ${clean(r.name)}${r.mimeType ? ` (${clean(r.mimeType)})` : ""}${describeLine(r.description)}`,
        "no resources",
      );
    case "list-resource-templates":
      return list(
        value.resourceTemplates,
        (r) => `${clean(r.uriTemplate)}  ${clean(r.name)}${describeLine(r.description)}`,
        "no resource templates",
      );
    case "list-prompts":
      return list(value.prompts, (p) => `${clean(p.name)}${promptArgs(p.arguments)}${describeLine(p.description)}`, "no prompts");
    case "call-tool":
      // --detach prints the task, not a tool result.
      if (!Array.isArray(value.content)) return clean(JSON.stringify(data, null, 2));
      return (
        content(value.content) + (value.structuredContent ? `\nstructured: ${clean(JSON.stringify(value.structuredContent, null, 2))}` : "")
      );
    case "read-resource":
      return list(
        value.contents,
        (c) =>
          typeof c.text === "string"
            ? clean(c.text)
            : `[${clean(c.mimeType ?? "binary")}, ${String(c.blob ?? "").length} base64 chars] ${clean(c.uri)}`,
        "(empty)",
      );
    case "get-prompt":
      return list(value.messages, (m) => `${clean(m.role)}: ${content([m.content])}`, "(no messages)");
    case "complete": {
      const completion = (value.completion ?? {}) as Json;
      return list(
        (completion.values as unknown[] | undefined)?.map((v) => ({ v })),
        (item) => clean(item.v),
        "(no completions)",
      );
    }
    case "ping":
      return `pong (${value.roundTripMs} ms)`;
    default:
      return clean(JSON.stringify(data, null, 2));
  }
}

function list(items: unknown, line: (item: Json) => string, empty: string): string {
  if (!Array.isArray(items) || items.length === 0) return empty;
  return items.map((item) => line((item ?? {}) as Json)).join("\n");
}

function describeLine(description: unknown): string {
  return description ? `\n    ${clean(description).split("\n")[0]}` : "";
}

function signature(schema: unknown): string {
  const properties = ((schema ?? {}) as Json).properties as Json | undefined;
  const required = new Set((((schema ?? {}) as Json).required as string[] | undefined) ?? []);
  if (!properties) return "";
  const fields = Object.entries(properties).map(([name, field]) => {
    const type = ((field ?? {}) as Json).type;
    return `${clean(name)}${required.has(name) ? "" : "?"}: ${Array.isArray(type) ? type.join("|") : clean(type ?? "any")}`;
  });
  return `(${fields.join(", ")})`;
}

function promptArgs(args: unknown): string {
  if (!Array.isArray(args) || args.length === 0) return "";
  return `(${args.map((a: Json) => `${clean(a.name)}${a.required ? "" : "?"}`).join(", ")})`;
}

function content(blocks: unknown): string {
  if (!Array.isArray(blocks)) return "";
  return blocks
    .map((block: Json) => {
      switch (block?.type) {
        case "text":
          return clean(block.text);
        case "image":
        case "audio":
          return `[${block.type} ${clean(block.mimeType)}, ${String(block.data ?? "").length} base64 chars]`;
        case "resource": {
          const resource = (block.resource ?? {}) as Json;
          return `[resource ${clean(resource.uri)}]${typeof resource.text === "string" ? `\n${clean(resource.text)}` : ""}`;
        }
        case "resource_link":
          return `[link ${clean(block.uri)}]`;
        default:
          return clean(JSON.stringify(block));
      }
    })
    .join("\n");
}
