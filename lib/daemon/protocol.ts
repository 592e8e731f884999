// What mcp-daemon and its clients agree on: the socket protocol, its frames built and checked here
// by both sides (where the daemon lives is paths.ts).
//
// The socket speaks newline-delimited JSON. A connection opens with one control frame:
//   {"type":"hello","protocol":1}                    -> {"type":"hello","protocol":1,"pid":N,"version":"x.y.z"}
//   {"type":"status","protocol":1}                   -> {"type":"status",...}
//   {"type":"stop","protocol":1}                     -> {"type":"stopping","pid":N}
//   {"type":"attach","protocol":1,"server":{...}}    -> {"type":"attached","session":"<key>","pid":N|null}
// After "attached" the connection carries raw JSON-RPC lines of that session, both ways.
//   {"type":"survey","protocol":1,"servers":[{...},...]}
//     -> {"type":"surveyed","index":I,"session":{"version":1,"identity":{...}?,"tools":[...]?}} for
//        each server (in any order) whose session is up, else {"type":"surveyed","index":I}; then
//        the daemon ends the connection. Nothing is started or attached: a survey reads what the
//        running sessions already know, for grep over many of them in one round trip (a server
//        with nothing known is then attached to as usual). At most MAX_SURVEY_SERVERS servers.
// A refused frame gets {"type":"error","message":"..."} and the connection is closed.
//
// Extensions: an attach frame may ask for them, "extensions":{"<name>":<version>}, and "attached"
// names those granted, in the version the daemon speaks (at most the one asked for). A peer that
// knows none ignores the field, so old clients and old daemons go on as before. One so far:
//   "session" (1): right after "attached", before any other line, the daemon sends
//     {"jsonrpc":"2.0","method":"notifications/mcpkit/session","params":{"version":1,
//      "identity":{"era","protocolVersion","capabilities","serverInfo"?,"instructions"?}?,"tools":[...]?}}
//   identity: the session's handshake, when it is done; a client may take it instead of
//   negotiating. tools: the cached tools/list (one page), only while the server promises
//   notifications/tools/list_changed; it describes the session as it was at the attach, so a
//   client uses it only until any other line comes (a list_changed among them). A warm call is
//   then one round trip to the daemon plus the call itself, the least a daemon in between can cost.
import type { ServerIdentity } from "../client/raw-client.ts";
import type { HttpTarget, Target } from "../targets/target.ts";
import { isJsonObject, type JsonObject } from "../wire/jsonrpc.ts";
import { MAX_SURVEY_SERVERS } from "../wire/limits.ts";
import type { Result } from "../wire/result.ts";

export { MAX_CONTROL_FRAME_BYTES, MAX_SURVEY_SERVERS } from "../wire/limits.ts";

export const DAEMON_PROTOCOL = 1;
export const SESSION_EXTENSION = "session";
export const SESSION_EXTENSION_VERSION = 1;
export const SESSION_NOTIFICATION = "notifications/mcpkit/session";

/** The params of SESSION_NOTIFICATION: what the daemon already knows of the session. */
export interface SessionInfo {
  version: number;
  identity?: ServerIdentity;
  tools?: JsonObject[];
}

/** The session extension's version both sides speak, or 0 when one of them does not (old peer, or not asked). */
export function sessionExtension(extensions: unknown): number {
  const asked = (extensions as Record<string, unknown> | null | undefined)?.[SESSION_EXTENSION];
  return typeof extensions === "object" && typeof asked === "number" && asked >= 1 ? Math.min(asked, SESSION_EXTENSION_VERSION) : 0;
}

/** What a client may ask in its opening frame. */
export type ControlFrame =
  | { type: "hello" }
  | { type: "status" }
  | { type: "stop" }
  | { type: "attach"; server: Target; extensions?: unknown }
  | { type: "survey"; servers: Target[] };

/** The daemon's answer to a survey, one per server: what its running session knows, or nothing when none is up. */
export interface SurveyAnswer {
  type: "surveyed";
  index: number;
  session?: SessionInfo;
}

/** A frame as one line on the socket, in this protocol's version. */
export function encodeFrame(frame: { type: string; [field: string]: unknown }): string {
  return `${JSON.stringify({ ...frame, protocol: DAEMON_PROTOCOL })}\n`;
}

