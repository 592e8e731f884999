// The pure parts of mcp-host: the tool namespace the model sees, prompt arguments, the scripted model,
// its terminal and sampling. (The form and command-line splitting it shares are lib's, tested in test/lib/.)
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { parsePairs } from "../../../host/commands.ts";
import { createScriptedProvider } from "../../../host/providers/scripted.ts";
import { Terminal } from "../../../host/terminal.ts";
import { resultParts, ToolNamespace, uniqueServerKey, VENDOR_NAME_MAX } from "../../../host/tools.ts";

const schema = { type: "object", properties: {} };

describe("tool namespace", () => {
  test("tools are mcp__<server>__<tool> and resolve back to their server and MCP name", () => {
    const namespace = new ToolNamespace();
    const specs = namespace.rebuild([{ key: "files", tools: [{ name: "read", inputSchema: schema }] }]);
    expect(specs.map((s) => s.name)).toEqual(["mcp__files__read"]);
    expect(namespace.resolve("mcp__files__read")).toEqual({ server: "files", tool: { name: "read", inputSchema: schema } });
    expect(namespace.resolve("mcp__files__write")).toBeUndefined();
  });

  test("names a vendor would reject are rewritten, capped at 64, and still map back", () => {
    const namespace = new ToolNamespace();
    const long = `search.${"x".repeat(100)}`;
    const specs = namespace.rebuild([
      {
        key: "s",
        tools: [
          { name: "get/item.v2", inputSchema: schema },
          { name: long, inputSchema: schema },
        ],
      },
    ]);
    expect(specs[0]!.name).toBe("mcp__s__get_item_v2");
    expect(specs[1]!.name.length).toBeLessThanOrEqual(VENDOR_NAME_MAX);
    for (const spec of specs) expect(spec.name).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(namespace.resolve(specs[0]!.name)?.tool.name).toBe("get/item.v2");
    expect(namespace.resolve(specs[1]!.name)?.tool.name).toBe(long);
  });

  test("names that collide after rewriting get suffixes, each still unique", () => {
    const namespace = new ToolNamespace();
    const specs = namespace.rebuild([
      {
        key: "s",
        tools: [
          { name: "a.b", inputSchema: schema },
          { name: "a/b", inputSchema: schema },
          { name: "a_b", inputSchema: schema },
        ],
      },
    ]);
    expect(specs.map((s) => s.name)).toEqual(["mcp__s__a_b", "mcp__s__a_b_2", "mcp__s__a_b_3"]);
    expect(specs.map((s) => namespace.resolve(s.name)?.tool.name)).toEqual(["a.b", "a/b", "a_b"]);
  });

  test("server keys are sanitized to [A-Za-z0-9_-] and collisions suffixed", () => {
    const taken = new Set<string>();
    expect(uniqueServerKey("my server!", taken)).toBe("my_server_");
    expect(uniqueServerKey("my server!", taken)).toBe("my_server__2");
    expect(uniqueServerKey("", taken)).toBe("server");
  });

  test("tool results: text and images verbatim, embedded resources and links described", () => {
    const parts = resultParts({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource_link", uri: "file:///b.txt", name: "b" },
      ],
    });
    expect(parts).toEqual([
      { type: "text", text: "hello" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "[resource file:///a.txt]\ninside" },
      { type: "text", text: "[resource link: file:///b.txt (b)]" },
    ]);
    expect(resultParts({ content: [], structuredContent: { sum: 5 } })).toEqual([{ type: "text", text: '{"sum":5}' }]);
  });
});

test("prompt arguments: key=value, quoted values", () => {
  expect(parsePairs(`focus=ops name="Ann Lee" note='a b' empty=`)).toEqual({ focus: "ops", name: "Ann Lee", note: "a b", empty: "" });
});

