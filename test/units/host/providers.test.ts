// The three vendor providers behind host/provider.ts, each driving its REAL vendor SDK against a
// loopback fake of the vendor's API (test/fixtures/fake-vendors.ts): what goes on the wire, what
// comes back out of a streamed reply, how the model is chosen, and how failures read.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import type { ChatMessage, GenerateRequest, LLMProvider, ProviderOptions, ToolSpec } from "../../../host/provider.ts";
import { createAnthropicProvider, mapStopReason, pickAnthropicModel } from "../../../host/providers/anthropic.ts";
import {
  createGeminiProvider,
  mapGeminiFinishReason as mapGeminiFinish,
  pickGeminiModel,
  SKIP_SIGNATURE_CHECK,
  SYNTHETIC_ID_PREFIX,
} from "../../../host/providers/gemini.ts";
import {
  createOpenAIProvider,
  mapOpenAiFinishReason as mapOpenAIFinish,
  maxTokensParam,
  pickOpenAIModel,
} from "../../../host/providers/openai.ts";
import { anthropicStream, type FakeVendor, geminiStream, hanging, openaiStream, startFakeVendor } from "../../fixtures/fake-vendors.ts";
import { closedPort } from "../../support/helpers.ts";

const anthropic = startFakeVendor("anthropic");
const openai = startFakeVendor("openai");
const gemini = startFakeVendor("gemini");
afterAll(() => {
  for (const fake of [anthropic, openai, gemini]) fake.stop();
});
beforeEach(() => {
  for (const fake of [anthropic, openai, gemini]) fake.reset();
});

const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
const WEATHER_TOOL: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
};
/** A conversation that uses every part type: text, image, two tool calls, one ok and one failed result. */
const HISTORY: ChatMessage[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture? And the weather in Paris?" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png" },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "text", text: "A dot. Checking the weather." },
      { type: "tool_use", id: "call_paris", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_nowhere", name: "get_weather", input: { city: "Nowhere" } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", toolUseId: "call_paris", content: [{ type: "text", text: "18°C, cloudy" }], isError: false },
      { type: "tool_result", toolUseId: "call_nowhere", content: [{ type: "text", text: "unknown city" }], isError: true },
    ],
  },
];
const FULL_REQUEST: GenerateRequest = {
  system: "Be terse.",
  messages: HISTORY,
  tools: [WEATHER_TOOL],
  maxTokens: 321,
  temperature: 0.25,
  stopSequences: ["END"],
};
const HELLO: GenerateRequest = { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], maxTokens: 50 };
/** The streamed reply every vendor gives in the streaming test: three text deltas, then a tool call in pieces. */
const TEXT_DELTAS = ["Let me ", "check ", "Lyon."];
const LYON_ARGUMENT_CHUNKS = ['{"ci', 'ty": "Ly', 'on"}'];

function options(fake: FakeVendor, env: Record<string, string>, model?: string): ProviderOptions {
  const urlVar = `${fake.vendor.toUpperCase()}_BASE_URL`;
  return { env: { [urlVar]: fake.url, ...env }, ...(model ? { model } : {}) };
}
const anthropicOptions = (env: Record<string, string> = {}, model?: string) =>
  options(anthropic, { ANTHROPIC_API_KEY: "sk-ant-test", ...env }, model);
const openaiOptions = (env: Record<string, string> = {}, model?: string) => options(openai, { OPENAI_API_KEY: "sk-test", ...env }, model);
const geminiOptions = (env: Record<string, string> = {}, model?: string) => options(gemini, { GEMINI_API_KEY: "gm-test", ...env }, model);

/** Awaits something that must reject, returning the error. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(Error);
  return outcome as Error;
}

/** Runs a generate that must fail, returning the error. */
const failure = (provider: LLMProvider, request: GenerateRequest = HELLO) => rejection(provider.generate(request));

function expectOneLine(error: Error): void {
  expect(error.message).not.toContain("\n");
  expect(error.stack ?? "").not.toContain("\n");
}

async function streamedTurn(provider: LLMProvider) {
  const deltas: string[] = [];
  const result = await provider.generate({ ...HELLO, ontext: (delta) => deltas.push(delta) });
  return { deltas, result };
}

