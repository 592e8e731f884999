// The protocol's names in one place (lib/wire/protocol.ts): the revisions, the _meta keys, the
// requests safe to send again.
import { describe, expect, test } from "bun:test";
import * as protocol from "../../../lib/wire/protocol.ts";
import {
  FIRST_MODERN_REVISION,
  KNOWN_PROTOCOL_VERSIONS,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SAFE_TO_REPEAT_METHODS,
} from "../../../lib/wire/protocol.ts";

describe("revisions", () => {
  test("every revision is a date, each named once, newest first", () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Set(KNOWN_PROTOCOL_VERSIONS).size).toBe(KNOWN_PROTOCOL_VERSIONS.length);
    expect(KNOWN_PROTOCOL_VERSIONS).toEqual([...KNOWN_PROTOCOL_VERSIONS].sort().reverse());
  });

  test("the known revisions are the modern ones then the legacy ones, nothing more", () => {
    expect(KNOWN_PROTOCOL_VERSIONS).toEqual([...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]);
  });

  test("FIRST_MODERN_REVISION divides them: every modern revision is on or after it, every legacy one before", () => {
    // Revisions are compared as strings in the code; ISO dates order the same way.
    for (const version of MODERN_PROTOCOL_VERSIONS) expect(version >= FIRST_MODERN_REVISION).toBe(true);
    for (const version of LEGACY_PROTOCOL_VERSIONS) expect(version < FIRST_MODERN_REVISION).toBe(true);
    expect(MODERN_PROTOCOL_VERSIONS).toContain(FIRST_MODERN_REVISION);
  });
});

test("every _meta key and extension id is in the io.modelcontextprotocol/ namespace, and no two are the same", () => {
  const names = Object.entries(protocol)
    .filter(([name]) => name.startsWith("META_") || name.endsWith("_EXTENSION"))
    .map(([, value]) => value as string);
  expect(names.length).toBeGreaterThanOrEqual(8);
  for (const name of names) expect(name).toMatch(/^io\.modelcontextprotocol\/[A-Za-z-]+$/);
  expect(new Set(names).size).toBe(names.length);
});

describe("requests safe to send again", () => {
  test.each(["ping", "tools/list", "resources/read", "prompts/get", "tasks/get", "subscriptions/listen"])(
    "%s changes nothing on the server, so it may be repeated",
    (method) => {
      expect(SAFE_TO_REPEAT_METHODS.has(method)).toBe(true);
    },
  );

  test.each([
    "tools/call",
    "initialize",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/cancel",
    "sampling/createMessage",
    "elicitation/create",
    "notifications/cancelled",
    "TOOLS/LIST",
  ])("%s may already have run, so it is never repeated", (method) => {
    expect(SAFE_TO_REPEAT_METHODS.has(method)).toBe(false);
  });
});
