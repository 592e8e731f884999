// OAuth end to end in the other tools: mcp-proxy --url signs in like mcp-remote (and several proxies
// share one sign-in), mcp-inspect asks on a terminal, mcp-daemon's stateful sessions use the store,
// and mcp-host asks, signs in (a step-up too) and keeps the tokens. oauth.test.ts has mcp-inspect's own sign-in.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { ADMIN_SCOPE, FIXTURE_SCOPE } from "../../fixtures/oauth-server.ts";
import { INITIALIZE, LinePeer, NO_VENDOR_KEYS, removeTempDirs, runTool, TEST_GUARD_MS, toolCommand } from "../../support/helpers.ts";
import { EXIT_AUTH, fixture, machine, stopFixtures, text } from "../../support/oauth-machine.ts";

const peers: LinePeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});
afterAll(async () => {
  await stopFixtures();
  removeTempDirs();
});

describe("mcp-proxy --url", () => {
  const PROXY = toolCommand("mcp-proxy.ts");

  test(
    "signs in like mcp-remote: URL on stderr, the browser opened, the client's requests held until it is done",
    async () => {
      const server = await fixture();
      const m = machine();
      const peer = new LinePeer([...PROXY, "--url", server.url], { env: m.env });
      peers.push(peer);
      // Sent at once, before any sign-in: all are held, then answered.
      peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
      await peer.waitFor(() => peer.responseTo(1) !== undefined);
      expect(peer.responseTo(0).result.serverInfo.name).toBe("mcpkit-oauth-fixture");
      expect(peer.responseTo(1).result.content[0].text).toStartWith("authorized as client-");
      expect(m.tabs()).toHaveLength(1);
      expect(peer.stderr).toContain(m.tabs()[0]!);
    },
    TEST_GUARD_MS,
  );

  test(
    "a sign-in that never comes back: after the callback timeout each held request is answered with an error naming mcp-inspect auth",
    async () => {
      const server = await fixture();
      const m = machine({ BROWSER: "true" }); // a browser that opens nothing
      const peer = new LinePeer([...PROXY, "--url", server.url, "--callback-timeout", "300"], { env: m.env });
      peers.push(peer);
      peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      await peer.waitFor(() => peer.responseTo(0) !== undefined && peer.responseTo(1) !== undefined);
      for (const id of [0, 1]) expect(peer.responseTo(id).error.message).toContain(`mcp-inspect auth --url ${server.url}`);
    },
    TEST_GUARD_MS,
  );

  test(
    "a long-running proxy signs in again when it must, a second time too (the limits are per request)",
    async () => {
      const server = await fixture({ refreshTokens: false });
      const m = machine();
      const peer = new LinePeer([...PROXY, "--url", server.url], { env: m.env });
      peers.push(peer);
      await peer.request(0, "initialize", INITIALIZE());
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (const id of [1, 2]) {
        server.expireAccessTokens();
        const answer = await peer.request(id, "tools/call", { name: "whoami", arguments: {} });
        expect(answer.result.content[0].text).toStartWith("authorized as client-");
      }
      expect(m.tabs()).toHaveLength(3);
    },
    TEST_GUARD_MS,
  );

  test(
    "three proxies started at once sign in once: one browser tab, one registration",
    async () => {
      const server = await fixture();
      const m = machine();
      const three = [0, 1, 2].map(() => new LinePeer([...PROXY, "--url", server.url], { env: m.env }));
      peers.push(...three);
      for (const peer of three) peer.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE() });
      await Promise.all(three.map((peer) => peer.waitFor(() => peer.responseTo(0) !== undefined)));
      for (const peer of three) expect(peer.responseTo(0).result.serverInfo.name).toBe("mcpkit-oauth-fixture");
      expect(m.tabs()).toHaveLength(1);
      expect(server.record.registrations).toHaveLength(1);
      expect(server.record.tokensIssued).toBe(1);
    },
    TEST_GUARD_MS,
  );

  test(
    "a 401 at a later request refreshes, once across two proxies, with no new sign-in",
    async () => {
      const server = await fixture();
      const m = machine();
      expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
      const two = [0, 1].map(() => new LinePeer([...PROXY, "--url", server.url], { env: m.env }));
      peers.push(...two);
      for (const peer of two) {
        await peer.request(0, "initialize", INITIALIZE());
        peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      }
      server.expireAccessTokens();
      for (const peer of two) peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
      await Promise.all(two.map((peer) => peer.waitFor(() => peer.responseTo(1) !== undefined)));
      for (const peer of two) expect(peer.responseTo(1).result.content[0].text).toStartWith("authorized as client-");
      expect(server.record.refreshes).toBe(1);
      expect(server.record.authorizations).toHaveLength(1);
      expect(m.tabs()).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );
});