describe("anthropic", () => {
  const SONNET_NEWEST = "claude-sonnet-5-5";
  const LISTED = [
    { id: "claude-opus-5-6", created_at: "2026-10-01T00:00:00Z", line: "opus", lifecycle: "active" },
    { id: "claude-sonnet-4-5", created_at: "2025-09-29T00:00:00Z", line: "sonnet", lifecycle: "active" },
    { id: SONNET_NEWEST, created_at: "2026-08-01T00:00:00Z", line: "sonnet", lifecycle: "active" },
    { id: "claude-sonnet-6-preview", created_at: "2026-11-01T00:00:00Z", line: "sonnet", lifecycle: "deprecated" },
    { id: "claude-haiku-5-0", created_at: "2026-11-02T00:00:00Z", line: "haiku", lifecycle: "active" },
  ].map((model) => ({ type: "model", display_name: model.id, ...model }));

  test("asks the models API and picks the newest active Sonnet by created_at", async () => {
    anthropic.models = LISTED;
    const provider = await createAnthropicProvider(anthropicOptions());
    expect(provider.model).toBe(SONNET_NEWEST);
    expect(anthropic.requestsTo("/v1/models")).toHaveLength(1);
  });

  test("--model, then ANTHROPIC_MODEL, win without calling the models API", async () => {
    anthropic.models = LISTED;
    expect((await createAnthropicProvider(anthropicOptions({ ANTHROPIC_MODEL: "from-env" }, "from-flag"))).model).toBe("from-flag");
    expect((await createAnthropicProvider(anthropicOptions({ ANTHROPIC_MODEL: "from-env" }))).model).toBe("from-env");
    expect(anthropic.requestsTo("/v1/models")).toHaveLength(0);
  });

  test("no Sonnet listed is a one-line error naming ANTHROPIC_MODEL and --model", async () => {
    anthropic.models = LISTED.filter((model) => model.line !== "sonnet");
    const error = await rejection(createAnthropicProvider(anthropicOptions()));
    expect(error.message).toBe("anthropic: the models API lists no active Sonnet model (set ANTHROPIC_MODEL or pass --model)");
  });

  test("maps system, roles, images, tool calls, tool results with is_error, tools and limits onto the wire", async () => {
    anthropic.replies = [anthropicStream({ model: "m", text: ["ok"], stop: "end_turn" })];
    const provider = await createAnthropicProvider(anthropicOptions({}, "m"));
    await provider.generate(FULL_REQUEST);
    const [sent] = anthropic.requestsTo("/v1/messages");
    // SDK 1.x sends either credential as a bearer token.
    expect(sent?.headers.get("authorization")).toBe("Bearer sk-ant-test");
    expect(sent?.body).toMatchObject({
      model: "m",
      stream: true,
      system: "Be terse.",
      max_tokens: 321,
      temperature: 0.25,
      stop_sequences: ["END"],
      tools: [{ name: "get_weather", description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.inputSchema }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture? And the weather in Paris?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "A dot. Checking the weather." },
            { type: "tool_use", id: "call_paris", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_nowhere", name: "get_weather", input: { city: "Nowhere" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_paris", is_error: false, content: [{ type: "text", text: "18°C, cloudy" }] },
            { type: "tool_result", tool_use_id: "call_nowhere", is_error: true, content: [{ type: "text", text: "unknown city" }] },
          ],
        },
      ],
    });
  });

  test("streams text_delta events to ontext in order and parses the tool_use built from input_json_delta", async () => {
    anthropic.replies = [
      anthropicStream({
        model: "claude-sonnet-5-5-20260801",
        text: TEXT_DELTAS,
        toolCall: { id: "toolu_01", name: "get_weather", argumentChunks: LYON_ARGUMENT_CHUNKS },
        stop: "tool_use",
      }),
    ];
    const { deltas, result } = await streamedTurn(await createAnthropicProvider(anthropicOptions({}, "claude-sonnet-5-5")));
    expect(deltas).toEqual(TEXT_DELTAS);
    expect(result).toEqual({
      content: [
        { type: "text", text: TEXT_DELTAS.join("") },
        { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Lyon" } },
      ],
      stopReason: "tool_use",
      model: "claude-sonnet-5-5-20260801",
    });
  });

  test("ANTHROPIC_AUTH_TOKEN alone is enough, sent as the bearer token", async () => {
    anthropic.replies = [anthropicStream({ model: "m", text: ["ok"], stop: "end_turn" })];
    const provider = await createAnthropicProvider(options(anthropic, { ANTHROPIC_AUTH_TOKEN: "oauth-token" }, "m"));
    expect((await provider.generate(HELLO)).stopReason).toBe("end_turn");
    const [sent] = anthropic.requestsTo("/v1/messages");
    expect(sent?.headers.get("authorization")).toBe("Bearer oauth-token");
  });

  test.each([
    ["end_turn", "end_turn"],
    ["tool_use", "tool_use"],
    ["max_tokens", "max_tokens"],
    ["stop_sequence", "stop_sequence"],
    ["refusal", "refusal"],
    ["model_context_window_exceeded", "max_tokens"],
    ["pause_turn", "other"],
  ] as const)("stop_reason %s maps to %s", (vendor, ours) => {
    expect(mapStopReason(vendor)).toBe(ours);
  });

  test("a streamed max_tokens stop comes back as max_tokens", async () => {
    anthropic.replies = [anthropicStream({ model: "m", text: ["trunc"], stop: "max_tokens" })];
    const provider = await createAnthropicProvider(anthropicOptions({}, "m"));
    expect((await provider.generate(HELLO)).stopReason).toBe("max_tokens");
  });

  test("HTTP 401 becomes one line with the status, the vendor's message and the key to check", async () => {
    anthropic.replies = [
      { kind: "error", status: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } },
    ];
    const error = await failure(await createAnthropicProvider(anthropicOptions({}, "m")));
    expect(error.message).toBe("anthropic: HTTP 401: invalid x-api-key (check ANTHROPIC_API_KEY)");
    expectOneLine(error);
  });

  test("HTTP 500 is retried once, then becomes one line", async () => {
    anthropic.replies = [
      { kind: "error", status: 500, body: { type: "error", error: { type: "api_error", message: "Internal server error" } } },
    ];
    const error = await failure(await createAnthropicProvider(anthropicOptions({}, "m")));
    expect(error.message).toBe("anthropic: HTTP 500: Internal server error");
    expectOneLine(error);
    expect(anthropic.requestsTo("/v1/messages")).toHaveLength(2);
  });

  test("an aborted signal rejects with an AbortError", async () => {
    anthropic.replies = [anthropicStream({ model: "m", text: ["never"], stop: "end_turn" })];
    const provider = await createAnthropicProvider(anthropicOptions({}, "m"));
    const error = await failure(provider, { ...HELLO, signal: AbortSignal.abort() });
    expect(error.name).toBe("AbortError");
  });

  test("a missing credential is a one-line error naming both env vars", async () => {
    const error = await rejection(createAnthropicProvider({ env: {} }));
    expect(error.message).toBe("anthropic: no credential (set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN)");
  });
});

