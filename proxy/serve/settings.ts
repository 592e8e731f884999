// `mcp-proxy serve`'s flags: the proxy's own (watch, build, restarts, logs) plus where to listen,
// who may call, and how many sessions live how long. A stdio server only: serving an HTTP server
// over HTTP would be a gateway, which serve is not.
import type { Invocation } from "../../lib/cli/argv.ts";
import { checkFlagValues, type FlagDef } from "../../lib/cli/values.ts";
import type { Result } from "../../lib/wire/result.ts";
import { ARGS, readSettings, type Settings } from "../settings.ts";

export const SERVE_DEFAULTS = {
  host: "127.0.0.1",
  port: 0,
  sessionIdleMs: 10 * 60_000,
  maxSessions: 32,
} as const;

const { url: _url, header: _header, transport: _transport, "drain-timeout": _drain, ...PROXY_ARGS } = ARGS;

export const SERVE_ARGS = {
  ...PROXY_ARGS,
  port: {
    type: "string",
    description: `the port to listen on (default ${SERVE_DEFAULTS.port}: a free one, printed as \`listening <url>\` on stderr)`,
    valueHint: "n",
    value: "port",
  },
  host: {
    type: "string",
    description: `the address to listen on (default ${SERVE_DEFAULTS.host}); any other than loopback needs --token-env`,
    valueHint: "address",
  },
  "token-env": {
    type: "string",
    description: "the variable holding the bearer token every request must carry (it is not passed to the server)",
    valueHint: "VAR",
  },
  "session-idle": {
    type: "string",
    description: `end a 2025 session after this long without a request (default ${SERVE_DEFAULTS.sessionIdleMs})`,
    valueHint: "ms",
    value: "positive-duration",
  },
  "session-prefix": {
    type: "string",
    description: "start every Mcp-Session-Id with NAME. (letters, digits, -): a front of several serve processes routes each session by it",
    valueHint: "NAME",
  },
  "max-sessions": {
    type: "string",
    description: `at most this many 2025 sessions (each its own server process) at once (default ${SERVE_DEFAULTS.maxSessions})`,
    valueHint: "n",
    value: "positive-count",
  },
} as const satisfies Record<string, FlagDef>;

export interface ServeSettings extends Settings {
  host: string;
  port: number;
  loopback: boolean;
  token?: string;
  /** The token's variable, removed from the environment the servers get. */
  tokenVariable?: string;
  sessionIdleMs: number;
  maxSessions: number;
  /** What every 2025 session id starts with (before a dot), for a front that routes on it. */
  sessionPrefix?: string;
}

/** A session-id prefix: what a header value and an nginx map pattern both take as is. */
const SESSION_PREFIX = /^[A-Za-z0-9-]{1,64}$/;

/** Loopback names and addresses: reachable from this machine only. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function readServeSettings(
  args: Record<string, unknown>,
  invocation: Invocation,
  env: Record<string, string | undefined> = process.env,
): Promise<Result<ServeSettings>> {
  const base = await readSettings(args, invocation, env, SERVE_ARGS);
  if (!base.ok) return base;
  if (base.value.target.kind !== "stdio")
    return { ok: false, error: "serve needs a stdio server (after --, or a --server entry with a command): it puts one on HTTP" };
  const values = checkFlagValues(args, SERVE_ARGS);
  if (!values.ok) return values;
  const host = typeof args.host === "string" ? args.host.replace(/^\[(.*)\]$/, "$1") : SERVE_DEFAULTS.host;
  const loopback = isLoopback(host);
  const tokenVariable = args["token-env"] as string | undefined;
  let token: string | undefined;
  if (tokenVariable !== undefined) {
    token = env[tokenVariable];
    if (!token) return { ok: false, error: `--token-env ${tokenVariable}: that variable is not set (or empty)` };
  } else if (!loopback) {
    return { ok: false, error: `--host ${host} is reachable from other machines: give a bearer token with --token-env VAR` };
  }
  const prefix = args["session-prefix"] as string | undefined;
  if (prefix !== undefined && !SESSION_PREFIX.test(prefix))
    return { ok: false, error: `--session-prefix ${JSON.stringify(prefix)}: use 1 to 64 letters, digits and dashes` };
  return {
    ok: true,
    value: {
      ...(prefix !== undefined ? { sessionPrefix: prefix } : {}),
      ...base.value,
      host,
      port: (values.value.port as number | undefined) ?? SERVE_DEFAULTS.port,
      loopback,
      ...(token ? { token } : {}),
      ...(tokenVariable ? { tokenVariable } : {}),
      sessionIdleMs: (values.value["session-idle"] as number | undefined) ?? SERVE_DEFAULTS.sessionIdleMs,
      maxSessions: (values.value["max-sessions"] as number | undefined) ?? SERVE_DEFAULTS.maxSessions,
    },
  };
}
