// A server that asks a question mid-call, against the reference server's `elicit` and `elicit_url`
// tools: without a terminal the call ends with exit 8 and the questions, and the next call answers
// them (2026-07-28: the retried request; 2025: through mcp-daemon); on a terminal the form is shown.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BUN,
  daemonDir,
  inspect,
  REFERENCE_CMD,
  REFERENCE_ENTRY,
  ROOT,
  removeTempDirs,
  startReferenceHttp,
  stopDaemons,
  TEST_GUARD_MS,
  tempDir,
  toolCommand,
} from "../../support/helpers.ts";
import { inTerminal } from "../../support/terminal.ts";

const SERVER = ["--", ...REFERENCE_CMD];
const LEGACY = ["--protocol-version", "2025-11-25"];
afterAll(removeTempDirs);
afterEach(stopDaemons);

function answersFile(document: unknown): string {
  const file = join(tempDir(), "answers.json");
  writeFileSync(file, JSON.stringify(document));
  return file;
}

/** Fills in the template the envelope gave: every "<...>" placeholder becomes `value`. */
function filledIn(answers: { inputResponses: Record<string, { content?: Record<string, unknown> }> }, value: string) {
  for (const response of Object.values(answers.inputResponses)) {
    for (const key of Object.keys(response.content ?? {})) response.content![key] = value;
  }
  return answers;
}

describe("2026-07-28: input_required without a terminal", () => {
  test(
    "the call ends with exit 8 and the question, its schema and the answers to fill in; the next call answers it",
    async () => {
      const first = await inspect(["call-tool", "elicit", ...SERVER]);
      expect(first.code).toBe(8);
      expect(first.json.error.code).toBe("INPUT_REQUIRED");
      expect(first.json.error.message).toContain("What is your name?");
      expect(first.json.error.message).toContain("--input-responses @answers.json");
      const details = first.json.error.details;
      expect(details.inputRequests.name.params.requestedSchema.required).toEqual(["name"]);
      expect(details.answers).toEqual({ inputResponses: { name: { action: "accept", content: { name: "<string, required>" } } } });

      const second = await inspect([
        "call-tool",
        "elicit",
        "--input-responses",
        `@${answersFile(filledIn(details.answers, "Ada"))}`,
        ...SERVER,
      ]);
      expect(second.code).toBe(0);
      expect(JSON.parse(second.json.data.content[0].text)).toEqual({ action: "accept", content: { name: "Ada" } });
    },
    TEST_GUARD_MS,
  );

  test(
    "answers on stdin, and a decline reaches the server as a decline",
    async () => {
      const run = await inspect(["call-tool", "elicit", "--input-responses", "-", ...SERVER], {
        stdin: JSON.stringify({ name: { action: "decline" } }),
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.json.data.content[0].text)).toEqual({ action: "decline" });
    },
    TEST_GUARD_MS,
  );

  test(
    "a URL-mode question prints its URL and never opens it",
    async () => {
      const opened = join(tempDir(), "opened.log");
      writeFileSync(opened, "");
      const run = await inspect(["call-tool", "elicit_url", "url=https://example.com/consent", ...SERVER], {
        env: { BROWSER: `${BUN} ${join(ROOT, "test/fixtures/browser.ts")}`, MCPKIT_TEST_BROWSER_LOG: opened },
      });
      expect(run.code).toBe(8);
      expect(run.json.error.message).toContain("open https://example.com/consent, then answer accept");
      expect(run.json.error.details.answers.inputResponses.visit).toEqual({ action: "accept" });
      expect(readFileSync(opened, "utf8")).toBe("");
    },
    TEST_GUARD_MS,
  );

  test("answers that are not an object are a usage error before any server starts", async () => {
    const run = await inspect(["call-tool", "elicit", "--input-responses", "[1,2]", ...SERVER]);
    expect(run.code).toBe(1);
    expect(run.json.error.message).toContain("--input-responses must be a JSON object");
  });
});

