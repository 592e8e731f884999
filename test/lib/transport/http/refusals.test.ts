// lib/transport/http/refusals: what every non-2xx answer to a POST means, status by body by request.
import { describe, expect, test } from "bun:test";
import { HttpStatusError, SessionExpiredError } from "../../../../lib/io/fetch.ts";
import { hasAuthorization, LEGACY_REFUSALS, type Refused, refusalOf } from "../../../../lib/transport/http/refusals.ts";
import { ErrorCode, type JsonRpcId, type JsonRpcMessage } from "../../../../lib/wire/jsonrpc.ts";

const URL_ = "http://127.0.0.1:9/mcp";
const call: JsonRpcMessage = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x" } };
const discover: JsonRpcMessage = { jsonrpc: "2.0", id: 1, method: "server/discover" };
const notification: JsonRpcMessage = { jsonrpc: "2.0", method: "notifications/initialized" };

const refused = (message: JsonRpcMessage, over: Partial<Refused> = {}): Refused => ({
  message,
  requestId: "id" in message ? (message.id as JsonRpcId) : undefined,
  sentSession: undefined,
  url: URL_,
  configuredAuthorization: false,
  ...over,
});
const rpcError = (id: unknown, code: number, message = "no") => JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

type Expected =
  | { answer: { code: number; message?: string } }
  | { error: abstract new (...args: never[]) => HttpStatusError; status: number; explained?: boolean };

// [what, status, body, the request as refused, what it means]
const cases: [string, number, string, Refused, Expected][] = [
  ["a JSON-RPC error for this very request", 400, rpcError(7, ErrorCode.InvalidParams), refused(call), { answer: { code: -32602 } }],
  ["the same on a 500", 500, rpcError(7, ErrorCode.InternalError), refused(call), { answer: { code: -32603 } }],
  [
    "a modern error under another id (UnsupportedProtocolVersion, id null)",
    400,
    rpcError(null, ErrorCode.UnsupportedProtocolVersion),
    refused(call),
    { answer: { code: ErrorCode.UnsupportedProtocolVersion } },
  ],
  [
    "a modern error under another id (HeaderMismatch)",
    400,
    rpcError("other", ErrorCode.HeaderMismatch),
    refused(call),
    { answer: { code: ErrorCode.HeaderMismatch } },
  ],
  [
    "a modern error under another id (MissingClientCapability)",
    400,
    rpcError(null, ErrorCode.MissingClientCapability),
    refused(call),
    { answer: { code: ErrorCode.MissingClientCapability } },
  ],
  [
    "a non-modern error under another id is no answer",
    400,
    rpcError(99, ErrorCode.InternalError),
    refused(call),
    { error: HttpStatusError, status: 400 },
  ],
  [
    "a JSON-RPC error to a notification is no answer",
    400,
    rpcError(null, ErrorCode.MethodNotFound),
    refused(notification),
    { error: HttpStatusError, status: 400 },
  ],
  ...LEGACY_REFUSALS.map((status): [string, number, string, Refused, Expected] => [
    `a ${status} without JSON-RPC to server/discover is a 2025-era server`,
    status,
    "<html>nope</html>",
    refused(discover),
    { answer: { code: ErrorCode.MethodNotFound, message: `server/discover is not known here (HTTP ${status}): a 2025-era server` } },
  ]),
  ...[401, 403, 406, 415, 500, 502].map((status): [string, number, string, Refused, Expected] => [
    `a ${status} to server/discover is not a 2025-era server`,
    status,
    "",
    refused(discover),
    { error: HttpStatusError, status },
  ]),
  [
    "a 404 to server/discover inside a session is that session gone",
    404,
    "gone",
    refused(discover, { sentSession: "s-1" }),
    { error: SessionExpiredError, status: 404 },
  ],
  [
    "a 404 to a request of a session is that session gone",
    404,
    "gone",
    refused(call, { sentSession: "s-1" }),
    { error: SessionExpiredError, status: 404 },
  ],
  ["a 404 outside a session is a plain 404", 404, "no such path", refused(call), { error: HttpStatusError, status: 404 }],
  [
    "a 404 to a notification of a session is that session gone",
    404,
    "",
    refused(notification, { sentSession: "s-1" }),
    { error: SessionExpiredError, status: 404 },
  ],
  [
    "a 401 to a configured Authorization header is that header's fault",
    401,
    "bad token",
    refused(call, { configuredAuthorization: true }),
    { error: HttpStatusError, status: 401, explained: true },
  ],
  ["a 401 without one is a plain 401", 401, "", refused(call), { error: HttpStatusError, status: 401, explained: false }],
  ["a 500 with junk", 500, "\u0000\u0001 not json", refused(call), { error: HttpStatusError, status: 500, explained: false }],
  [
    "a 429 with a non-error JSON-RPC body",
    429,
    JSON.stringify({ jsonrpc: "2.0", id: 7, result: {} }),
    refused(call),
    { error: HttpStatusError, status: 429 },
  ],
];

