// lib/daemon/session-key: one exact server definition is one session; any edit that changes what runs is another.
import { describe, expect, test } from "bun:test";
import { sessionKey } from "../../../lib/daemon/session-key.ts";
import type { Target } from "../../../lib/targets/target.ts";

describe("sessionKey", () => {
  const base: Target = { kind: "stdio", command: "node", args: ["s.js"], env: { A: "1", B: "2" } };
  const key = sessionKey(base);

  test("is 16 hex digits, and the same for the same definition however its env is ordered", () => {
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(sessionKey({ ...base, env: { B: "2", A: "1" } })).toBe(key);
  });

  const edits: [string, Target][] = [
    ["another command", { ...base, command: "bun" }],
    ["another argument", { ...base, args: ["t.js"] }],
    ["arguments split differently", { ...base, args: ["s", ".js"] }],
    ["another env value", { ...base, env: { A: "1", B: "3" } }],
    ["one more variable", { ...base, env: { A: "1", B: "2", C: "" } }],
    ["a cwd", { ...base, cwd: "/srv" }],
  ];
  for (const [what, edited] of edits) test(`${what} is another session`, () => expect(sessionKey(edited)).not.toBe(key));

  test("an http server is its url, headers (in any order) and transport; its name is not part of it", () => {
    const server: Target = { kind: "http", url: "https://x/mcp", headers: { A: "1", B: "2" }, transport: "auto" };
    const httpKey = sessionKey(server);
    expect(sessionKey({ ...server, headers: { B: "2", A: "1" }, name: "renamed" })).toBe(httpKey);
    expect(sessionKey({ ...server, transport: "sse" })).not.toBe(httpKey);
    expect(sessionKey({ ...server, headers: { A: "1" } })).not.toBe(httpKey);
    expect(sessionKey({ ...server, url: "https://x/mcp2" })).not.toBe(httpKey);
  });
});
