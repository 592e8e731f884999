// A daemon session's key: one exact server definition, hashed. Here, not in protocol.ts, which the
// client loads on every warm call: node:crypto costs ~11 ms of a compiled binary's start-up.
import { createHash } from "node:crypto";
import type { Target } from "../targets/target.ts";

/** A session is one exact server definition: an edited config gets a new session, never a stale one. */
export function sessionKey(target: Target): string {
  const definition =
    target.kind === "stdio"
      ? { kind: "stdio", command: target.command, args: target.args, env: sortedEntries(target.env), cwd: target.cwd ?? null }
      : { kind: "http", url: target.url, headers: sortedEntries(target.headers), transport: target.transport };
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex").slice(0, 16);
}

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
