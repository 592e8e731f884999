// The flags several tools share, declared once (citty argument definitions) and checked once.
import type { ArgsDef } from "citty";
import type { Result } from "../wire/result.ts";

/** How a tool signs in to a server that wants OAuth, the same in every tool that can. */
export const AUTH_ARGS = {
  oauth: { type: "boolean", description: "sign in (OAuth, in the browser) without asking, when the server wants it" },
  browser: {
    type: "boolean",
    default: true,
    description:
      "open the sign-in page in the browser ($BROWSER, else the system's); --no-browser only prints its URL, and takes the redirect " +
      "URL pasted back",
  },
  "callback-port": {
    type: "string",
    description: "the loopback port the browser comes back to (default: the one the client was registered with, else any free port)",
    valueHint: "port",
  },
  "callback-timeout": {
    type: "string",
    description: "how long a sign-in waits for the browser to come back (default 300000)",
    valueHint: "ms",
  },
  "client-id": {
    type: "string",
    description: "a client registered with the authorization server beforehand (for servers without dynamic registration)",
    valueHint: "id",
  },
  "client-secret-env": {
    type: "string",
    description: "the environment variable that holds that client's secret (never the secret itself)",
    valueHint: "VAR",
  },
} as const satisfies ArgsDef;

/** --callback-port, --callback-timeout, --client-id and --client-secret-env, checked; the secret is read from the variable named. */
export function authFlags(
  args: Record<string, unknown>,
  env: Record<string, string | undefined> = process.env,
): Result<{ callbackPort?: number; callbackTimeoutMs?: number; client?: { clientId: string; clientSecret?: string } }> {
  const port = args["callback-port"];
  let callbackPort: number | undefined;
  if (port !== undefined) {
    if (typeof port !== "string" || !/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65_535)
      return { ok: false, error: `--callback-port takes a port number (1-65535), not ${JSON.stringify(port)}` };
    callbackPort = Number(port);
  }
  const timeout = args["callback-timeout"];
  let callbackTimeoutMs: number | undefined;
  if (timeout !== undefined) {
    if (typeof timeout !== "string" || !/^\d+$/.test(timeout) || Number(timeout) < 1)
      return { ok: false, error: `--callback-timeout takes milliseconds (a whole number above 0), not ${JSON.stringify(timeout)}` };
    callbackTimeoutMs = Number(timeout);
  }
  const clientId = args["client-id"];
  const secretVariable = args["client-secret-env"];
  if (secretVariable !== undefined && clientId === undefined) return { ok: false, error: "--client-secret-env goes with --client-id" };
  let client: { clientId: string; clientSecret?: string } | undefined;
  if (typeof clientId === "string") {
    client = { clientId };
    if (typeof secretVariable === "string") {
      const secret = env[secretVariable];
      if (!secret) return { ok: false, error: `--client-secret-env ${secretVariable}: that variable is not set` };
      client.clientSecret = secret;
    }
  }
  return {
    ok: true,
    value: {
      ...(callbackPort ? { callbackPort } : {}),
      ...(callbackTimeoutMs ? { callbackTimeoutMs } : {}),
      ...(client ? { client } : {}),
    },
  };
}

/** The logging flags, the same in every tool. */
export const LOG_ARGS = {
  "log-level": { type: "string", description: "silent, error, warn, info, debug or trace", valueHint: "level" },
  "log-file": { type: "string", description: "also append every log line, with a timestamp, to this file", valueHint: "file" },
} as const satisfies ArgsDef;

/** The flags that name a server, the same on every command of every tool. */
export const TARGET_ARGS = {
  url: { type: "string", description: "Streamable HTTP (or legacy SSE) server URL", valueHint: "url" },
  header: { type: "string", description: "HTTP header for --url servers, repeatable", valueHint: "'Name: value'", alias: ["H"] },
  transport: { type: "string", description: "for --url: auto (default), http or sse", valueHint: "auto|http|sse" },
  config: { type: "string", description: "client config file (Claude Desktop, Claude Code .mcp.json, Cursor, VS Code)", valueHint: "file" },
  server: {
    type: "string",
    description: "an entry of --config, else an http(s) URL, else a command line (quoted as a shell would)",
    valueHint: "name|url|cmd",
  },
  env: { type: "string", description: "environment variable for a stdio server, repeatable", valueHint: "KEY=value", alias: ["e"] },
  cwd: { type: "string", description: "working directory for a stdio server", valueHint: "dir" },
} as const satisfies ArgsDef;

/** Flags that may be given more than once, with their one-letter aliases. */
export const REPEATABLE_TARGET_FLAGS = { header: ["H"], env: ["e"] };
