// The exit codes of every tool, one table (README has it too). A signal N ends a tool with 128+N
// (lib/io/signals.ts).

export const EXIT = {
  ok: 0,
  /** Bad flags or arguments, an unknown tool, arguments that fail the schema. */
  usage: 1,
  /** The server could not be started or reached, or went away. */
  connection: 2,
  /** The server wants credentials (HTTP 401/403, a sign-in). */
  auth: 3,
  /** No answer within --timeout. */
  timeout: 4,
  /** The server answered with a JSON-RPC error. */
  protocol: 5,
  /** The tool returned isError (mcp-inspect), or the model gave up on failing tools (mcp-host -p). */
  toolError: 6,
  /** The model failed (mcp-host). */
  model: 7,
  /** The server asked a question that needs an answer first. */
  inputRequired: 8,
  /** Nothing there: a search with no match, a daemon that is not running. */
  nothingThere: 9,
  /** `mcp-inspect test` found a failing check of error severity, or `diff` a breaking change. */
  checksFailed: 10,
  /** Ctrl-C (SIGINT, 128+2). */
  interrupted: 130,
} as const;

/** The stable names of the codes, as mcp-inspect's JSON envelope gives them. */
export const EXIT_NAMES: Record<number, string> = {
  [EXIT.usage]: "USAGE_ERROR",
  [EXIT.connection]: "CONNECTION_FAILED",
  [EXIT.auth]: "AUTH_REQUIRED",
  [EXIT.timeout]: "TIMEOUT",
  [EXIT.protocol]: "PROTOCOL_ERROR",
  [EXIT.toolError]: "TOOL_ERROR",
  [EXIT.model]: "MODEL_ERROR",
  [EXIT.inputRequired]: "INPUT_REQUIRED",
  [EXIT.nothingThere]: "NOTHING_THERE",
  [EXIT.checksFailed]: "CHECKS_FAILED",
  129: "CANCELLED",
  130: "CANCELLED",
  143: "CANCELLED",
};
