#!/usr/bin/env node
// The smallest honest MCP server, for benchmarks: plain node, no SDK, no dependencies, so its own
// start-up is the floor a client can be measured against. It speaks both eras: `server/discover`
// (2026-07-28) and `initialize` (2025), then tools/list, tools/call (echo) and ping. It exits at the
// end of its stdin, after answering every line it read.
//   node bench/raw-server.mjs
// Env: RAW_SERVER_LEGACY=1 answers server/discover with -32601, like a 2025-only server.
import { createInterface } from "node:readline";

const MODERN = "2026-07-28";
const LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const SERVER_INFO = { name: "raw-bench-server", version: "1.0.0" };
// Its tools never change, so it may promise to say when they do (and mcp-daemon may cache the list).
const CAPABILITIES = { tools: { listChanged: true } };
const TOOLS = [
  {
    name: "echo",
    description: "Echoes the message back.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  },
];
const legacyOnly = process.env.RAW_SERVER_LEGACY === "1";

function answer(request) {
  const { method, params = {} } = request;
  switch (method) {
    case "server/discover":
      if (legacyOnly) return { error: { code: -32601, message: "Method not found" } };
      return {
        result: { supportedVersions: [MODERN], capabilities: CAPABILITIES, _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO } },
      };
    case "initialize":
      return {
        result: {
          protocolVersion: LEGACY.includes(params.protocolVersion) ? params.protocolVersion : LEGACY[0],
          capabilities: CAPABILITIES,
          serverInfo: SERVER_INFO,
        },
      };
    case "ping":
      return { result: {} };
    case "tools/list":
      return { result: { tools: TOOLS } };
    case "tools/call": {
      const args = params.arguments ?? {};
      if (params.name === "echo") return { result: { content: [{ type: "text", text: String(args.message ?? "") }] } };
      if (params.name === "add") return { result: { content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] } };
      return { result: { content: [{ type: "text", text: `unknown tool ${params.name}` }], isError: true } };
    }
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })}\n`);
    return;
  }
  // Notifications (initialized, cancelled) need no answer.
  if (message.id === undefined || typeof message.method !== "string") return;
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer(message) })}\n`);
});