describe("2025: elicitation/create", () => {
  test(
    "without a terminal and without --stateful: not declared, so the server says it cannot ask",
    async () => {
      const run = await inspect(["call-tool", "elicit", ...LEGACY, ...SERVER]);
      expect(run.code).toBe(6);
      expect(run.json.error.message).toContain("did not declare the required capability");
    },
    TEST_GUARD_MS,
  );

  test(
    "with --input-responses but without --stateful: the question ends the call with exit 8, naming --stateful",
    async () => {
      const run = await inspect(["call-tool", "elicit", ...LEGACY, "--input-responses", "{}", ...SERVER]);
      expect(run.code).toBe(8);
      expect(run.json.error.message).toContain("run the same command with --stateful");
    },
    TEST_GUARD_MS,
  );

  test(
    "with --stateful: the daemon keeps the question and the call waiting; the next call answers and gets the result",
    async () => {
      const env = { MCPKIT_DAEMON_DIR: daemonDir() };
      const first = await inspect(["call-tool", "elicit", "--stateful", ...LEGACY, ...SERVER], { env });
      expect(first.code).toBe(8);
      const answers = filledIn(first.json.error.details.answers, "Grace");
      const [key] = Object.keys(answers.inputResponses);
      expect(key).toStartWith("mcpkit-question-");
      expect(first.json.error.details.inputRequests[key!].params.message).toBe("What is your name?");

      const second = await inspect(
        ["call-tool", "elicit", "--stateful", ...LEGACY, "--input-responses", `@${answersFile(answers)}`, ...SERVER],
        { env },
      );
      expect(second.code).toBe(0);
      expect(JSON.parse(second.json.data.content[0].text)).toEqual({ action: "accept", content: { name: "Grace" } });

      const stale = await inspect(
        ["call-tool", "elicit", "--stateful", ...LEGACY, "--input-responses", `@${answersFile(answers)}`, ...SERVER],
        { env },
      );
      expect(stale.code).toBe(5);
      expect(stale.json.error.message).toContain("no question is waiting under");
    },
    TEST_GUARD_MS,
  );

  test(
    "over HTTP, a question the server asks on its standalone GET stream mid-call is seen: exit 8 at once, not a timeout; " +
      "through the daemon it is parked and answered like any other",
    async () => {
      const server = await startReferenceHttp();
      try {
        const url = ["--url", server.url];
        const oneShot = await inspect(["call-tool", "elicit_later", "wait=true", ...LEGACY, "--input-responses", "{}", ...url]);
        expect(oneShot.code).toBe(8);
        expect(oneShot.json.error.details.inputRequests.question.params.message).toBe("A later question: your name?");

        const env = { MCPKIT_DAEMON_DIR: daemonDir() };
        const first = await inspect(["call-tool", "elicit_later", "wait=true", "--stateful", ...LEGACY, ...url], { env });
        expect(first.code).toBe(8);
        const answers = answersFile(filledIn(first.json.error.details.answers, "Lin"));
        const second = await inspect(
          ["call-tool", "elicit_later", "wait=true", "--stateful", ...LEGACY, "--input-responses", `@${answers}`, ...url],
          { env },
        );
        expect(second.code).toBe(0);
        expect(second.json.data.content[0].text).toBe('accept {"name":"Lin"}');
      } finally {
        await server.stop();
      }
    },
    TEST_GUARD_MS,
  );

  test(
    'a config entry with "stateful": true parks the question as --stateful does',
    async () => {
      const env = { MCPKIT_DAEMON_DIR: daemonDir() };
      const config = join(tempDir(), "mcp.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { ref: { ...REFERENCE_ENTRY, stateful: true } } }));
      const first = await inspect(["call-tool", "elicit", ...LEGACY, "--config", config, "--server", "ref"], { env });
      expect(first.code).toBe(8);
      const second = await inspect(
        [
          "call-tool",
          "elicit",
          ...LEGACY,
          "--config",
          config,
          "--server",
          "ref",
          "--input-responses",
          `@${answersFile(filledIn(first.json.error.details.answers, "Ada"))}`,
        ],
        { env },
      );
      expect(second.code).toBe(0);
      expect(JSON.parse(second.json.data.content[0].text)).toEqual({ action: "accept", content: { name: "Ada" } });
    },
    TEST_GUARD_MS,
  );
});

describe("on a terminal", () => {
  for (const [era, flags] of [
    ["2026-07-28", []],
    ["2025-11-25", LEGACY],
  ] as const) {
    test(
      `${era}: the form is shown and answered, and the call goes on`,
      async () => {
        const term = inTerminal([...toolCommand("mcp-inspect.ts"), "call-tool", "elicit", "--json", ...flags, ...SERVER], {
          env: { ...process.env, NO_COLOR: "1", TERM: "xterm" },
        });
        try {
          await term.see("asks: What is your name?");
          await term.see("accept, decline or cancel?");
          term.type("a\r");
          await term.see("name");
          await term.see(": ");
          term.type("Lin\r");
          await term.see('\\"name\\":\\"Lin\\"');
          expect(await term.child.exited).toBe(0);
        } finally {
          term.close();
        }
      },
      TEST_GUARD_MS,
    );
  }
});
