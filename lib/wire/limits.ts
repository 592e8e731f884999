// Every read has a cap, and what happens past it is decided, not left to memory. One table, in
// README too ("Limits"); each cap is enforced where the bytes arrive.

/** One JSON-RPC message: a stdio line, an HTTP body, an SSE event. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/**
 * POST bodies mcp-proxy serve holds while their answers are under way, per 2025 session and for the shared 2026-07-28
 * server; past it a POST there gets 503 (one body up to the cap always goes).
 */
export const MAX_WAITING_BODY_BYTES = MAX_MESSAGE_BYTES;
/** `--params @file` or `--params -`. */
export const MAX_PARAMS_BYTES = 32 * 1024 * 1024;
/** A session recording (mcp-proxy --record stops growing it here by default; mcp-inspect mock reads no more). */
export const MAX_RECORDING_BYTES = 256 * 1024 * 1024;
/** One line of piped input to mcp-host's chat (a line without end, `cat /dev/zero |`, must not fill memory). */
export const MAX_INPUT_LINE_BYTES = 1024 * 1024;
/** A client config file. */
export const MAX_CONFIG_BYTES = 32 * 1024 * 1024;
/** How deeply a client config file's arrays and objects may nest (a hostile file nests to overflow a parser's stack). */
export const MAX_CONFIG_DEPTH = 100;
/** How long reading the client config files may take in a command without --timeout. */
export const CONFIG_READ_TIMEOUT_MS = 10_000;
/** One control frame on the daemon socket (hello, status, attach, stop and their answers). */
export const MAX_CONTROL_FRAME_BYTES = 1024 * 1024;
/** Servers one survey frame may name (grep --stateful over a config file's entries): a frame stays well under MAX_CONTROL_FRAME_BYTES. */
export const MAX_SURVEY_SERVERS = 1000;
/** Bytes queued in one direction of a channel before the side that feeds it is paused. */
export const CHANNEL_BUFFER_BYTES = 8 * 1024 * 1024;
/**
 * The same, in mcp-proxy's writers to its client and to a stdio server (StdioChannel's `forwarding`):
 * it passes bytes on, so its queues only smooth between a read and a write. At CHANNEL_BUFFER_BYTES, mcp-proxy with 64
 * calls of 1 MB in flight peaked at 1.5x the RSS of a byte-copying forwarder (110 MB); at this, 1.15-1.3x,
 * at the same calls/s (bench/proxy.ts, the 1 MB c=64 cell).
 */
export const FORWARD_BUFFER_BYTES = 1024 * 1024;
/** How much of a server's stderr is kept for error reports. */
export const STDERR_TAIL_BYTES = 64 * 1024;
/** One line of a server's stderr; the rest of a longer line is cut off. */
export const MAX_STDERR_LINE_BYTES = 64 * 1024;
/** Log and stderr lines queued on our own stderr, unread, before more are dropped (and counted). */
export const LOG_BUFFER_BYTES = 1024 * 1024;
/** An HTTP error body, read only for the message it may carry. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** One OAuth response (metadata, registration, token, revocation) or one token-store file. */
export const MAX_OAUTH_RESPONSE_BYTES = 1024 * 1024;
/** Redirects followed for one HTTP request. */
export const MAX_REDIRECTS = 5;
/** How long a request waits for its answer unless told otherwise (progress restarts the wait). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** At end of input, how long a forwarder waits for the answers still in flight. */
export const DRAIN_TIMEOUT_MS = 30_000;
/** Bytes read in one turn of the event loop before a reader yields (so a signal is always handled). */
export const YIELD_AFTER_BYTES = 1024 * 1024;