describe("the scripted model", () => {
  const tools = [
    {
      name: "mcp__s__add",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
    { name: "mcp__s__echo", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } },
  ];

  test("calls the tool a message names, with arguments typed by its schema", async () => {
    const model = createScriptedProvider();
    const result = await model.generate({
      messages: [{ role: "user", content: [{ type: "text", text: "call add a=2 b=3" }] }],
      tools,
      maxTokens: 100,
    });
    expect(result.stopReason).toBe("tool_use");
    expect(result.content.find((p) => p.type === "tool_use")).toMatchObject({ name: "mcp__s__add", input: { a: 2, b: 3 } });
    const echo = await model.generate({
      messages: [{ role: "user", content: [{ type: "text", text: "echo two words" }] }],
      tools,
      maxTokens: 100,
    });
    expect(echo.content.find((p) => p.type === "tool_use")).toMatchObject({ name: "mcp__s__echo", input: { message: "two words" } });
  });

  test("takes a JSON object of arguments as given (null, nested, text with spaces), and words when it is not one", async () => {
    const model = createScriptedProvider();
    const ask = async (text: string) =>
      (await model.generate({ messages: [{ role: "user", content: [{ type: "text", text }] }], tools, maxTokens: 100 })).content.find(
        (p) => p.type === "tool_use",
      );
    const input = { a: null, b: { nested: [1, "two"] }, note: "two words" };
    expect(await ask(`call add ${JSON.stringify(input)}`)).toMatchObject({ name: "mcp__s__add", input });
    expect(await ask('echo {"message": "broken')).toMatchObject({ name: "mcp__s__echo", input: { message: '{"message": "broken' } });
    expect(await ask("echo [1, 2]")).toMatchObject({ name: "mcp__s__echo", input: { message: "[1, 2]" } });
  });

  test("streams its text and reports a failed tool as a failure", async () => {
    const model = createScriptedProvider();
    const deltas: string[] = [];
    const result = await model.generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "add" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "mcp__s__add", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "bad input" }], isError: true }],
        },
      ],
      tools,
      maxTokens: 100,
      ontext: (delta) => void deltas.push(delta),
    });
    expect(result.stopReason).toBe("end_turn");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe("(scripted) mcp__s__add failed: bad input. I give up on it.");
  });
});

describe("the terminal", () => {
  let endInput = () => {};
  function terminal() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let screen = "";
    stdout.on("data", (chunk) => (screen += String(chunk)));
    const term = new Terminal({ input: stdin as unknown as NodeJS.ReadStream, output: stdout as unknown as NodeJS.WriteStream });
    endInput = () => stdin.end();
    return { term, type: (text: string) => stdin.write(text), screen: () => screen };
  }

  test("server text in a question's prompt cannot rewrite the screen", async () => {
    const { term, type, screen } = terminal();
    type("Ann\n");
    expect(await term.ask("  Na\u001b[2Jme\u001b]0;pwned\u0007: ")).toBe("Ann");
    term.close();
    expect(screen()).toBe("  Name: Ann\n");
  });

  test("a question asked while another is open is answered first, even with both lines typed at once", async () => {
    const { term, type, screen } = terminal();
    const prompt = term.ask("you> ");
    const choice = term.ask("accept? ");
    expect(term.openQuestions).toBe(2);
    // A form: its second question is asked only once the first is answered.
    const form = choice.then((answer) => (answer === "a" ? term.ask("name: ") : null));
    type("a\nZed\nhello\n");
    expect(await form).toBe("Zed");
    expect(await prompt).toBe("hello");
    term.close();
    expect(screen()).toBe("you> \naccept? a\nname: Zed\nyou> hello\n");
  });

  test("lines and the end of input arriving together while a question is open: every line is still an answer", async () => {
    const { term, type } = terminal();
    const first = term.ask("you> ");
    type("call add a=1 b=2\ny\n");
    // Ending input right behind the lines must not turn the queued answers into "no input".
    const second = first.then(() => term.ask("approve? "));
    const third = second.then(() => term.ask("you> "));
    endInput();
    expect(await first).toBe("call add a=1 b=2");
    expect(await second).toBe("y");
    expect(await third).toBeNull();
  });

  test("a withdrawn question gets no answer, and the line goes to the question below it", async () => {
    const { term, type } = terminal();
    const prompt = term.ask("you> ");
    const aborter = new AbortController();
    const question = term.ask("approve? ", { signal: aborter.signal });
    aborter.abort();
    expect(await question).toBeNull();
    type("next\n");
    expect(await prompt).toBe("next");
    term.close();
  });
});

test("sampling: the user approves, and maxTokens is capped whatever the server asked", async () => {
  const { answerSampling, SAMPLING_MAX_TOKENS } = await import("../../../host/asks.ts");
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let screen = "";
  stdout.on("data", (chunk) => (screen += String(chunk)));
  const term = new Terminal({ input: stdin as unknown as NodeJS.ReadStream, output: stdout as unknown as NodeJS.WriteStream });
  const asked: number[] = [];
  const provider = {
    name: "scripted" as const,
    model: "m",
    async generate(request: { maxTokens: number }) {
      asked.push(request.maxTokens);
      return { content: [{ type: "text" as const, text: "ok" }], stopReason: "end_turn" as const, model: "m" };
    },
  };
  stdin.write("y\n");
  const result = await answerSampling(
    "srv",
    { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 50_000, systemPrompt: "be brief" },
    term,
    provider,
  );
  term.close();
  expect(asked).toEqual([SAMPLING_MAX_TOKENS]);
  expect(result).toEqual({ role: "assistant", content: { type: "text", text: "ok" }, model: "m", stopReason: "endTurn" });
  expect(screen).toContain("system: be brief");
  expect(screen).toContain(`maxTokens 50000 (capped to ${SAMPLING_MAX_TOKENS})`);
});