describe("anthropic model picker", () => {
  const at = (id: string, created_at: string, extra: object = {}) => ({ id, created_at, ...extra });
  test("matches Sonnet by id when a compatible gateway sends no `line` field", () => {
    expect(
      pickAnthropicModel([
        at("claude-3-7-sonnet-latest", "2025-02-24T00:00:00Z"),
        at("claude-sonnet-4-0", "2025-05-22T00:00:00Z"),
        at("claude-opus-4-1", "2025-08-05T00:00:00Z"),
      ] as never),
    ).toBe("claude-sonnet-4-0");
  });
  test("trusts `line: null` over a Sonnet-looking id", () => {
    expect(
      pickAnthropicModel([at("not-really-sonnet", "2026-01-01T00:00:00Z", { line: null, lifecycle: "active" })] as never),
    ).toBeUndefined();
  });
});

describe("openai", () => {
  const model = (id: string, created: number) => ({ id, object: "model", created, owned_by: "openai" });
  const LISTED = [
    model("gpt-4.1", 1_744_000_000),
    model("gpt-5.1", 1_762_000_000),
    model("gpt-5.1-2025-11-13", 1_763_000_000),
    model("gpt-5.1-mini", 1_764_000_000),
    model("gpt-5.1-codex", 1_764_500_000),
    model("gpt-realtime", 1_765_000_000),
    model("gpt-4o-mini-tts", 1_765_000_001),
    model("gpt-oss-120b", 1_765_000_002),
    model("o4-mini", 1_765_000_003),
    model("text-embedding-3-large", 1_765_000_004),
  ];

  test("asks the models API and picks the newest mainline GPT, preferring the alias over its dated snapshot", async () => {
    openai.models = LISTED;
    const provider = await createOpenAIProvider(openaiOptions());
    expect(provider.model).toBe("gpt-5.1");
    expect(openai.requestsTo("/v1/models")).toHaveLength(1);
  });

  test("--model, then OPENAI_MODEL, win without calling the models API", async () => {
    openai.models = LISTED;
    expect((await createOpenAIProvider(openaiOptions({ OPENAI_MODEL: "llama3.2" }, "qwen3"))).model).toBe("qwen3");
    expect((await createOpenAIProvider(openaiOptions({ OPENAI_MODEL: "llama3.2" }))).model).toBe("llama3.2");
    expect(openai.requestsTo("/v1/models")).toHaveLength(0);
  });

  test("a server listing no GPT model (e.g. Ollama) is a one-line error naming OPENAI_MODEL and --model", async () => {
    openai.models = [model("llama3.2:latest", 1_730_000_000)];
    const error = await rejection(createOpenAIProvider(openaiOptions()));
    expect(error.message).toBe(
      `openai: the models API lists no mainline GPT chat model at ${openai.url} (set OPENAI_MODEL or pass --model)`,
    );
  });

  test("maps system, roles, images, tool calls, tool results (failures prefixed Error:) and function tools onto the wire", async () => {
    openai.replies = [openaiStream({ model: "m", text: ["ok"], stop: "stop" })];
    const provider = await createOpenAIProvider(openaiOptions({}, "m"));
    await provider.generate(FULL_REQUEST);
    const [sent] = openai.requestsTo("/v1/chat/completions");
    expect(sent?.headers.get("authorization")).toBe("Bearer sk-test");
    expect(sent?.body).toMatchObject({
      model: "m",
      stream: true,
      max_tokens: 321,
      temperature: 0.25,
      stop: ["END"],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.inputSchema },
        },
      ],
      messages: [
        { role: "system", content: "Be terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture? And the weather in Paris?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        },
        {
          role: "assistant",
          content: "A dot. Checking the weather.",
          tool_calls: [
            { id: "call_paris", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_nowhere", type: "function", function: { name: "get_weather", arguments: '{"city":"Nowhere"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_paris", content: "18°C, cloudy" },
        { role: "tool", tool_call_id: "call_nowhere", content: "Error: unknown city" },
      ],
    });
    expect(sent?.body.messages).toHaveLength(5);
  });

  test("images a tool returned follow the tool messages in a user message", async () => {
    openai.replies = [openaiStream({ model: "m", text: ["ok"], stop: "stop" })];
    const provider = await createOpenAIProvider(openaiOptions({}, "m"));
    const screenshot: ChatMessage = {
      role: "user",
      content: [
        {
          type: "tool_result",
          toolUseId: "call_shot",
          isError: false,
          content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }],
        },
      ],
    };
    await provider.generate({
      ...HELLO,
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "call_shot", name: "screenshot", input: {} }] }, screenshot],
    });
    const messages = openai.requestsTo("/v1/chat/completions")[0]?.body.messages;
    expect(messages.slice(1)).toEqual([
      { role: "tool", tool_call_id: "call_shot", content: "(the result is the image that follows)" },
      {
        role: "user",
        content: [
          { type: "text", text: "Image returned by tool call call_shot:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        ],
      },
    ]);
  });

  test("streams content deltas to ontext in order and assembles the tool call from tool_calls deltas", async () => {
    openai.replies = [
      openaiStream({
        model: "gpt-5.1-2025-11-13",
        text: TEXT_DELTAS,
        toolCall: { id: "call_Lyon", name: "get_weather", argumentChunks: LYON_ARGUMENT_CHUNKS },
        stop: "tool_calls",
      }),
    ];
    const { deltas, result } = await streamedTurn(await createOpenAIProvider(openaiOptions({}, "gpt-5.1")));
    expect(deltas).toEqual(TEXT_DELTAS);
    expect(result).toEqual({
      content: [
        { type: "text", text: TEXT_DELTAS.join("") },
        { type: "tool_use", id: "call_Lyon", name: "get_weather", input: { city: "Lyon" } },
      ],
      stopReason: "tool_use",
      model: "gpt-5.1-2025-11-13",
    });
  });

  test.each([
    ["stop", false, "end_turn"],
    ["stop", true, "tool_use"],
    ["tool_calls", true, "tool_use"],
    ["length", false, "max_tokens"],
    ["content_filter", false, "refusal"],
    [null, false, "other"],
  ] as const)("finish_reason %p (tool calls: %p) maps to %s", (reason, calledTools, ours) => {
    expect(mapOpenAIFinish(reason, calledTools)).toBe(ours);
  });

  test("a streamed length finish comes back as max_tokens", async () => {
    openai.replies = [openaiStream({ model: "m", text: ["trunc"], stop: "length" })];
    const provider = await createOpenAIProvider(openaiOptions({}, "m"));
    expect((await provider.generate(HELLO)).stopReason).toBe("max_tokens");
  });

  test("api.openai.com gets max_completion_tokens, any other server max_tokens", () => {
    expect(maxTokensParam("https://api.openai.com/v1", 9)).toEqual({ max_completion_tokens: 9 });
    expect(maxTokensParam("http://localhost:11434/v1", 9)).toEqual({ max_tokens: 9 });
  });

  test("HTTP 401 becomes one line with the status, the vendor's message and the key to check", async () => {
    openai.replies = [
      {
        kind: "error",
        status: 401,
        body: { error: { message: "Incorrect API key provided: sk-test.", type: "invalid_request_error", code: "invalid_api_key" } },
      },
    ];
    const error = await failure(await createOpenAIProvider(openaiOptions({}, "m")));
    expect(error.message).toBe("openai: HTTP 401: Incorrect API key provided: sk-test. (check OPENAI_API_KEY)");
    expectOneLine(error);
  });

  test("HTTP 500 is retried once, then becomes one line", async () => {
    openai.replies = [
      { kind: "error", status: 500, body: { error: { message: "The server had an error\nwhile processing your request." } } },
    ];
    const error = await failure(await createOpenAIProvider(openaiOptions({}, "m")));
    expect(error.message).toBe("openai: HTTP 500: The server had an error while processing your request.");
    expectOneLine(error);
    expect(openai.requestsTo("/v1/chat/completions")).toHaveLength(2);
  });

  test("a models API failure at start-up is one line too", async () => {
    openai.modelsError = { status: 403, body: { error: { message: "You do not have access to the models endpoint." } } };
    const error = await rejection(createOpenAIProvider(openaiOptions()));
    expect(error.message).toBe("openai: HTTP 403: You do not have access to the models endpoint. (check OPENAI_API_KEY)");
  });

  test("a local server (OPENAI_BASE_URL) needs no OPENAI_API_KEY", async () => {
    openai.replies = [openaiStream({ model: "llama3.2", text: ["hi"], stop: "stop" })];
    const provider = await createOpenAIProvider(options(openai, {}, "llama3.2"));
    expect((await provider.generate(HELLO)).content).toEqual([{ type: "text", text: "hi" }]);
  });
});

