// lib/auth/errors: how a sign-in fails, in words: always AuthRequiredError (exit 3), what the
// authorization server said cut to one line without control sequences.
import { describe, expect, test } from "bun:test";
import { AuthRequiredError, signInError } from "../../../lib/auth/errors.ts";

const RESOURCE = "https://mcp.example.com/path/mcp?x=1";
const COMMAND = "mcp-inspect auth --url https://mcp.example.com/path/mcp";

describe("signInError", () => {
  const cases: [string, unknown, string][] = [
    [
      "a server that registers no clients by itself",
      new Error("Incompatible auth server: does not support dynamic client registration"),
      "the authorization server for https://mcp.example.com registers no clients by itself (no dynamic registration, no client ID " +
        'metadata documents): register one with it, then give its ID as "oauth": {"clientId": "..."} in the config entry, or ' +
        `${COMMAND} --client-id ID`,
    ],
    [
      "any other error, by its message",
      new Error("invalid_client: unknown client"),
      "signing in to https://mcp.example.com failed: invalid_client: unknown client",
    ],
    ["a thrown string", "the server is down", "signing in to https://mcp.example.com failed: the server is down"],
    [
      "a message of many lines with control sequences",
      new Error("bad\n\u001b[31mred\u001b[0m\r\n  text\u0007"),
      "signing in to https://mcp.example.com failed: bad red text",
    ],
  ];
  for (const [what, error, message] of cases)
    test(`${what}: one line, exit 3`, () => {
      const made = signInError(RESOURCE, error, COMMAND);
      expect(made).toBeInstanceOf(AuthRequiredError);
      expect(made.message).toBe(message);
    });
});
