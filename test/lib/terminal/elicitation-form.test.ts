// A server's elicitation answered at a terminal (lib/terminal/elicitation-form.ts): the form built
// from the requested schema, every field type and constraint, what ends a form, and URL mode.
import { describe, expect, test } from "bun:test";
import type { Asker, AskStyle } from "../../../lib/terminal/asker.ts";
import { answerElicitation, parseField } from "../../../lib/terminal/elicitation-form.ts";

/** A person who types `answers` in order (null: the end of input), and what the form showed them. */
function person(answers: (string | null)[], confirms: boolean[] = []) {
  const printed: { line: string; style?: AskStyle }[] = [];
  const prompts: string[] = [];
  const asker: Required<Asker> = {
    print: (line, style) => void printed.push({ line, style }),
    ask: async (prompt) => {
      prompts.push(prompt);
      if (answers.length === 0) throw new Error(`asked "${prompt}" with no answer left`);
      return answers.shift()!;
    },
    confirm: async (question) => {
      prompts.push(question);
      if (confirms.length === 0) throw new Error(`asked to confirm "${question}" with no answer left`);
      return confirms.shift()!;
    },
  };
  return { asker, printed, prompts, lines: () => printed.map((p) => p.line), left: () => answers.length };
}

const noBrowser = async (url: string) => {
  throw new Error(`no browser should open ${url}`);
};

describe("elicitation form fields", () => {
  test("numbers and integers are checked against their bounds", () => {
    expect(parseField("5", { type: "integer", minimum: 1, maximum: 10 })).toEqual({ ok: true, value: 5 });
    expect(parseField("5.5", { type: "integer" })).toEqual({ ok: false, error: "enter a whole number" });
    expect(parseField("11", { type: "number", maximum: 10 })).toEqual({ ok: false, error: "must be at most 10" });
    expect(parseField("ten", { type: "number" })).toEqual({ ok: false, error: "enter a number" });
  });

  test("booleans, enums (by value, title or number) and multi-select arrays", () => {
    expect(parseField("yes", { type: "boolean" })).toEqual({ ok: true, value: true });
    expect(parseField("maybe", { type: "boolean" }).ok).toBe(false);
    const color = {
      type: "string",
      oneOf: [
        { const: "r", title: "Red" },
        { const: "g", title: "Green" },
      ],
    };
    expect(parseField("green", color)).toEqual({ ok: true, value: "g" });
    expect(parseField("1", color)).toEqual({ ok: true, value: "r" });
    expect(parseField("blue", color).ok).toBe(false);
    const many = { type: "array", items: { enum: ["a", "b", "c"] }, maxItems: 2 };
    expect(parseField("a, c", many)).toEqual({ ok: true, value: ["a", "c"] });
    expect(parseField("a,b,c", many)).toEqual({ ok: false, error: "choose at most 2" });
  });

  test("string lengths and formats", () => {
    expect(parseField("ab", { type: "string", minLength: 3 })).toEqual({ ok: false, error: "at least 3 characters" });
    expect(parseField("a@b.co", { type: "string", format: "email" })).toEqual({ ok: true, value: "a@b.co" });
    expect(parseField("nope", { type: "string", format: "email" }).ok).toBe(false);
    expect(parseField("2026-11-29", { type: "string", format: "date" }).ok).toBe(true);
  });

  // Every type and every constraint the form reads, each on both sides of its edge.
  const cases: [string, string, Record<string, unknown>, { ok: true; value: unknown } | { ok: false; error: string }][] = [
    ["a plain string is taken as typed", "hello there", { type: "string" }, { ok: true, value: "hello there" }],
    ["a field with no type is a string", "x", {}, { ok: true, value: "x" }],
    ["minLength: exactly enough", "abc", { type: "string", minLength: 3 }, { ok: true, value: "abc" }],
    ["maxLength: exactly the most", "abc", { type: "string", maxLength: 3 }, { ok: true, value: "abc" }],
    ["maxLength: one over", "abcd", { type: "string", maxLength: 3 }, { ok: false, error: "at most 3 characters" }],
    ["email without a domain dot", "a@b", { type: "string", format: "email" }, { ok: false, error: "enter an email address" }],
    ["email with a space", "a b@c.de", { type: "string", format: "email" }, { ok: false, error: "enter an email address" }],
    ["uri", "https://example.com/x", { type: "string", format: "uri" }, { ok: true, value: "https://example.com/x" }],
    ["uri that is not one", "not a uri", { type: "string", format: "uri" }, { ok: false, error: "enter a URI" }],
    ["date in another shape", "29/11/2026", { type: "string", format: "date" }, { ok: false, error: "enter a date as YYYY-MM-DD" }],
    ["number: a decimal", "2.5", { type: "number" }, { ok: true, value: 2.5 }],
    ["number: negative", "-3", { type: "number" }, { ok: true, value: -3 }],
    ["number: Infinity is not a number here", "Infinity", { type: "number" }, { ok: false, error: "enter a number" }],
    ["number: NaN", "NaN", { type: "number" }, { ok: false, error: "enter a number" }],
    ["number: exactly the minimum", "1", { type: "number", minimum: 1 }, { ok: true, value: 1 }],
    ["number: under the minimum", "0.5", { type: "number", minimum: 1 }, { ok: false, error: "must be at least 1" }],
    ["number: exactly the maximum", "10", { type: "number", maximum: 10 }, { ok: true, value: 10 }],
    ["integer: 3.0 is whole", "3.0", { type: "integer" }, { ok: true, value: 3 }],
    ["integer: under its minimum", "0", { type: "integer", minimum: 1 }, { ok: false, error: "must be at least 1" }],
    ["boolean: true", "TRUE", { type: "boolean" }, { ok: true, value: true }],
    ["boolean: y", "y", { type: "boolean" }, { ok: true, value: true }],
    ["boolean: no", "No", { type: "boolean" }, { ok: true, value: false }],
    ["boolean: n", "n", { type: "boolean" }, { ok: true, value: false }],
    ["boolean: false", "false", { type: "boolean" }, { ok: true, value: false }],
    ["boolean: anything else", "1", { type: "boolean" }, { ok: false, error: "answer yes or no" }],
    ["enum by value", "b", { type: "string", enum: ["a", "b"] }, { ok: true, value: "b" }],
    ["enum by value, any case", "B", { type: "string", enum: ["a", "b"] }, { ok: true, value: "b" }],
    ["enum by its number", "2", { type: "string", enum: ["a", "b"] }, { ok: true, value: "b" }],
    ["enum by a number past the list", "3", { type: "string", enum: ["a", "b"] }, { ok: false, error: "choose one of: a, b" }],
    ["enum by 0 (numbers start at 1)", "0", { type: "string", enum: ["a", "b"] }, { ok: false, error: "choose one of: a, b" }],
    ["enum by its enumNames title", "Bee", { type: "string", enum: ["a", "b"], enumNames: ["Ay", "Bee"] }, { ok: true, value: "b" }],
    ["anyOf titled options", "Blue", { type: "string", anyOf: [{ const: "b", title: "Blue" }] }, { ok: true, value: "b" }],
    ["oneOf entries without const are no options", "x", { type: "string", oneOf: [{ title: "X" }] }, { ok: true, value: "x" }],
    [
      "array: items by title",
      "Green, 1",
      {
        type: "array",
        items: {
          anyOf: [
            { const: "r", title: "Red" },
            { const: "g", title: "Green" },
          ],
        },
      },
      { ok: true, value: ["g", "r"] },
    ],
    ["array: an unknown item", "a, z", { type: "array", items: { enum: ["a", "b"] } }, { ok: false, error: "choose from: a, b" }],
    [
      "array: empty items between commas are skipped",
      "a,,b,",
      { type: "array", items: { enum: ["a", "b"] } },
      { ok: true, value: ["a", "b"] },
    ],
    ["array: minItems", "a", { type: "array", items: { enum: ["a", "b"] }, minItems: 2 }, { ok: false, error: "choose at least 2" }],
    ["array: exactly minItems", "a,b", { type: "array", items: { enum: ["a", "b"] }, minItems: 2 }, { ok: true, value: ["a", "b"] }],
  ];
  test.each(cases)("%s", (_name, raw, field, expected) => {
    expect(parseField(raw, field)).toEqual(expected);
  });
});

