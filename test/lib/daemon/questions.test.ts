// lib/daemon/questions: how a client asks mcp-daemon to park a 2025 server's question, and the
// names the parked question travels under.
import { describe, expect, test } from "bun:test";
import { isParkRequest, PARK_ERROR_MESSAGE, PARKED_KEY_PREFIX, PARKED_NOTIFICATION } from "../../../lib/daemon/questions.ts";
import { ErrorCode, errorResponse } from "../../../lib/wire/jsonrpc.ts";

describe("isParkRequest", () => {
  const cases: [string, unknown, boolean][] = [
    ["the error a client answers with to park", errorResponse(1, ErrorCode.ParkQuestion, PARK_ERROR_MESSAGE).error, true],
    ["an Error carrying the code", Object.assign(new Error(PARK_ERROR_MESSAGE), { code: ErrorCode.ParkQuestion }), true],
    ["the park message under another code", { code: ErrorCode.InternalError, message: PARK_ERROR_MESSAGE }, false],
    ["the code as a string", { code: String(ErrorCode.ParkQuestion) }, false],
    ["a declined question", { code: ErrorCode.MethodNotFound, message: "no" }, false],
    ["an error without a code", new Error("park"), false],
    ["null", null, false],
    ["undefined", undefined, false],
    ["the bare code", ErrorCode.ParkQuestion, false],
  ];
  for (const [what, error, park] of cases) test(`${what}: ${park}`, () => expect(isParkRequest(error)).toBe(park));
});

test("a parked question's names are mcpkit's own: a namespaced notification, a key prefix no server input key starts with", () => {
  expect(PARKED_NOTIFICATION).toStartWith("notifications/mcpkit/");
  expect(PARKED_KEY_PREFIX).toStartWith("mcpkit-");
  expect(PARK_ERROR_MESSAGE).toStartWith("mcpkit: ");
});
