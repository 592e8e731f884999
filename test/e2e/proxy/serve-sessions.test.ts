// `mcp-proxy serve`, its server side: who may call (Origin, Host, token), what bodies it takes, the
// 2025 sessions (answers as JSON or as an SSE stream, refusals, DELETE, --max-sessions,
// --session-idle, resuming an SSE stream), --watch restarting every client's server, and the
// compiled binary serving too. serve.test.ts has the clients.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { compiledTools } from "../../support/binary.ts";
import {
  alive,
  BUN,
  INITIALIZE,
  LinePeer,
  REFERENCE_CMD,
  REFERENCE_LINE,
  removeTempDirs,
  runTool,
  TEST_GUARD_MS,
  tempDir,
  until,
} from "../../support/helpers.ts";
import {
  answerOf,
  clients,
  closeClients,
  openSession,
  post,
  running,
  sdkClient,
  serve,
  stopServing,
  text,
  whoami,
} from "../../support/serve.ts";

afterEach(async () => {
  await closeClients();
  await stopServing();
});
afterAll(removeTempDirs);

/** A raw JSON-RPC stdio server with one tool, `env`, that answers with $SERVE_TOKEN as it sees it. */
const ENV_SERVER = `
const answer = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\\n")) !== -1) {
    const message = JSON.parse(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
    const { id, method, params } = message;
    const info = { name: "env", version: "1" };
    if (method === "initialize") answer(id, { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: info });
    else if (method === "tools/list") answer(id, { tools: [{ name: "env", inputSchema: { type: "object" } }] });
    else if (method === "tools/call") answer(id, { content: [{ type: "text", text: String(process.env.SERVE_TOKEN) }] });
    else if (id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: "no" } }) + "\\n");
  }
});
`;

/** A raw JSON-RPC stdio server that never answers a tools/call, and says on stderr that it holds one. */
const HOLDING_SERVER = `
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\\n")) !== -1) {
    const { id, method, params } = JSON.parse(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
    const answer = (result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
    const serverInfo = { name: "holding", version: "1" };
    if (method === "initialize") answer({ protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo });
    else if (method === "tools/call") process.stderr.write("holding " + id + "\\n");
    else if (id !== undefined) answer({});
  }
});
`;

describe("who may call", () => {
  test(
    "a foreign Origin or Host is refused with 403; the token is required when set and never reaches the server",
    async () => {
      const dir = tempDir();
      const server = join(dir, "env-server.ts");
      // A server that tells what its environment holds: the token's variable must not be there.
      writeFileSync(server, ENV_SERVER);
      const { url } = await serve(["--token-env", "SERVE_TOKEN", "--log-level", "warn"], [BUN, server], { SERVE_TOKEN: "s3cret" });
      const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE() };
      expect((await post(url, initialize)).status).toBe(401);
      expect((await post(url, initialize, { authorization: "Bearer wrong" })).status).toBe(401);
      const foreign = await post(url, initialize, { authorization: "Bearer s3cret", origin: "https://evil.example" });
      expect(foreign.status).toBe(403);
      const rebound = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          host: "evil.example",
          authorization: "Bearer s3cret",
        },
        body: JSON.stringify(initialize),
      });
      expect(rebound.status).toBe(403);

      const client = new Client({ name: "token", version: "0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer s3cret" } } }),
      );
      clients.push(client);
      expect(text(await client.callTool({ name: "env", arguments: {} }))).toBe("undefined");
    },
    TEST_GUARD_MS,
  );

  test(
    "a non-loopback --host without --token-env, an unset token variable, a bad --session-prefix, or an HTTP server is refused in one line",
    async () => {
      const open = await runTool("mcp-proxy.ts", ["serve", "--host", "0.0.0.0", "--", ...REFERENCE_CMD]);
      expect(open.code).not.toBe(0);
      expect(open.stderr).toContain("--token-env");
      expect(open.stderr.trim().split("\n")).toHaveLength(1);
      const unset = await runTool("mcp-proxy.ts", ["serve", "--token-env", "NO_SUCH_TOKEN_VAR", "--", ...REFERENCE_CMD]);
      expect(unset.code).not.toBe(0);
      expect(unset.stderr).toContain("NO_SUCH_TOKEN_VAR");
      const prefix = await runTool("mcp-proxy.ts", ["serve", "--session-prefix", "a.b", "--", ...REFERENCE_CMD]);
      expect(prefix.code).not.toBe(0);
      expect(prefix.stderr).toContain("--session-prefix");
      const http = await runTool("mcp-proxy.ts", ["serve", "--url", "http://127.0.0.1:1/mcp"]);
      expect(http.code).not.toBe(0);
      expect(http.stderr.trim().split("\n")).toHaveLength(1);
      expect(`${open.stderr}${unset.stderr}${http.stderr}`).not.toContain("    at ");
    },
    TEST_GUARD_MS,
  );
});