describe("openai model picker", () => {
  const at = (id: string, created: number) => ({ id, created });
  test("a dated snapshot counts when its alias is not listed", () => {
    expect(pickOpenAIModel([at("gpt-4.1", 10), at("gpt-5-2025-08-07", 20), at("gpt-5-pro", 30)])).toBe("gpt-5-2025-08-07");
  });
  test.each([
    "gpt-5.1-mini",
    "gpt-5-nano",
    "gpt-5-pro",
    "gpt-4o-audio-preview",
    "gpt-4o-realtime-preview",
    "gpt-4o-search-preview",
    "gpt-4o-transcribe",
    "gpt-4o-mini-tts",
    "gpt-image-1",
    "gpt-5-codex",
    "gpt-3.5-turbo-instruct",
    "gpt-oss-20b",
    "gpt-5-chat-latest",
  ])("%s is never picked", (id) => {
    expect(pickOpenAIModel([at(id, 99), at("gpt-4.1", 1)])).toBe("gpt-4.1");
  });
});

describe("gemini", () => {
  const model = (id: string, actions = ["generateContent", "countTokens"]) => ({
    name: `models/${id}`,
    displayName: id,
    supportedGenerationMethods: actions,
  });
  const LISTED = [
    model("gemini-2.0-flash"),
    model("gemini-2.5-flash-001"),
    model("gemini-2.5-flash"),
    model("gemini-2.5-flash-lite"),
    model("gemini-2.5-pro"),
    model("gemini-3-flash-preview"),
    model("gemini-3.5-flash-image"),
    model("gemini-3-flash-exp"),
    model("gemini-2.5-flash-preview-tts"),
    model("gemini-live-3-flash"),
    model("gemini-9-flash", ["embedContent"]),
    model("text-embedding-004", ["embedContent"]),
  ];

  test("asks the models API and picks the newest stable Flash that supports generateContent", async () => {
    gemini.models = LISTED;
    const provider = await createGeminiProvider(geminiOptions());
    expect(provider.model).toBe("gemini-2.5-flash");
    expect(gemini.requestsTo("/v1beta/models")).toHaveLength(1);
    expect(gemini.requests[0]?.headers.get("x-goog-api-key")).toBe("gm-test");
  });

  test("--model, then GEMINI_MODEL, win without calling the models API", async () => {
    gemini.models = LISTED;
    expect((await createGeminiProvider(geminiOptions({ GEMINI_MODEL: "from-env" }, "from-flag"))).model).toBe("from-flag");
    expect((await createGeminiProvider(geminiOptions({ GEMINI_MODEL: "from-env" }))).model).toBe("from-env");
    expect(gemini.requests).toHaveLength(0);
  });

  test("no stable Flash listed is a one-line error naming GEMINI_MODEL and --model", async () => {
    gemini.models = [model("gemini-3-flash-preview"), model("gemini-2.5-pro")];
    const error = await rejection(createGeminiProvider(geminiOptions()));
    expect(error.message).toBe(
      "gemini: the models API lists no stable Flash model supporting generateContent (set GEMINI_MODEL or pass --model)",
    );
  });

  test(
    "maps system, roles, images, function calls, function responses (failures under `error`) and parametersJsonSchema onto the " + "wire",
    async () => {
      gemini.replies = [geminiStream({ model: "m", text: ["ok"], stop: "STOP" })];
      const provider = await createGeminiProvider(geminiOptions({}, "m"));
      await provider.generate(FULL_REQUEST);
      const [sent] = gemini.requestsTo(":streamGenerateContent");
      expect(sent?.path).toBe("/v1beta/models/m:streamGenerateContent");
      expect(sent?.query.get("alt")).toBe("sse");
      expect(sent?.body).toMatchObject({
        systemInstruction: { parts: [{ text: "Be terse." }] },
        generationConfig: { maxOutputTokens: 321, temperature: 0.25, stopSequences: ["END"] },
        tools: [
          {
            functionDeclarations: [
              { name: "get_weather", description: WEATHER_TOOL.description, parametersJsonSchema: WEATHER_TOOL.inputSchema },
            ],
          },
        ],
        contents: [
          {
            role: "user",
            parts: [
              { text: "What is in this picture? And the weather in Paris?" },
              { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
            ],
          },
          {
            role: "model",
            parts: [
              { text: "A dot. Checking the weather." },
              // History from elsewhere has no signature: the first call carries Google's documented skip value.
              { functionCall: { id: "call_paris", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SKIP_SIGNATURE_CHECK },
              { functionCall: { id: "call_nowhere", name: "get_weather", args: { city: "Nowhere" } } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { id: "call_paris", name: "get_weather", response: { output: "18°C, cloudy" } } },
              { functionResponse: { id: "call_nowhere", name: "get_weather", response: { error: "unknown city" } } },
            ],
          },
        ],
      });
      expect(sent?.body.contents[1].parts[2].thoughtSignature).toBeUndefined();
    },
  );

  test("function responses lead the user turn; images a tool returned follow as inline data", async () => {
    gemini.replies = [geminiStream({ model: "m", text: ["ok"], stop: "STOP" })];
    const provider = await createGeminiProvider(geminiOptions({}, "m"));
    const screenshot: ChatMessage = {
      role: "user",
      content: [
        { type: "text", text: "Here it is." },
        {
          type: "tool_result",
          toolUseId: "fc-shot",
          isError: false,
          content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }],
        },
      ],
    };
    await provider.generate({
      ...HELLO,
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "fc-shot", name: "screenshot", input: {} }] }, screenshot],
    });
    expect(gemini.requestsTo(":streamGenerateContent")[0]?.body.contents[1]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { id: "fc-shot", name: "screenshot", response: { output: "" } } },
        { text: "Here it is." },
        { text: "Image returned by the screenshot call:" },
        { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
      ],
    });
  });

  test("streams text parts to ontext in order and returns the functionCall part as a tool_use with its id", async () => {
    gemini.replies = [
      geminiStream({
        model: "gemini-2.5-flash",
        text: TEXT_DELTAS,
        toolCall: { id: "fc-7", name: "get_weather", argumentChunks: LYON_ARGUMENT_CHUNKS },
        stop: "STOP",
      }),
    ];
    const { deltas, result } = await streamedTurn(await createGeminiProvider(geminiOptions({}, "gemini-2.5-flash")));
    expect(deltas).toEqual(TEXT_DELTAS);
    expect(result).toEqual({
      content: [
        { type: "text", text: TEXT_DELTAS.join("") },
        { type: "tool_use", id: "fc-7", name: "get_weather", input: { city: "Lyon" } },
      ],
      stopReason: "tool_use",
      model: "gemini-2.5-flash",
    });
  });

  test(
    "a function call without an id gets a synthetic one, which maps back to an id-less call and response with its " + "thoughtSignature",
    async () => {
      gemini.replies = [
        geminiStream({
          model: "m",
          toolCall: { name: "get_weather", argumentChunks: ['{"city":"Oslo"}'], thoughtSignature: "c2lnbmF0dXJl" },
          stop: "STOP",
        }),
        geminiStream({ model: "m", text: ["Cold."], stop: "STOP" }),
      ];
      const provider = await createGeminiProvider(geminiOptions({}, "m"));
      const first = await provider.generate({ ...HELLO, tools: [WEATHER_TOOL] });
      const call = first.content[0];
      if (call?.type !== "tool_use") throw new Error(`expected a tool_use, got ${JSON.stringify(call)}`);
      expect(call.id.startsWith(SYNTHETIC_ID_PREFIX)).toBe(true);
      expect(call.input).toEqual({ city: "Oslo" });

      const second = await provider.generate({
        ...HELLO,
        tools: [WEATHER_TOOL],
        messages: [
          ...HELLO.messages,
          { role: "assistant", content: [call] },
          {
            role: "user",
            content: [{ type: "tool_result", toolUseId: call.id, content: [{ type: "text", text: "-3°C" }], isError: false }],
          },
        ],
      });
      expect(second.content).toEqual([{ type: "text", text: "Cold." }]);
      const contents = gemini.requestsTo(":streamGenerateContent")[1]?.body.contents;
      expect(contents[1]).toEqual({
        role: "model",
        parts: [{ functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "c2lnbmF0dXJl" }],
      });
      expect(contents[2]).toEqual({ role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "-3°C" } } }] });
    },
  );

  test.each([
    ["STOP", false, "end_turn"],
    ["STOP", true, "tool_use"],
    ["MAX_TOKENS", false, "max_tokens"],
    ["SAFETY", false, "refusal"],
    ["RECITATION", false, "refusal"],
    ["PROHIBITED_CONTENT", false, "refusal"],
    ["MALFORMED_FUNCTION_CALL", false, "other"],
  ] as const)("finishReason %s (function calls: %p) maps to %s", (reason, calledTools, ours) => {
    expect(mapGeminiFinish(reason, calledTools)).toBe(ours);
  });

  test("a streamed SAFETY finish comes back as refusal", async () => {
    gemini.replies = [geminiStream({ model: "m", text: ["I can"], stop: "SAFETY" })];
    const provider = await createGeminiProvider(geminiOptions({}, "m"));
    expect((await provider.generate(HELLO)).stopReason).toBe("refusal");
  });

  test("HTTP 401 becomes one line with the status, the vendor's message and the key to check", async () => {
    gemini.replies = [
      {
        kind: "error",
        status: 401,
        body: { error: { code: 401, message: "API key not valid. Please pass a valid API key.", status: "UNAUTHENTICATED" } },
      },
    ];
    const error = await failure(await createGeminiProvider(geminiOptions({}, "m")));
    expect(error.message).toBe("gemini: HTTP 401: API key not valid. Please pass a valid API key. (check GEMINI_API_KEY)");
    expectOneLine(error);
  });

  test("HTTP 500 is retried once, then becomes one line", async () => {
    gemini.replies = [
      { kind: "error", status: 500, body: { error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL" } } },
    ];
    const error = await failure(await createGeminiProvider(geminiOptions({}, "m")));
    expect(error.message).toBe("gemini: HTTP 500: An internal error has occurred.");
    expectOneLine(error);
    expect(gemini.requestsTo(":streamGenerateContent")).toHaveLength(2);
  });

  test("an aborted signal rejects with an AbortError", async () => {
    gemini.replies = [geminiStream({ model: "m", text: ["never"], stop: "STOP" })];
    const provider = await createGeminiProvider(geminiOptions({}, "m"));
    const error = await failure(provider, { ...HELLO, signal: AbortSignal.abort() });
    expect(error.name).toBe("AbortError");
  });
});

