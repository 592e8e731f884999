// `mcp-proxy serve` as the tests start it, and raw HTTP as a client without an SDK sends it.
import { expect } from "bun:test";
import { Client, type ClientOptions, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { spawn } from "bun";
import { INITIALIZE, REFERENCE_CMD, ROOT, toolCommand, WAIT_GUARD_MS } from "./helpers.ts";

const PROXY = toolCommand("mcp-proxy.ts");

export interface Served {
  url: string;
  child: ReturnType<typeof spawn>;
  /** Everything serve wrote on stderr so far. */
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Every serve started and not stopped yet (stopServing() ends them, for an afterEach). */
export const running: Served[] = [];

export async function stopServing(): Promise<void> {
  await Promise.all(running.splice(0).map((served) => served.stop()));
}

/** Starts `mcp-proxy serve FLAGS -- SERVER` and waits for its `listening <url>` line. */
export async function serve(
  flags: string[],
  server: string[] = [...REFERENCE_CMD],
  env: Record<string, string> = {},
  proxy: string[] = PROXY,
): Promise<Served> {
  const child = spawn([...proxy, "serve", ...flags, "--", ...server], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const listening = Promise.withResolvers<string>();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr as ReadableStream<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      const match = /^listening (http:\/\/\S+)$/m.exec(text);
      if (match) listening.resolve(match[1]!);
    }
    listening.reject(new Error(`serve exited before listening:\n${text}`));
  })();
  const guard = setTimeout(() => child.kill("SIGKILL"), WAIT_GUARD_MS);
  const url = await listening.promise.finally(() => clearTimeout(guard));
  const served: Served = {
    url,
    child,
    stderr: () => text,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return child.exited;
    },
  };
  running.push(served);
  return served;
}

/** A raw JSON-RPC POST, as an HTTP client without an SDK would send it. */
export function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof message === "string" ? message : JSON.stringify(message),
  });
}

/** The JSON-RPC message of a response, whether JSON or one SSE event carrying it. */
export async function answerOf(response: Response): Promise<any> {
  const body = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(body);
  const data = body
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.includes('"id"'))
    .map((line) => JSON.parse(line.slice(6)));
  return data.find((message) => "result" in message || "error" in message);
}

/** Opens a 2025 session by hand: its id. */
export async function openSession(url: string): Promise<string> {
  const opened = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE() });
  expect(opened.status).toBe(200);
  const id = opened.headers.get("mcp-session-id")!;
  expect((await answerOf(opened)).result.protocolVersion).toBe("2025-11-25");
  const initialized = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id });
  expect(initialized.status).toBe(202);
  return id;
}

export const MODERN = "2026-07-28";
/** Every SDK client connected and not closed yet (closeClients() closes them, for an afterEach). */
export const clients: Client[] = [];

/** For an afterEach: closes every client sdkClient() connected. */
export async function closeClients(): Promise<void> {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
}

/** An SDK client that answers sampling, elicitation and roots with answers of its own (`who`). */
export async function sdkClient(url: string, era: "legacy" | "modern", who = "Ann"): Promise<{ client: Client; notes: string[] }> {
  const options: ClientOptions = { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } };
  if (era === "modern") options.versionNegotiation = { mode: { pin: MODERN } };
  const client = new Client({ name: `serve-test-${who}`, version: "0" }, options);
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    content: { type: "text", text: `sampled for ${who}` },
    model: "test-model",
  }));
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: who } }));
  client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: `file:///tmp/${who}`, name: who }] }));
  const notes: string[] = [];
  client.setNotificationHandler("notifications/tools/list_changed", () => void notes.push("tools/list_changed"));
  client.setNotificationHandler("notifications/message", (n) => void notes.push(`log ${String(n.params.data)}`));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return { client, notes };
}

export const text = (result: { content?: unknown }) => (result.content as { type: string; text: string }[])[0]!.text;
export const whoami = async (client: Client) => text(await client.callTool({ name: "whoami", arguments: {} }));
