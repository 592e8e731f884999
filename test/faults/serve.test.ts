// mcp-proxy serve against hostile HTTP clients and servers: a client that never reads while its
// server floods, in both eras; a body that never ends. Memory is asserted as serve's own peak RSS.
import { afterAll, afterEach, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { MAX_WAITING_BODY_BYTES } from "../../lib/wire/limits.ts";
import { BUN, FAULTY, floodProgress, PeakRss, removeTempDirs, TEST_GUARD_MS, tempDir, until } from "../support/helpers.ts";
import { answerOf, openSession, post, serve, stopServing } from "../support/serve.ts";

/**
 * What a client that does not read may cost serve over what it used before: the 8 MB held for it,
 * the socket's buffers, and the garbage of the megabytes that passed before the hold (about 65 MB
 * seen); without the hold it is past 200 MB within seconds.
 */
const GROWTH_BOUND_MB = 100;
const MODERN = "2026-07-28";
/** Calls of 1 MB posted beyond the 32 that may wait for a server that never reads. */
const REFUSED_CALLS = 16;
const CALL_MESSAGE = "x".repeat(1024 * 1024);

/** As many 1 MB messages as may wait, and REFUSED_CALLS more. */
const POURED = MAX_WAITING_BODY_BYTES / CALL_MESSAGE.length + REFUSED_CALLS;

/** Posts `count` messages at once (`message(n)` the nth); the statuses fill in as answers come. */
function pour(url: string, count: number, message: (n: number) => unknown, headers: Record<string, string>): number[] {
  const statuses: number[] = [];
  for (let n = 0; n < count; n++) {
    post(url, message(n), headers).then(
      (response) => statuses.push(response.status),
      () => {},
    );
  }
  return statuses;
}

/**
 * Posts POURED 1 MB echo calls at once, with these params and headers; the statuses fill in as answers come (for a
 * server that never reads, only the refusals and event streams' starts). The calls taken are never answered: they end
 * when serve does.
 */
function pourCalls(url: string, params: Record<string, unknown>, headers: Record<string, string>): number[] {
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { message: CALL_MESSAGE }, ...params },
  });
  return pour(url, POURED, call, headers);
}

/** Posts `count` 1 MB notifications at once, with these params and headers. */
function pourNotifications(url: string, params: Record<string, unknown>, headers: Record<string, string>, count = POURED): number[] {
  const note = (n: number) => ({ jsonrpc: "2.0", method: "notifications/roots/list_changed", params: { pad: CALL_MESSAGE, n, ...params } });
  return pour(url, count, note, headers);
}

/**
 * What those 48 calls posted at once may cost serve: the 32 MB that wait, each about three times (the body, its
 * parse, the line sent on), and the 16 refused bodies, read at once (about 110 MB seen); with nothing refused, 100 such calls took
 * serve past 230 MB and 300 past 430 MB.
 */
const WAITING_BOUND_MB = 2 * GROWTH_BOUND_MB;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await stopServing();
});
afterAll(removeTempDirs);