describe("gemini model picker", () => {
  const model = (id: string) => ({ name: `models/${id}`, supportedActions: ["generateContent"] });
  test("compares versions numerically (2.10 after 2.9) and prefers the alias to its -001 snapshot", () => {
    expect(pickGeminiModel([model("gemini-2.9-flash"), model("gemini-2.10-flash-001"), model("gemini-2.10-flash")])).toBe(
      "gemini-2.10-flash",
    );
    expect(pickGeminiModel([model("gemini-2.9-flash"), model("gemini-2.10-flash-001")])).toBe("gemini-2.10-flash-001");
  });
  test.each([
    "gemini-3-flash-lite",
    "gemini-3-flash-preview",
    "gemini-3-flash-exp",
    "gemini-3-flash-thinking-exp",
    "gemini-3-flash-image",
    "gemini-3-flash-preview-tts",
    "gemini-live-3-flash",
    "gemini-flash-latest",
  ])("%s is never picked", (id) => {
    expect(pickGeminiModel([model(id), model("gemini-2.0-flash")])).toBe("gemini-2.0-flash");
  });
});

describe("aborting mid-stream", () => {
  const FIRST_WORDS = ["First ", "words"];
  test.each([
    [
      "anthropic",
      () => createAnthropicProvider(anthropicOptions({}, "m")),
      () => (anthropic.replies = [hanging(anthropicStream({ model: "m", text: FIRST_WORDS, stop: "end_turn" }))]),
    ],
    [
      "openai",
      () => createOpenAIProvider(openaiOptions({}, "m")),
      () => (openai.replies = [hanging(openaiStream({ model: "m", text: FIRST_WORDS, stop: "stop" }))]),
    ],
    [
      "gemini",
      () => createGeminiProvider(geminiOptions({}, "m")),
      () => (gemini.replies = [hanging(geminiStream({ model: "m", text: FIRST_WORDS, stop: "STOP" }))]),
    ],
  ] as const)(
    "%s: aborting after the first delta ends a stream the server keeps open, with an AbortError",
    async (_vendor, create, queueHangingReply) => {
      queueHangingReply();
      const provider = await create();
      const controller = new AbortController();
      const deltas: string[] = [];
      const ontext = (delta: string) => {
        deltas.push(delta);
        controller.abort();
      };
      const error = await failure(provider, { ...HELLO, signal: controller.signal, ontext });
      expect(error.name).toBe("AbortError");
      expect(deltas[0]).toBe(FIRST_WORDS[0]);
    },
  );
});

