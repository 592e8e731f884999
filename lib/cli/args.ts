// The flags several tools share, declared once (citty argument definitions, each value flag with
// the kind lib/cli/values.ts checks it as) and checked once.
import { REGISTRATIONS, type Registration } from "../auth/client-identity.ts";
import { KNOWN_PROTOCOL_VERSIONS } from "../wire/protocol.ts";
import type { Result } from "../wire/result.ts";
import { checkValue, type FlagDef } from "./values.ts";

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
    value: "port",
  },
  "callback-timeout": {
    type: "string",
    description: "how long a sign-in waits for the browser to come back (default 300000)",
    valueHint: "ms",
    value: "positive-duration",
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
  grant: {
    type: "string",
    description:
      "authorization-code (default: a person signs in in the browser) or client-credentials (machine to machine: --client-id with " +
      "--client-secret-env or --client-key-file, no browser)",
    valueHint: "grant",
  },
  "client-key-file": {
    type: "string",
    description: "a PEM private key that signs that client's JWT assertions (private_key_jwt), instead of a secret",
    valueHint: "path",
  },
  registration: {
    type: "string",
    description:
      "how the client identifies itself to the authorization server, forced: dynamic, metadata-document or pre-registered " +
      "(default: pre-registered with --client-id, else our metadata document where it works, else dynamic)",
    valueHint: "how",
  },
} as const satisfies Record<string, FlagDef>;

/**
 * --callback-port, --callback-timeout, --client-id, --client-secret-env, --client-key-file, --grant and
 * --registration, checked; the secret is read from the variable named.
 */
export function authFlags(
  args: Record<string, unknown>,
  env: Record<string, string | undefined> = process.env,
): Result<{
  callbackPort?: number;
  callbackTimeoutMs?: number;
  client?: { clientId: string; clientSecret?: string; privateKeyFile?: string };
  registration?: Registration;
  grant?: "authorization_code" | "client_credentials";
}> {
  const port = args["callback-port"] === undefined ? undefined : checkValue("--callback-port", "port", args["callback-port"]);
  if (port && !port.ok) return port;
  const timeout =
    args["callback-timeout"] === undefined ? undefined : checkValue("--callback-timeout", "positive-duration", args["callback-timeout"]);
  if (timeout && !timeout.ok) return timeout;
  const callbackPort = port?.value as number | undefined;
  const callbackTimeoutMs = timeout?.value as number | undefined;
  const registration = args.registration;
  if (registration !== undefined && !REGISTRATIONS.includes(registration as Registration))
    return { ok: false, error: `--registration must be one of ${REGISTRATIONS.join(", ")} (not ${JSON.stringify(registration)})` };
  const clientId = args["client-id"];
  const secretVariable = args["client-secret-env"];
  const keyFile = args["client-key-file"];
  if (secretVariable !== undefined && clientId === undefined) return { ok: false, error: "--client-secret-env goes with --client-id" };
  if (keyFile !== undefined && clientId === undefined) return { ok: false, error: "--client-key-file goes with --client-id" };
  if (keyFile !== undefined && secretVariable !== undefined)
    return { ok: false, error: "--client-key-file and --client-secret-env are two ways to say who the client is: give one" };
  const grantText = args.grant;
  if (grantText !== undefined && grantText !== "authorization-code" && grantText !== "client-credentials")
    return { ok: false, error: `--grant must be authorization-code or client-credentials (not ${JSON.stringify(grantText)})` };
  const grant = grantText === "client-credentials" ? "client_credentials" : grantText === undefined ? undefined : "authorization_code";
  if (grant === "client_credentials" && secretVariable === undefined && keyFile === undefined)
    return { ok: false, error: "--grant client-credentials needs --client-id with --client-secret-env VAR or --client-key-file PATH" };
  let client: { clientId: string; clientSecret?: string; privateKeyFile?: string } | undefined;
  if (typeof clientId === "string") {
    client = { clientId };
    if (typeof secretVariable === "string") {
      const secret = env[secretVariable];
      if (!secret) return { ok: false, error: `--client-secret-env ${secretVariable}: that variable is not set` };
      client.clientSecret = secret;
    }
    if (typeof keyFile === "string") client.privateKeyFile = keyFile;
  }
  return {
    ok: true,
    value: {
      ...(callbackPort ? { callbackPort } : {}),
      ...(callbackTimeoutMs ? { callbackTimeoutMs } : {}),
      ...(client ? { client } : {}),
      ...(registration ? { registration: registration as Registration } : {}),
      ...(grant ? { grant } : {}),
    },
  };
}

/** Pins one protocol revision (mcp-inspect and mcp-host): negotiate exactly this one, or fail. */
export const PROTOCOL_VERSION_ARGS = {
  "protocol-version": {
    type: "string",
    description: `negotiate exactly this revision or fail (${KNOWN_PROTOCOL_VERSIONS.join(", ")})`,
    valueHint: "v",
    value: "protocol-version",
  },
} as const satisfies Record<string, FlagDef>;

/** The logging flags, the same in every tool. */
export const LOG_ARGS = {
  "log-level": { type: "string", description: "silent, error, warn, info, debug or trace", valueHint: "level", value: "log-level" },
  "log-file": { type: "string", description: "also append every log line, with a timestamp, to this file", valueHint: "file" },
} as const satisfies Record<string, FlagDef>;

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
} as const satisfies Record<string, FlagDef>;

/** Flags that may be given more than once, with their one-letter aliases. */
export const REPEATABLE_TARGET_FLAGS = { header: ["H"], env: ["e"] };