describe("on a terminal", () => {
  test(
    "mcp-inspect asks before signing in (stdin and stderr both terminals), then answers",
    async () => {
      const server = await fixture();
      const m = machine();
      const { inTerminal } = await import("../../support/terminal.ts");
      const term = inTerminal([...toolCommand("mcp-inspect.ts"), "call-tool", "whoami", "--url", server.url], {
        env: { ...process.env, ...m.env, NO_COLOR: "1", TERM: "xterm" },
      });
      try {
        await term.see(`${server.issuer} requires a sign-in. Sign in with your browser? [y/N]`);
        term.type("y\r");
        await term.see("authorized as client-");
        expect(await term.child.exited).toBe(0);
      } finally {
        term.close();
      }
      expect(m.tabs()).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );
});

describe("mcp-daemon", () => {
  test(
    "a stateful session uses the store; one that needs a sign-in answers with an error naming the command",
    async () => {
      const { daemonDir, stopDaemons } = await import("../../support/helpers.ts");
      const server = await fixture();
      const m = machine({ MCPKIT_DAEMON_DIR: daemonDir() });
      try {
        const refused = await m.inspect(["call-tool", "whoami", "--stateful", "--url", server.url]);
        expect(refused.code).toBe(EXIT_AUTH);
        expect(refused.json.error.message).toContain(`mcp-inspect auth --url ${server.url}`);
        expect(m.tabs()).toEqual([]);

        expect((await m.inspect(["auth", "--url", server.url])).code).toBe(0);
        const served = await m.inspect(["call-tool", "whoami", "--stateful", "--url", server.url]);
        expect(served.code).toBe(0);
        expect(text(served)).toStartWith("authorized as client-");
        // The access token stops working: the daemon's session refreshes it at the next call.
        server.expireAccessTokens();
        const again = await m.inspect(["call-tool", "whoami", "--stateful", "--url", server.url]);
        expect(again.code).toBe(0);
        expect(server.record.refreshes).toBe(1);
        expect(m.tabs()).toHaveLength(1);
      } finally {
        await stopDaemons();
      }
    },
    TEST_GUARD_MS,
  );
});

describe("mcp-host", () => {
  test(
    "-p: a 403 insufficient_scope in a tool call steps up with one more tab, the call goes through, and the host exits 0",
    async () => {
      const server = await fixture();
      const m = machine();
      const run = await runTool("mcp-host.ts", ["--server", server.url, "--oauth", "--provider", "scripted", "-p", "call admin"], {
        env: { ...NO_VENDOR_KEYS, ...m.env },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`admin with ${FIXTURE_SCOPE} ${ADMIN_SCOPE}`);
      expect(server.record.authorizations.map((a) => a.scope)).toEqual([FIXTURE_SCOPE, `${FIXTURE_SCOPE} ${ADMIN_SCOPE}`]);
      expect(m.tabs()).toHaveLength(2);
    },
    TEST_GUARD_MS,
  );

  test(
    "asks, signs in through the browser, and keeps the tokens for the next chat",
    async () => {
      const { HostDriver } = await import("../../support/host-driver.ts");
      const server = await fixture();
      const m = machine();
      const first = new HostDriver(["--server", server.url], m.env);
      try {
        await first.waitFor("[y/N]");
        first.send("y");
        await first.waitFor(/connected to "mcpkit-oauth-fixture" as localhost \(2026-07-28, 3 tools/);
        first.send("whoami", "/quit");
        await first.waitFor(/whoami returned: authorized as client-\S+/);
        expect(await first.exit()).toBe(0);
        for (const token of server.record.accessTokens) expect(first.stdout + first.stderr).not.toContain(token);
      } finally {
        first.child.kill("SIGKILL");
      }
      expect(m.tabs()).toHaveLength(1);

      const second = new HostDriver(["--server", server.url], m.env);
      try {
        await second.waitFor(/connected to "mcpkit-oauth-fixture" as localhost/);
        second.send("/quit");
        expect(await second.exit()).toBe(0);
        expect(second.stdout).not.toContain("[y/N]");
      } finally {
        second.child.kill("SIGKILL");
      }
      expect(m.tabs()).toHaveLength(1);
      expect(server.record.authorizations).toHaveLength(1);
    },
    TEST_GUARD_MS,
  );
});
