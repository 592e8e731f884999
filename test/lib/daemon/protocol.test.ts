// lib/daemon/protocol: the socket's frames. The opening frame comes from whoever can reach the
// socket, so every field is checked, and every refusal says what was wrong.
import { describe, expect, test } from "bun:test";
import {
  DAEMON_PROTOCOL,
  encodeFrame,
  MAX_SURVEY_SERVERS,
  parseControlFrame,
  SESSION_EXTENSION_VERSION,
  sessionExtension,
} from "../../../lib/daemon/protocol.ts";
import type { Target } from "../../../lib/targets/target.ts";

const stdio = { kind: "stdio", command: "node", args: ["server.js"], env: { A: "1" } };
const http = { kind: "http", url: "https://example.com/mcp", headers: { "X-Key": "k" } };
const attach = (server: unknown) => JSON.stringify({ type: "attach", protocol: DAEMON_PROTOCOL, server });

describe("encodeFrame", () => {
  test("one line of JSON in this protocol's version, whatever protocol the frame claimed", () => {
    const line = encodeFrame({ type: "hello", protocol: 99, note: "a\nb" });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ type: "hello", protocol: DAEMON_PROTOCOL, note: "a\nb" });
  });

  test("what encodeFrame builds, parseControlFrame takes (both sides agree)", () => {
    for (const type of ["hello", "status", "stop"] as const)
      expect(parseControlFrame(encodeFrame({ type }))).toEqual({ ok: true, value: { type } });
    const parsed = parseControlFrame(encodeFrame({ type: "attach", server: stdio, extensions: { session: 1 } }));
    expect(parsed).toEqual({ ok: true, value: { type: "attach", server: stdio as Target, extensions: { session: 1 } } });
    const survey = parseControlFrame(encodeFrame({ type: "survey", servers: [stdio, http] }));
    expect(survey).toEqual({ ok: true, value: { type: "survey", servers: [stdio, { ...http, transport: "auto" }] as Target[] } });
  });
});

describe("parseControlFrame refuses", () => {
  const notAFrame = "expected a JSON control frame (hello, status, attach or stop)";
  const refusals: [string, string, string][] = [
    ["not JSON", "hello", notAFrame],
    ["an empty line", "", notAFrame],
    ["a JSON array", "[]", notAFrame],
    ["JSON null", "null", notAFrame],
    ["a JSON string", '"hello"', notAFrame],
    ["a JSON number", "1", notAFrame],
    ["no protocol", '{"type":"hello"}', "this daemon speaks protocol 1, not undefined (restart it: mcp-daemon restart)"],
    ["another protocol", '{"type":"hello","protocol":2}', "this daemon speaks protocol 1, not 2 (restart it: mcp-daemon restart)"],
    [
      "the protocol as a string",
      '{"type":"hello","protocol":"1"}',
      'this daemon speaks protocol 1, not "1" (restart it: mcp-daemon restart)',
    ],
    ["no type", '{"protocol":1}', "unknown frame type undefined"],
    ["an unknown type", '{"type":"shutdown","protocol":1}', 'unknown frame type "shutdown"'],
    ["a type that is not a string", '{"type":["hello"],"protocol":1}', 'unknown frame type ["hello"]'],
    ["attach without a server", '{"type":"attach","protocol":1}', "attach needs a valid server definition: server must be an object"],
    [
      "a survey without servers",
      '{"type":"survey","protocol":1}',
      `survey needs a list of at most ${MAX_SURVEY_SERVERS} server definitions`,
    ],
    [
      "a survey of one server too many",
      JSON.stringify({ type: "survey", protocol: 1, servers: Array.from({ length: MAX_SURVEY_SERVERS + 1 }, () => stdio) }),
      `survey needs a list of at most ${MAX_SURVEY_SERVERS} server definitions`,
    ],
    [
      "a survey with one bad server",
      JSON.stringify({ type: "survey", protocol: 1, servers: [stdio, { ...stdio, args: "a b" }] }),
      "survey server 1 is not a valid server definition: args must be a list of strings",
    ],
  ];
  for (const [what, line, error] of refusals)
    test(`${what}: ${error}`, () => expect(parseControlFrame(line)).toEqual({ ok: false, error }));

  // [what, the server of an attach frame, what is wrong with it]
  const servers: [string, unknown, string][] = [
    ["a server that is a string", "node server.js", "server must be an object"],
    ["a server that is a list", ["node"], "server must be an object"],
    ["no kind", { command: "node", args: [], env: {} }, 'kind must be "stdio" or "http"'],
    ["an unknown kind", { ...stdio, kind: "ws" }, 'kind must be "stdio" or "http"'],
    ["stdio without a command", { ...stdio, command: undefined }, "command must be a non-empty string"],
    ["stdio with an empty command", { ...stdio, command: "" }, "command must be a non-empty string"],
    ["stdio with a command that is a list", { ...stdio, command: ["node"] }, "command must be a non-empty string"],
    ["stdio without args", { ...stdio, args: undefined }, "args must be a list of strings"],
    ["stdio with args that are not strings", { ...stdio, args: ["a", 1] }, "args must be a list of strings"],
    ["stdio with args as a string", { ...stdio, args: "a b" }, "args must be a list of strings"],
    ["stdio without env", { ...stdio, env: undefined }, "env must be an object of strings"],
    ["stdio with an env value that is a number", { ...stdio, env: { A: 1 } }, "env must be an object of strings"],
    ["stdio with env as a list", { ...stdio, env: ["A=1"] }, "env must be an object of strings"],
    ["stdio with a cwd that is not a string", { ...stdio, cwd: 7 }, "cwd must be a string"],
    ["http without a url", { ...http, url: undefined }, "url must be an http(s) URL"],
    ["http with a file url", { ...http, url: "file:///etc/passwd" }, "url must be an http(s) URL"],
    ["http with a url that is not a string", { ...http, url: { href: "https://x" } }, "url must be an http(s) URL"],
    ["http without headers", { ...http, headers: undefined }, "headers must be an object of strings"],
    ["http with a header value that is a list", { ...http, headers: { A: ["x"] } }, "headers must be an object of strings"],
    ["oauth that is not an object", { ...http, oauth: "yes" }, "oauth must be an object"],
    ["oauth.clientId not a string", { ...http, oauth: { clientId: 5 } }, "oauth.clientId must be a string"],
    ["oauth.clientSecret not a string", { ...http, oauth: { clientSecret: true } }, "oauth.clientSecret must be a string"],
    ["oauth.scopes a string", { ...http, oauth: { scopes: "a b" } }, "oauth.scopes must be a list of strings"],
    ["oauth.scopes with a number", { ...http, oauth: { scopes: ["a", 2] } }, "oauth.scopes must be a list of strings"],
    ["oauth.callbackPort a string", { ...http, oauth: { callbackPort: "8080" } }, "oauth.callbackPort must be a port number"],
    ["oauth.callbackPort a fraction", { ...http, oauth: { callbackPort: 80.5 } }, "oauth.callbackPort must be a port number"],
  ];
  for (const [what, server, error] of servers)
    test(`attach, ${what}: ${error}`, () =>
      expect(parseControlFrame(attach(server))).toEqual({ ok: false, error: `attach needs a valid server definition: ${error}` }));
});