describe("a form", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", title: "Your name", description: "as printed" },
      age: { type: "integer", minimum: 0 },
      size: { type: "string", enum: ["s", "m", "l"], default: "m" },
      tags: { type: "array", items: { enum: ["x", "y"] } },
    },
    required: ["name", "age"],
  };
  const params = { message: "Tell me about you", requestedSchema: schema };

  test("accepted: each field asked by its title, read as its type; Enter takes the default or skips an optional field", async () => {
    const { asker, prompts, lines } = person(["a", "Ann", "41", "", ""]);
    expect(await answerElicitation("srv", params, asker, noBrowser)).toEqual({
      action: "accept",
      content: { name: "Ann", age: 41, size: "m" },
    });
    expect(lines()).toEqual([
      "[srv] asks: Tell me about you",
      "  name (required): as printed - string",
      "  age (required): integer",
      "  size: one of 1) s, 2) m, 3) l",
      "  tags: some of 1) x, 2) y",
    ]);
    expect(prompts).toEqual([
      "accept, decline or cancel? [a/d/c] ",
      "  Your name: ",
      "  age: ",
      "  size [m]: ",
      "  tags (Enter to skip): ",
    ]);
  });

  test.each([
    ["d", "decline"],
    ["Decline", "decline"],
    ["c", "cancel"],
    ["later", "cancel"],
    ["", "cancel"],
  ])("answering %p to accept, decline or cancel gives %p, and no field is asked", async (choice, action) => {
    const { asker, prompts } = person([choice]);
    expect(await answerElicitation("srv", params, asker, noBrowser)).toEqual({ action });
    expect(prompts).toHaveLength(1);
  });

  test("the end of input at the first question, or at a field, cancels the form", async () => {
    expect(await answerElicitation("srv", params, person([null]).asker, noBrowser)).toEqual({ action: "cancel" });
    expect(await answerElicitation("srv", params, person(["accept", "Ann", null]).asker, noBrowser)).toEqual({ action: "cancel" });
  });

  test("a wrong answer is explained and asked again; the right one is kept", async () => {
    const { asker, printed } = person(["a", "Ann", "old", "-1", "7", "xl", "l", "x,y"]);
    expect(await answerElicitation("srv", params, asker, noBrowser)).toEqual({
      action: "accept",
      content: { name: "Ann", age: 7, size: "l", tags: ["x", "y"] },
    });
    expect(printed.filter((p) => p.style === "red").map((p) => p.line)).toEqual([
      "  enter a whole number",
      "  must be at least 0",
      "  choose one of: s, m, l",
    ]);
  });

  test("three wrong answers to one field cancel the form, and nothing after it is asked", async () => {
    const { asker, printed, prompts, left } = person(["a", "Ann", "x", "1.5", "-3", "never asked"]);
    expect(await answerElicitation("srv", params, asker, noBrowser)).toEqual({ action: "cancel" });
    expect(prompts.filter((p) => p === "  age: ")).toHaveLength(3);
    expect(printed.at(-1)).toEqual({ line: "  too many invalid answers: cancelling the form", style: "red" });
    expect(left()).toBe(1);
  });

  test("Enter on a required field with no default counts as a wrong answer: three of them cancel", async () => {
    const { asker, lines } = person(["a", "", "  ", ""]);
    expect(await answerElicitation("srv", params, asker, noBrowser)).toEqual({ action: "cancel" });
    expect(lines().filter((line) => line === "  name is required")).toHaveLength(3);
  });

  test("a form with no schema is accepted empty", async () => {
    expect(await answerElicitation("srv", { message: "ok?" }, person(["a"]).asker, noBrowser)).toEqual({ action: "accept", content: {} });
  });

  test("server text is handed to the Asker as it came: stripping it is the Asker's one job", async () => {
    const { asker, lines } = person(["d"]);
    await answerElicitation("srv", { message: "hi\u001b[2J" }, asker, noBrowser);
    expect(lines()[0]).toBe("[srv] asks: hi\u001b[2J");
  });
});

