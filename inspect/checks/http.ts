// The checks only an HTTP server has: its session's lifecycle (2025 revisions: an unknown or ended
// Mcp-Session-Id is 404) and its Origin validation (a foreign Origin is 403). Sent as plain HTTP
// requests beside the checked connection, so what the server answers is seen as it is.
import type { HttpTarget } from "../../lib/targets/target.ts";
import { LEGACY_PROTOCOL_VERSIONS } from "../../lib/wire/protocol.ts";
import { type CheckResult, FOREIGN_ORIGIN, result } from "./model.ts";

const ACCEPT = "application/json, text/event-stream";

interface Answer {
  status: number;
  session?: string;
}

async function post(target: HttpTarget, body: unknown, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
  const response = await fetch(target.url, {
    method: "POST",
    headers: { ...target.headers, "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
    signal,
    redirect: "manual",
  });
  await response.body?.cancel().catch(() => {});
  return { status: response.status, session: response.headers.get("mcp-session-id") ?? undefined };
}

function initialize(version: string) {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "mcp-inspect-test", version: "0" } },
  };
}

export async function checkOrigin(target: HttpTarget, version: string, modern: boolean, timeoutMs: number): Promise<CheckResult> {
  const body = modern ? { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} } : initialize(version);
  const headers = { origin: FOREIGN_ORIGIN, ...(modern ? { "mcp-protocol-version": version, "mcp-method": "server/discover" } : {}) };
  try {
    const answer = await post(target, body, headers, AbortSignal.timeout(timeoutMs));
    if (answer.status === 403) return result("http-origin", "pass", `Origin ${FOREIGN_ORIGIN}: 403`);
    return result("http-origin", "fail", `Origin ${FOREIGN_ORIGIN}: HTTP ${answer.status}, not 403`);
  } catch (error) {
    return result("http-origin", "fail", `Origin ${FOREIGN_ORIGIN}: ${(error as Error).message}`);
  }
}

export async function checkSession(target: HttpTarget, version: string, modern: boolean, timeoutMs: number): Promise<CheckResult> {
  if (modern) return result("http-session", "not-applicable", "2026-07-28 has no sessions");
  const revision = LEGACY_PROTOCOL_VERSIONS.includes(version) ? version : LEGACY_PROTOCOL_VERSIONS[0]!;
  const signal = AbortSignal.timeout(timeoutMs);
  const ping = { jsonrpc: "2.0", id: 2, method: "ping" };
  const withSession = (session: string) => ({ "mcp-session-id": session, "mcp-protocol-version": revision });
  try {
    const opened = await post(target, initialize(revision), {}, signal);
    if (!opened.session)
      return result("http-session", "not-applicable", `initialize: HTTP ${opened.status} with no Mcp-Session-Id (stateless)`);
    const unknown = await post(target, ping, withSession(`${opened.session}-unknown`), signal);
    if (unknown.status !== 404) return result("http-session", "fail", `an unknown Mcp-Session-Id: HTTP ${unknown.status}, not 404`);
    const ended = await fetch(target.url, { method: "DELETE", headers: { ...target.headers, ...withSession(opened.session) }, signal });
    await ended.body?.cancel().catch(() => {});
    if (ended.status === 405) return result("http-session", "pass", "unknown session 404; DELETE not offered (405)");
    if (!ended.ok) return result("http-session", "fail", `DELETE of the session: HTTP ${ended.status}`);
    const after = await post(target, ping, withSession(opened.session), signal);
    if (after.status !== 404) return result("http-session", "fail", `a request on the deleted session: HTTP ${after.status}, not 404`);
    return result("http-session", "pass", "unknown session 404; DELETE ends it (then 404)");
  } catch (error) {
    return result("http-session", "fail", (error as Error).message);
  }
}