describe("parseControlFrame takes", () => {
  test("hello, status and stop, keeping nothing else of the frame", () => {
    for (const type of ["hello", "status", "stop"] as const)
      expect(parseControlFrame(JSON.stringify({ type, protocol: 1, extra: { big: "x" } }))).toEqual({ ok: true, value: { type } });
  });

  const takes: [string, unknown, Target][] = [
    ["a stdio server, fields it does not know dropped", { ...stdio, shell: true }, stdio as Target],
    ["a stdio server with its cwd", { ...stdio, cwd: "/srv" }, { ...(stdio as Target), cwd: "/srv" } as Target],
    ["a stdio server with an empty cwd (as none)", { ...stdio, cwd: "" }, stdio as Target],
    ["an http server (transport auto)", http, { ...http, transport: "auto" } as Target],
    [
      "an http server on plain http",
      { ...http, url: "http://127.0.0.1:3000/mcp" },
      { ...http, url: "http://127.0.0.1:3000/mcp", transport: "auto" } as Target,
    ],
    ["an http server over sse", { ...http, transport: "sse" }, { ...http, transport: "sse" } as Target],
    ["an http server over streamable-http", { ...http, transport: "streamable-http" }, { ...http, transport: "streamable-http" } as Target],
    ["an http server with an unknown transport (as auto)", { ...http, transport: "ws" }, { ...http, transport: "auto" } as Target],
    [
      "an http server with its name, config file and oauth",
      { ...http, name: "n", configFile: "/c.json", oauth: { clientId: "id", scopes: ["a"], callbackPort: 8080 } },
      {
        ...http,
        transport: "auto",
        name: "n",
        configFile: "/c.json",
        oauth: { clientId: "id", scopes: ["a"], callbackPort: 8080 },
      } as Target,
    ],
    [
      "an http server with a name that is not a string (dropped)",
      { ...http, name: 5, configFile: [] },
      { ...http, transport: "auto" } as Target,
    ],
  ];
  for (const [what, server, target] of takes)
    test(`attach, ${what}`, () => {
      const parsed = parseControlFrame(attach(server));
      expect(parsed).toEqual({ ok: true, value: { type: "attach", server: target, extensions: undefined } });
    });

  test("attach passes the extensions asked for on, for sessionExtension to weigh", () => {
    const parsed = parseControlFrame(JSON.stringify({ type: "attach", protocol: 1, server: stdio, extensions: { session: 7, other: 1 } }));
    expect(parsed.ok && parsed.value.type === "attach" && parsed.value.extensions).toEqual({ session: 7, other: 1 });
  });
});

describe("sessionExtension", () => {
  const cases: [unknown, number][] = [
    [undefined, 0],
    [null, 0],
    ["session", 0],
    [{}, 0],
    [{ session: 0 }, 0],
    [{ session: -1 }, 0],
    [{ session: "1" }, 0],
    [{ session: 1 }, 1],
    [{ session: 99 }, SESSION_EXTENSION_VERSION],
    [{ other: 1 }, 0],
  ];
  for (const [asked, version] of cases) test(`${JSON.stringify(asked)} -> ${version}`, () => expect(sessionExtension(asked)).toBe(version));
});