describe("bodies", () => {
  test(
    "a body that is not JSON, not application/json, or over the message cap is refused with 400, 415 or 413",
    async () => {
      const { url } = await serve(["--log-level", "warn"]);
      const parse = await post(url, "{not json");
      expect(parse.status).toBe(400);
      expect((await parse.json()).error.code).toBe(-32700);
      const typed = await post(url, "{}", { "content-type": "text/plain" });
      expect(typed.status).toBe(415);
      const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(33 * 1024 * 1024)}"}}`;
      const big = await post(url, huge);
      expect(big.status).toBe(413);
      expect((await fetch(url.replace(/\/mcp$/, "/other"))).status).toBe(404);
      // Still serving after all that.
      expect((await sdkClient(url, "legacy")).client.getServerVersion()?.name).toBe("mcpkit-reference");
    },
    TEST_GUARD_MS,
  );
});

describe("2025 sessions", () => {
  test(
    "DELETE ends a session (its server exits), and a request for it, or for an id never given, gets 404",
    async () => {
      const { url } = await serve(["--log-level", "warn", "--session-prefix", "pod-7"]);
      const id = await openSession(url);
      // The prefix a front routes on.
      expect(id).toMatch(/^pod-7\.[0-9a-f-]{36}$/);
      const pid = Number(
        (
          await answerOf(
            await post(
              url,
              { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } },
              { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
            ),
          )
        ).result.content[0].text,
      );
      expect(alive(pid)).toBe(true);
      const deleted = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" } });
      expect(deleted.status).toBe(200);
      await until(() => !alive(pid), "the session's server to exit");
      const gone = await post(url, { jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-session-id": id });
      expect(gone.status).toBe(404);
      const never = await post(url, { jsonrpc: "2.0", id: 4, method: "ping" }, { "mcp-session-id": "no-such-session" });
      expect(never.status).toBe(404);
      const noSession = await post(url, { jsonrpc: "2.0", id: 5, method: "tools/list" });
      expect(noSession.status).toBe(400);
    },
    TEST_GUARD_MS,
  );

  test(
    "--max-sessions: one more initialize gets 503 until a session ends; --session-idle ends a quiet one",
    async () => {
      // No idle limit here: on a loaded machine a session could go quiet before the third initialize.
      const { url } = await serve(["--max-sessions", "2", "--log-level", "info"]);
      const first = await openSession(url);
      await openSession(url);
      const third = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE() });
      expect(third.status).toBe(503);
      expect((await third.json()).error.message).toContain("--max-sessions");
      await fetch(url, { method: "DELETE", headers: { "mcp-session-id": first } });
      await openSession(url);

      const quiet = await serve(["--max-sessions", "1", "--session-idle", "1000", "--log-level", "info"]);
      const served = running.at(-1)!;
      const room = await openSession(quiet.url);
      // Left alone, a session goes quiet and is ended (a request would count as use, so the log says when);
      // its id is unknown from then on, and its place is free.
      await until(() => served.stderr().includes(`session ${room} idle`), "the idle session's end");
      expect((await post(quiet.url, { jsonrpc: "2.0", id: 9, method: "ping" }, { "mcp-session-id": room })).status).toBe(404);
      await openSession(quiet.url);
    },
    TEST_GUARD_MS,
  );

  test(
    "--session-idle never ends a session while a request of it is still in flight",
    async () => {
      const { url } = await serve(["--session-idle", "1000", "--log-level", "info"]);
      const { client } = await sdkClient(url, "legacy");
      // 3.5 s of work, every step quieter than the idle limit would allow if only requests counted.
      const slow = await client.callTool({ name: "slow", arguments: { steps: 5, delayMs: 700 } });
      expect(text(slow)).toBe("done 5 steps");
      expect(text(await client.callTool({ name: "echo", arguments: { message: "still mine" } }))).toBe("still mine");
    },
    TEST_GUARD_MS,
  );

  test(
    "an answer the server sends at once is one JSON body (a batch's, one array); progress first makes it an SSE stream with event ids",
    async () => {
      const { url } = await serve(["--log-level", "warn"]);
      const id = await openSession(url);
      const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
      const echo = (callId: number, message: string) => ({
        jsonrpc: "2.0",
        id: callId,
        method: "tools/call",
        params: { name: "echo", arguments: { message } },
      });
      const single = await post(url, echo(2, "plain"), headers);
      expect(single.headers.get("content-type")).toBe("application/json");
      expect(single.headers.get("mcp-session-id")).toBe(id);
      expect((await single.json()).result.content[0].text).toBe("plain");
      const batch = await post(url, [echo(3, "three"), echo(4, "four")], headers);
      expect(batch.headers.get("content-type")).toBe("application/json");
      const answers = (await batch.json()) as { id: number; result: { content: { text: string }[] } }[];
      expect(answers.map((answer) => [answer.id, answer.result.content[0]!.text])).toEqual([
        [3, "three"],
        [4, "four"],
      ]);
      const slow = { name: "slow", arguments: { steps: 3, delayMs: 10 }, _meta: { progressToken: "t" } };
      const streamed = await post(url, { jsonrpc: "2.0", id: 5, method: "tools/call", params: slow }, headers);
      expect(streamed.headers.get("content-type")).toBe("text/event-stream");
      const events = (await streamed.text()).split("\n\n").filter(Boolean);
      // The priming event (an id, no data) first, so a client that loses the stream can resume from it.
      expect(events[0]).toMatch(/^id: \S+\ndata: $/);
      const messages = events.slice(1).map((event) => {
        expect(event).toMatch(/^event: message\nid: \S+\ndata: /);
        return JSON.parse(event.slice(event.indexOf("data: ") + 6));
      });
      expect(messages.filter((message) => message.method === "notifications/progress").map((m) => m.params.progress)).toEqual([1, 2, 3]);
      expect(messages.at(-1).result.content[0].text).toBe("done 3 steps");
    },
    TEST_GUARD_MS,
  );

  test(
    "a session's refusals: 406 without the Accept, 409 for a second GET stream, " +
      "400 for an unknown version, an unknown event id or a second initialize, 405",
    async () => {
      const { url } = await serve(["--log-level", "warn"]);
      const id = await openSession(url);
      const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
      const ping = { jsonrpc: "2.0", id: 2, method: "ping" };
      expect((await post(url, ping, { ...headers, accept: "application/json" })).status).toBe(406);
      expect((await fetch(url, { headers: { ...headers, accept: "application/json" } })).status).toBe(406);
      const version = await post(url, ping, { ...headers, "mcp-protocol-version": "1999-01-01" });
      expect(version.status).toBe(400);
      expect((await version.json()).error.message).toContain("Unsupported protocol version: 1999-01-01");
      const stream = await fetch(url, { headers: { ...headers, accept: "text/event-stream" } });
      expect(stream.status).toBe(200);
      expect((await fetch(url, { headers: { ...headers, accept: "text/event-stream" } })).status).toBe(409);
      const badEvent = await fetch(url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": "nonsense" } });
      expect(badEvent.status).toBe(400);
      const put = await fetch(url, { method: "PUT", headers });
      expect(put.status).toBe(405);
      expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
      expect((await post(url, { jsonrpc: "2.0", id: 3, method: "initialize", params: INITIALIZE() }, headers)).status).toBe(400);
      await stream.body!.cancel();
    },
    TEST_GUARD_MS,
  );

  test(
    "a call still waiting when its session is deleted is answered 404, and the session's GET stream ends",
    async () => {
      const dir = tempDir();
      const server = join(dir, "holding.mjs");
      writeFileSync(server, HOLDING_SERVER);
      const served = await serve(["--log-level", "warn"], [BUN, server]);
      const id = await openSession(served.url);
      const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
      const stream = await fetch(served.url, { headers: { ...headers, accept: "text/event-stream" } });
      const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hold", arguments: {} } };
      const waiting = post(served.url, call, headers);
      await until(() => served.stderr().includes("holding 2"), "the server to hold the call");
      expect((await fetch(served.url, { method: "DELETE", headers })).status).toBe(200);
      const answer = await waiting;
      expect(answer.status).toBe(404);
      expect((await answer.json()).error.message).toBe("Session not found");
      expect(await stream.text()).toBe(": open\n\n");
    },
    TEST_GUARD_MS,
  );

  test(
    "a client that lost its SSE stream resumes with Last-Event-ID and gets the rest of the progress and the answer",
    async () => {
      const { url } = await serve(["--log-level", "warn"]);
      const id = await openSession(url);
      const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
      const call = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "slow", arguments: { steps: 6, delayMs: 30 }, _meta: { progressToken: "p" } },
      };
      const aborter = new AbortController();
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(call),
        signal: aborter.signal,
      });
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let seen = "";
      let lastId: string | undefined;
      while (!lastId) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended before any progress: ${seen}`);
        seen += decoder.decode(value, { stream: true });
        const event = /id: (\S+)\ndata: (.*"notifications\/progress".*)\n/.exec(seen);
        if (event) lastId = event[1];
      }
      aborter.abort();
      const resumed = await fetch(url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": lastId } });
      expect(resumed.status).toBe(200);
      const rest = await new Response(resumed.body).text();
      const messages = rest
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)));
      const answer = messages.find((message) => message.id === 2);
      expect(answer.result.content[0].text).toBe("done 6 steps");
      const progress = messages.filter((message) => message.method === "notifications/progress").map((m) => m.params.progress);
      const first = Number(/"progress":(\d+)/.exec(seen)![1]);
      expect(progress.every((step) => step > first)).toBe(true);
    },
    TEST_GUARD_MS,
  );
});

test(
  "--watch restarts every client's server, and each client keeps its session",
  async () => {
    const dir = tempDir();
    const watched = join(dir, "watched.txt");
    writeFileSync(watched, "1");
    const served = await serve(["--watch", watched, "--debounce", "50", "--log-level", "info"]);
    const [ann, bo] = await Promise.all([sdkClient(served.url, "legacy", "Ann"), sdkClient(served.url, "legacy", "Bo")]);
    const before = await Promise.all([whoami(ann.client), whoami(bo.client)]);
    writeFileSync(watched, "2");
    await until(
      () => ann.notes.includes("tools/list_changed") && bo.notes.includes("tools/list_changed"),
      "both clients told of the restart",
    );
    const after = await Promise.all([whoami(ann.client), whoami(bo.client)]);
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[0]).not.toBe(after[1]);
  },
  TEST_GUARD_MS,
);

test.each(["SIGTERM", "SIGINT"] as const)(
  "%s ends serve and every server process it ran, with no orphans",
  async (signal) => {
    const served = await serve(["--log-level", "warn"]);
    const legacy = await Promise.all([sdkClient(served.url, "legacy", "A"), sdkClient(served.url, "legacy", "B")]);
    const modern = await sdkClient(served.url, "modern", "C");
    const pids = (await Promise.all([...legacy, modern].map(({ client }) => whoami(client)))).map(Number);
    expect(pids.every(alive)).toBe(true);
    running.splice(running.indexOf(served), 1);
    const code = await served.stop(signal);
    expect(code).toBe(signal === "SIGTERM" ? 143 : 130);
    await until(() => pids.every((pid) => !alive(pid)), "every server process to be gone");
  },
  TEST_GUARD_MS,
);

test(
  "the compiled binary serves too, and a server whose command is serve runs as mcp-proxy -- serve",
  async () => {
    const tools = await compiledTools();
    const compiled = await serve(["--log-level", "warn"], [...REFERENCE_CMD], {}, [join(tools, "mcp-proxy")]);
    const { client } = await sdkClient(compiled.url, "legacy");
    expect(text(await client.callTool({ name: "echo", arguments: { message: "compiled" } }))).toBe("compiled");
    const dir = tempDir();
    const named = join(dir, "serve");
    writeFileSync(named, `#!/bin/sh\nexec ${REFERENCE_LINE}\n`);
    chmodSync(named, 0o755);
    const peer = new LinePeer([join(tools, "mcp-proxy"), "--", "serve"], { env: { PATH: `${dir}:${process.env.PATH}` } });
    const answer = await peer.request(1, "initialize", INITIALIZE());
    expect(answer.result.serverInfo.name).toBe("mcpkit-reference");
    await peer.close();
  },
  TEST_GUARD_MS,
);
