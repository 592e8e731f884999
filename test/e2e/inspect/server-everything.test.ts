// mcp-inspect against a published server from the npm registry: @modelcontextprotocol/server-everything
// (v1 SDK, protocol 2025-11-25) over stdio, Streamable HTTP and the legacy HTTP+SSE transport.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BUN, closedPort, EVERYTHING, type HttpFixture, inspect, startHttpServer, TEST_GUARD_MS } from "../../support/helpers.ts";

const names = (items: { name: string }[]) => items.map((item) => item.name);

describe("server-everything over stdio", () => {
  test(
    "list-tools, call-tool and server-info work and negotiate 2025-11-25 on the same process",
    async () => {
      const tools = await inspect(["list-tools", "--", EVERYTHING]);
      expect(tools.code).toBe(0);
      expect(names(tools.json.data.tools)).toEqual(expect.arrayContaining(["echo", "get-sum"]));
      expect(tools.json.metadata.protocolVersion).toBe("2025-11-25");
      const sum = await inspect(["call-tool", "get-sum", "a=2", "b=40", "--", EVERYTHING]);
      expect(sum.code).toBe(0);
      expect(JSON.stringify(sum.json.data.content)).toContain("42");
      const info = await inspect(["server-info", "--", EVERYTHING]);
      expect(info.json.data).toMatchObject({ era: "legacy", serverInfo: { name: "mcp-servers/everything" } });
    },
    TEST_GUARD_MS,
  );

  test(
    "run the way users run it: through npx (the devDependency's bin, no download)",
    async () => {
      const { code, json } = await inspect(["list-tools", "--", "npx", "@modelcontextprotocol/server-everything"]);
      expect(code).toBe(0);
      expect(names(json.data.tools)).toContain("echo");
    },
    TEST_GUARD_MS,
  );
});

describe("server-everything over Streamable HTTP", () => {
  let server: HttpFixture;
  beforeAll(async () => {
    const port = closedPort();
    const started = await startHttpServer([BUN, EVERYTHING, "streamableHttp"], {
      env: { PORT: String(port) },
      pattern: /listening on port (\d+)/,
    });
    server = { url: `http://127.0.0.1:${port}/mcp`, stop: started.stop };
  });
  afterAll(() => server.stop());

  test(
    "every command works",
    async () => {
      const url = ["--url", server.url];
      const tools = await inspect(["list-tools", ...url]);
      expect(tools.code).toBe(0);
      expect(tools.json.metadata.protocolVersion).toBe("2025-11-25");
      expect(names(tools.json.data.tools)).toContain("echo");

      const echo = await inspect(["call-tool", "echo", "message=over http", ...url]);
      expect(echo.json.data.content[0].text).toBe("Echo: over http");

      const resources = await inspect(["list-resources", ...url]);
      const first = resources.json.data.resources[0].uri;
      const read = await inspect(["read-resource", first, ...url]);
      expect(read.json.data.contents[0].uri).toBe(first);

      const templates = await inspect(["list-resource-templates", ...url]);
      expect(templates.json.data.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).toContain(
        "demo://resource/dynamic/text/{resourceId}",
      );

      const prompts = await inspect(["list-prompts", ...url]);
      expect(names(prompts.json.data.prompts)).toContain("args-prompt");
      const prompt = await inspect(["get-prompt", "args-prompt", "city=Paris", ...url]);
      expect(JSON.stringify(prompt.json.data.messages)).toContain("Paris");

      const completion = await inspect(["complete", "--prompt", "completable-prompt", "--argument", "department=Eng", ...url]);
      expect(completion.code).toBe(0);
      expect(completion.json.data.completion.values).toContain("Engineering");

      const info = await inspect(["server-info", ...url]);
      expect(info.json.data.serverInfo.name).toBe("mcp-servers/everything");
      expect((await inspect(["ping", ...url])).code).toBe(0);
    },
    TEST_GUARD_MS,
  );
});

describe("server-everything over the legacy HTTP+SSE transport", () => {
  let server: HttpFixture;
  let port: number;
  beforeAll(async () => {
    port = closedPort();
    server = await startHttpServer([BUN, EVERYTHING, "sse"], { env: { PORT: String(port) }, pattern: /running on port (\d+)/ });
  });
  afterAll(() => server.stop());

  test(
    "--url to the SSE endpoint falls back to HTTP+SSE by itself, and --transport sse goes straight there",
    async () => {
      const auto = await inspect(["call-tool", "echo", "message=sse", "--url", `http://127.0.0.1:${port}/sse`]);
      expect(auto.code).toBe(0);
      expect(auto.json.data.content[0].text).toBe("Echo: sse");
      const forced = await inspect(["list-tools", "--transport", "sse", "--url", `http://127.0.0.1:${port}/sse`]);
      expect(forced.code).toBe(0);
      expect(names(forced.json.data.tools)).toContain("echo");
    },
    TEST_GUARD_MS,
  );
});