describe("an error reported inside a 200 stream", () => {
  test("anthropic: an `error` event mid-stream becomes one line with its type and message", async () => {
    const { events } = anthropicStream({ model: "m", text: ["par"], stop: "end_turn" });
    anthropic.replies = [
      {
        kind: "stream",
        events: [
          ...events.slice(0, 3),
          { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
        ],
      },
    ];
    const error = await failure(await createAnthropicProvider(anthropicOptions({}, "m")));
    expect(error.message).toBe("anthropic: overloaded_error: Overloaded");
  });

  test("openai: an `error` chunk mid-stream becomes one line with its message", async () => {
    const { events } = openaiStream({ model: "m", text: ["par"], stop: "stop" });
    openai.replies = [
      { kind: "stream", events: [events[0]!, { data: { error: { message: "The model is overloaded", type: "server_error" } } }] },
    ];
    const error = await failure(await createOpenAIProvider(openaiOptions({}, "m")));
    expect(error.message).toBe("openai: The model is overloaded");
  });

  test("gemini: an `error` chunk in the stream becomes one line with its status and message", async () => {
    gemini.replies = [
      { kind: "stream", events: [{ data: { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } } }] },
    ];
    const error = await failure(await createGeminiProvider(geminiOptions({}, "m")));
    expect(error.message).toBe("gemini: HTTP 503: The model is overloaded.");
  });
});