describe("refusalOf", () => {
  for (const [what, status, body, request, expected] of cases) {
    test(`${what} (HTTP ${status})`, () => {
      const outcome = refusalOf(status, body, request);
      if ("answer" in expected) {
        expect("answer" in outcome).toBe(true);
        const answer = (outcome as { answer: { id: unknown; error: { code: number; message: string } } }).answer;
        // The answer always goes under the request's own id, whatever the server put in it.
        expect(answer.id).toBe(request.requestId as never);
        expect(answer.error.code).toBe(expected.answer.code);
        if (expected.answer.message) expect(answer.error.message).toBe(expected.answer.message);
        return;
      }
      expect("error" in outcome).toBe(true);
      const error = (outcome as { error: Error }).error;
      expect(error).toBeInstanceOf(expected.error);
      expect((error as HttpStatusError).status).toBe(expected.status);
      if (expected.explained !== undefined) expect((error as HttpStatusError).explained).toBe(expected.explained);
      if (expected.error === HttpStatusError) expect(error).not.toBeInstanceOf(SessionExpiredError);
    });
  }

  test("a session gone names the session; a rejected configured header names the origin and never the token", () => {
    const gone = refusalOf(404, "unknown session", refused(call, { sentSession: "s-42" })) as { error: SessionExpiredError };
    expect(gone.error.sessionId).toBe("s-42");
    expect(gone.error.message).toBe("session s-42 expired or unknown (unknown session)");
    const header = refusalOf(401, "token Bearer hunter2 is bad", refused(call, { configuredAuthorization: true })) as { error: Error };
    expect(header.error.message).toBe(
      "http://127.0.0.1:9 rejected the configured Authorization header with HTTP 401 (fix the header, or remove it to sign in with OAuth)",
    );
  });

  test("a plain refusal says the status, the URL and the head of the body", () => {
    const { error } = refusalOf(502, "upstream down", refused(call)) as { error: Error };
    expect(error.message).toBe(`HTTP 502 from ${URL_}: upstream down`);
  });

  test("the server's error is kept whole apart from the id (message and data)", () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: ErrorCode.UnsupportedProtocolVersion, message: "m", data: { supported: ["x"] } },
    });
    expect(refusalOf(400, body, refused(call))).toEqual({
      answer: { jsonrpc: "2.0", id: 7, error: { code: ErrorCode.UnsupportedProtocolVersion, message: "m", data: { supported: ["x"] } } },
    });
  });
});

describe("hasAuthorization", () => {
  const cases: [Record<string, string> | undefined, boolean][] = [
    [undefined, false],
    [{}, false],
    [{ "X-Api-Key": "k" }, false],
    [{ Authorization: "Bearer t" }, true],
    [{ authorization: "Bearer t" }, true],
    [{ AUTHORIZATION: "Basic x" }, true],
  ];
  for (const [headers, has] of cases) test(`${JSON.stringify(headers)} -> ${has}`, () => expect(hasAuthorization(headers)).toBe(has));
});