describe("URL mode", () => {
  test("an https URL is shown and opened after consent, and the answer is accept", async () => {
    const opened: string[] = [];
    const { asker, lines } = person([], [true]);
    const result = await answerElicitation(
      "srv",
      { mode: "url", message: "sign in", url: "https://example.com/auth?x=1" },
      asker,
      async (url) => {
        opened.push(url);
      },
    );
    expect(result).toEqual({ action: "accept" });
    expect(opened).toEqual(["https://example.com/auth?x=1"]);
    expect(lines()).toEqual(["[srv] asks you to open a page: sign in", "  https://example.com/auth?x=1"]);
  });

  test("without consent nothing opens, and the answer is decline", async () => {
    const { asker } = person([], [false]);
    expect(await answerElicitation("srv", { mode: "url", url: "https://example.com/" }, asker, noBrowser)).toEqual({ action: "decline" });
  });

  test.each([
    "http://example.com/",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "data:text/html,<script>x</script>",
    "ftp://example.com/",
    "https://user:secret@example.com/",
    "http://localhost.evil.com/",
    "not a url",
    "",
  ])("%p is refused without asking, and the answer is decline", async (url) => {
    const { asker, printed, prompts } = person([], []);
    expect(await answerElicitation("srv", { mode: "url", url }, asker, noBrowser)).toEqual({ action: "decline" });
    expect(prompts).toEqual([]);
    expect(printed.at(-1)).toEqual({ line: `  refused: ${url} is not an https or loopback URL`, style: "red" });
  });

  test.each(["http://127.0.0.1:8080/cb", "http://localhost/cb", "http://[::1]:3000/"])(
    "a loopback http URL (%p) may be opened after consent",
    async (url) => {
      const opened: string[] = [];
      const { asker } = person([], [true]);
      expect(await answerElicitation("srv", { mode: "url", url }, asker, async (href) => void opened.push(href))).toEqual({
        action: "accept",
      });
      expect(opened).toEqual([new URL(url).href]);
    },
  );

  test("a browser that fails to start is reported, and the answer is still accept (the URL was shown)", async () => {
    const { asker, printed } = person([], [true]);
    const result = await answerElicitation("srv", { mode: "url", url: "https://example.com/" }, asker, async () => {
      throw new Error("no browser");
    });
    expect(result).toEqual({ action: "accept" });
    expect(printed.at(-1)).toEqual({ line: "  could not start a browser: open the URL above yourself", style: "dim" });
  });
});