describe("unreachable or misconfigured endpoints", () => {
  const refused = `http://127.0.0.1:${closedPort()}`;
  test.each([
    [
      "anthropic",
      () => createAnthropicProvider({ env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: refused }, model: "m" }),
      "ANTHROPIC_BASE_URL",
    ],
    ["openai", () => createOpenAIProvider({ env: { OPENAI_BASE_URL: `${refused}/v1` }, model: "m" }), "OPENAI_BASE_URL"],
    ["gemini", () => createGeminiProvider({ env: { GEMINI_API_KEY: "k", GEMINI_BASE_URL: refused }, model: "m" }), "GEMINI_BASE_URL"],
  ] as const)("%s: a refused connection is one line naming the base URL to check", async (vendor, create, urlVar) => {
    const error = await failure(await create());
    expectOneLine(error);
    expect(error.message).toStartWith(`${vendor}: `);
    expect(error.message).toEndWith(`(check ${urlVar}=${refused}${vendor === "openai" ? "/v1" : ""})`);
  });

  test("a base URL that is not a URL is refused up front", async () => {
    const error = await rejection(createOpenAIProvider({ env: { OPENAI_BASE_URL: "localhost 11434" } }));
    expect(error.message).toBe('openai: OPENAI_BASE_URL is not a URL: "localhost 11434"');
  });
});
