// The INPUT_REQUIRED envelope's answers template: what an agent fills in and sends back.
import { expect, test } from "bun:test";
import { inputRequired } from "../../../inspect/questions.ts";

const ask = (properties: Record<string, unknown>, required: string[] = []) =>
  inputRequired(
    { q: { method: "elicitation/create", params: { message: "Details?", requestedSchema: { type: "object", properties, required } } } },
    undefined,
    false,
  ).details as { answers: { inputResponses: { q: { action: string; content: Record<string, unknown> } } } };

test("fields with a default start as that default (of any type); the others are placeholders that say what to write", () => {
  const { content, action } = ask(
    {
      name: { type: "string", default: "John Doe" },
      age: { type: "integer", default: 30 },
      score: { type: "number", default: 95.5 },
      status: { type: "string", enum: ["active", "inactive"], default: "active" },
      verified: { type: "boolean", default: false },
      email: { type: "string", description: "where to write" },
      nick: { type: "string" },
    },
    ["email"],
  ).answers.inputResponses.q;
  expect(action).toBe("accept");
  expect(content).toEqual({
    name: "John Doe",
    age: 30,
    score: 95.5,
    status: "active",
    verified: false,
    email: "<string, required: where to write>",
    nick: "<string>",
  });
});