/** The opening frame a client sent, checked field by field (it comes from whoever can reach the socket). */
export function parseControlFrame(line: string): Result<ControlFrame> {
  let frame: unknown;
  try {
    frame = JSON.parse(line);
  } catch {
    frame = undefined;
  }
  if (!isJsonObject(frame)) return { ok: false, error: "expected a JSON control frame (hello, status, attach or stop)" };
  if (frame.protocol !== DAEMON_PROTOCOL)
    return {
      ok: false,
      error: `this daemon speaks protocol ${DAEMON_PROTOCOL}, not ${JSON.stringify(frame.protocol)} (restart it: mcp-daemon restart)`,
    };
  switch (frame.type) {
    case "hello":
    case "status":
    case "stop":
      return { ok: true, value: { type: frame.type } };
    case "attach": {
      const server = attachedServer(frame.server);
      if (typeof server === "string") return { ok: false, error: `attach needs a valid server definition: ${server}` };
      return { ok: true, value: { type: "attach", server, extensions: frame.extensions } };
    }
    case "survey": {
      if (!Array.isArray(frame.servers) || frame.servers.length > MAX_SURVEY_SERVERS)
        return { ok: false, error: `survey needs a list of at most ${MAX_SURVEY_SERVERS} server definitions` };
      const servers: Target[] = [];
      for (const [index, item] of frame.servers.entries()) {
        const server = attachedServer(item);
        if (typeof server === "string") return { ok: false, error: `survey server ${index} is not a valid server definition: ${server}` };
        servers.push(server);
      }
      return { ok: true, value: { type: "survey", servers } };
    }
    default:
      return { ok: false, error: `unknown frame type ${JSON.stringify(frame.type)}` };
  }
}

/** The attach frame's server, checked field by field; a string says what is wrong with it. */
function attachedServer(value: unknown): Target | string {
  if (!isJsonObject(value)) return "server must be an object";
  const strings = (record: unknown) => isJsonObject(record) && Object.values(record).every((item) => typeof item === "string");
  if (value.kind === "stdio") {
    if (typeof value.command !== "string" || value.command === "") return "command must be a non-empty string";
    if (!Array.isArray(value.args) || !value.args.every((arg) => typeof arg === "string")) return "args must be a list of strings";
    if (!strings(value.env)) return "env must be an object of strings";
    if (value.cwd !== undefined && typeof value.cwd !== "string") return "cwd must be a string";
    return {
      kind: "stdio",
      command: value.command,
      args: value.args,
      env: value.env as Record<string, string>,
      ...(value.cwd ? { cwd: value.cwd as string } : {}),
    };
  }
  if (value.kind === "http") {
    if (typeof value.url !== "string" || !/^https?:\/\//.test(value.url)) return "url must be an http(s) URL";
    if (!strings(value.headers)) return "headers must be an object of strings";
    const transport = value.transport === "sse" || value.transport === "streamable-http" ? value.transport : "auto";
    const oauth = attachedOAuth(value.oauth);
    if (typeof oauth === "string") return oauth;
    const file = typeof value.configFile === "string" ? { configFile: value.configFile } : {};
    const name = typeof value.name === "string" ? { name: value.name } : {};
    return {
      kind: "http",
      url: value.url,
      headers: value.headers as Record<string, string>,
      transport,
      ...file,
      ...name,
      ...(oauth ? { oauth } : {}),
    };
  }
  return 'kind must be "stdio" or "http"';
}

/** The OAuth settings of an HTTP server, as the attach frame carries them (the client's, from its config). */
function attachedOAuth(value: unknown): HttpTarget["oauth"] | string | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) return "oauth must be an object";
  if (value.clientId !== undefined && typeof value.clientId !== "string") return "oauth.clientId must be a string";
  if (value.clientSecret !== undefined && typeof value.clientSecret !== "string") return "oauth.clientSecret must be a string";
  if (value.scopes !== undefined && !(Array.isArray(value.scopes) && value.scopes.every((scope) => typeof scope === "string")))
    return "oauth.scopes must be a list of strings";
  if (value.callbackPort !== undefined && !Number.isInteger(value.callbackPort)) return "oauth.callbackPort must be a port number";
  return value as HttpTarget["oauth"];
}