/** The _meta of a 2026-07-28 request from the hostile client these tests play. */
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "hostile", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** The headers a 2026-07-28 tools/call carries. */
const callHeaders = (name: string) => ({ "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name });

/** Sends one raw HTTP request and never reads the answer: the socket's receive window fills, then serve's. */
async function neverRead(url: string, request: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.pause();
  socket.write(request);
  return socket;
}

test(
  "a 2025 client whose GET stream is never read while its server floods: the server is held back, serve stays bounded",
  async () => {
    const progress = join(tempDir(), "flood.json");
    const served = await serve(["--log-level", "warn"], [BUN, FAULTY, "flood"], { FLOOD_PROGRESS: progress });
    const rss = new PeakRss(served.child.pid);
    const id = await openSession(served.url);
    const before = rss.mb;
    const { host } = new URL(served.url);
    await neverRead(served.url, `GET /mcp HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${id}\r\n\r\n`);
    // Either the flood is held back (the server's write stalls), or it runs on into serve's memory.
    await until(() => floodProgress(progress).stalled || rss.mb - before > 4 * GROWTH_BOUND_MB, "the flood to stall");
    expect(floodProgress(progress).stalled).toBe(true);
    expect(rss.stop() - before).toBeLessThan(GROWTH_BOUND_MB);
  },
  TEST_GUARD_MS,
);

test(
  "a 2026-07-28 client that never reads its streaming call: that call is ended and cancelled, and the shared server answers others",
  async () => {
    const served = await serve(["--log-level", "warn"], [BUN, FAULTY, "progress-flood"]);
    const rss = new PeakRss(served.child.pid);
    // Learn the tools first, so the flood is the only thing on the hostile exchange.
    const echo = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "warm" }, _meta: META } };
    expect((await answerOf(await post(served.url, echo, callHeaders("echo")))).result.content[0].text).toBe("warm");
    const before = rss.mb;
    const flood = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "flood" }, _meta: { ...META, progressToken: "flood" } },
    });
    const { host } = new URL(served.url);
    const head = Object.entries({
      ...callHeaders("echo"),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    await neverRead(
      served.url,
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${head}Content-Length: ${Buffer.byteLength(flood)}\r\n\r\n${flood}`,
    );
    await until(() => served.stderr().includes("progress-flood: cancelled"), "the flooding call to be cancelled");
    expect(rss.stop() - before).toBeLessThan(GROWTH_BOUND_MB);
    const again = { ...echo, id: 3, params: { ...echo.params, arguments: { message: "still here" } } };
    expect((await answerOf(await post(served.url, again, callHeaders("echo")))).result.content[0].text).toBe("still here");
  },
  TEST_GUARD_MS,
);

test(
  "a server that never reads its stdin while a client posts 1 MB calls: once 32 MB of them wait, the rest get 503, serve stays bounded",
  async () => {
    const served = await serve(["--log-level", "error"], [BUN, FAULTY, "deaf"]);
    const rss = new PeakRss(served.child.pid);
    const before = rss.mb;
    const statuses = pourCalls(served.url, { _meta: META }, callHeaders("echo"));
    // Those past the cap are refused, or the calls run on into serve's memory (without the cap none is ever answered, and
    // this waits out the guard).
    await until(() => statuses.length >= REFUSED_CALLS || rss.mb - before > 4 * WAITING_BOUND_MB, "the calls past the cap to be refused");
    expect(statuses.every((status) => status === 503)).toBe(true);
    expect(rss.stop() - before).toBeLessThan(WAITING_BOUND_MB);
  },
  TEST_GUARD_MS,
);

test(
  "a 2025 session whose server stops reading gets 503 past 32 MB of its own calls waiting; another session is not refused",
  async () => {
    const served = await serve(["--log-level", "error"], [BUN, FAULTY, "flood"]);
    // Each session's server answers initialize, then reads nothing more.
    const [stuck, other] = [await openSession(served.url), await openSession(served.url)];
    const headers = (session: string) => ({ "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
    const statuses = pourCalls(served.url, {}, headers(stuck));
    // The calls taken open their event streams (200) and wait on them; those past the cap are refused.
    const refused = () => statuses.filter((status) => status === 503).length;
    await until(() => refused() >= REFUSED_CALLS, "the stuck session's calls past the cap to be refused");
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    // The other session's cap is its own: a 2 MB message of it is taken (a notification: 202 at once), where the
    // stuck session's 31 MB would leave it no room in a cap they shared.
    const note = await post(
      served.url,
      { jsonrpc: "2.0", method: "notifications/roots/list_changed", params: { pad: CALL_MESSAGE.repeat(2) } },
      headers(other),
    );
    expect(note.status).toBe(202);
  },
  TEST_GUARD_MS,
);

for (const era of ["2025", MODERN])
  test(
    `${era === MODERN ? "a 2026-07-28 server" : "a 2025 session's server"} that stops reading: a notification once its pipe is full ` +
      "waits for it, and past 32 MB waiting gets 503",
    async () => {
      const progress = join(tempDir(), "flood.json");
      const server = era === MODERN ? "modern-deaf" : "flood";
      const served = await serve(["--log-level", "error"], [BUN, FAULTY, server], { FLOOD_PROGRESS: progress });
      const headers: Record<string, string> =
        era === MODERN
          ? { "mcp-protocol-version": MODERN, "mcp-method": "notifications/roots/list_changed" }
          : { "mcp-session-id": await openSession(served.url), "mcp-protocol-version": "2025-11-25" };
      // The flooding server stops reading as its flood starts (modern-deaf stops once it has answered server/discover).
      if (era !== MODERN) await until(() => floodProgress(progress).bytes > 0, "the flood to start");
      const statuses = pourNotifications(served.url, era === MODERN ? { _meta: META } : {}, headers);
      // Without the hold every one is taken at once (202), into serve's memory: 200 of them took it 346 MB up. With it,
      // those past the cap are refused, which bounds serve as the calls' cap does (the tests above).
      const refused = () => statuses.filter((status) => status === 503).length;
      await until(() => refused() >= REFUSED_CALLS || statuses.length === POURED, "the notifications past the cap");
      expect(refused()).toBeGreaterThanOrEqual(REFUSED_CALLS);
      // The one that filled the pipe went at once; the rest wait for a server that reads nothing.
      expect(statuses.filter((status) => status === 202).length).toBeLessThanOrEqual(2);
    },
    TEST_GUARD_MS,
  );

test(
  "notifications waiting for a server that stopped reading are answered once that server dies, restarted or not",
  async () => {
    const progress = join(tempDir(), "flood.json");
    const served = await serve(["--log-level", "error", "--no-auto-restart"], [BUN, FAULTY, "flood"], { FLOOD_PROGRESS: progress });
    const headers = { "mcp-session-id": await openSession(served.url), "mcp-protocol-version": "2025-11-25" };
    await until(() => floodProgress(progress).bytes > 0, "the flood to start (the server reads nothing more)");
    // At most two go at once (the pipe, then up to 1 MB queued for it); the rest wait for a server that reads nothing.
    const statuses = pourNotifications(served.url, {}, headers, 6);
    await until(() => statuses.length > 0, "the first notification answered");
    const server = Number(
      Bun.spawnSync(["pgrep", "-P", String(served.child.pid)])
        .stdout.toString()
        .trim()
        .split("\n")[0],
    );
    process.kill(server, "SIGKILL");
    // A process that is gone holds nothing back (its channel lets its queue go): none waits as long as the session lasts.
    await until(() => statuses.length === 6, "the waiting notifications answered");
    expect(statuses).toEqual([202, 202, 202, 202, 202, 202]);
  },
  TEST_GUARD_MS,
);

test(
  "a body that never ends is refused with 413 at the message cap, and serve goes on",
  async () => {
    const served = await serve(["--log-level", "warn"]);
    const chunk = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(64 * 1024)}`);
    const endless = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(chunk) });
    const refused = await fetch(served.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: endless,
      duplex: "half",
    } as RequestInit);
    expect(refused.status).toBe(413);
    expect(await openSession(served.url)).toBeString();
  },
  TEST_GUARD_MS,
);
