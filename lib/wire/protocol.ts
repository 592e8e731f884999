// The protocol's names, in one place: the revisions we speak (2026-07-28 negotiated per request,
// the 2025 ones by the initialize handshake), the `_meta` keys of the io.modelcontextprotocol/
// namespace, and the extension ids.

/** Revisions negotiated with `server/discover` and per-request `_meta`. */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"];
/** Revisions negotiated with the `initialize` handshake, newest first. */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/** Every revision a --protocol-version may name, newest first. */
export const KNOWN_PROTOCOL_VERSIONS = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];
/** Revisions are dates: from this one on, requests carry their own revision (and HTTP mirrors it in headers). */
export const FIRST_MODERN_REVISION = "2026-07-28";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
/** 2026-07-28 subscriptions/listen: the id that ties each notification to its subscription. */
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/**
 * Requests that change nothing on the server, so they may be sent again: after a restart (the
 * proxy replays them on the new process) and after a broken 2026-07-28 stream (recovery re-issues
 * them under a new id). Anything else may already have run, and is answered with an error instead.
 */
export const SAFE_TO_REPEAT_METHODS: ReadonlySet<string> = new Set([
  "ping",
  "server/discover",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "tasks/get",
  "subscriptions/listen",
]);

/** The tasks extension (SEP-2663): its capability key, and the `_meta` key of a message about a task. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const META_RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The first line of a session recorded by mcp-proxy --record names this format; mcp-inspect mock reads it. */
export const RECORDING_FORMAT = "mcpkit-recording/1";
