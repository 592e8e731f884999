// One way to name an MCP server in every tool: a stdio command line after `--`, a URL with
// headers, an entry of a client's config file, or the name of a server configured in any client.
// The Target types, and what every way of naming one checks: its URL, its name for people.
// Which way the flags name it is resolve.ts; a config file's entry config-entry.ts.
import type { Result } from "../wire/result.ts";
import { failed } from "../wire/result.ts";

export interface StdioTarget {
  kind: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  name?: string;
  stateful?: boolean;
  timeoutMs?: number;
}
export type HttpTransportChoice = "auto" | "streamable-http" | "sse";
export interface HttpTarget {
  kind: "http";
  url: string;
  headers: Record<string, string>;
  transport: HttpTransportChoice;
  name?: string;
  stateful?: boolean;
  timeoutMs?: number;
  /** A pre-registered OAuth client and what to ask for (config `oauth`, or --client-id). */
  oauth?: OAuthSettings;
  /** The config file the entry came from (for the command that signs in to it). */
  configFile?: string;
}

export interface OAuthSettings {
  /** How the client identifies itself, forced ("dynamic", "metadata-document" or "pre-registered"). */
  registration?: "dynamic" | "metadata-document" | "pre-registered";
  /** "client_credentials": machine to machine (with clientSecret or privateKeyFile); default the authorization code grant. */
  grant?: "authorization_code" | "client_credentials";
  clientId?: string;
  /** A PEM private key signing the client's JWT assertions (private_key_jwt). */
  privateKeyFile?: string;
  clientSecret?: string;
  scopes?: string[];
  callbackPort?: number;
}
export type Target = StdioTarget | HttpTarget;

export interface TargetFlags {
  url?: string;
  header?: string[];
  config?: string;
  server?: string;
  env?: string[];
  cwd?: string;
  transport?: string;
}

export type Env = Record<string, string | undefined>;

/** An http(s) URL, normalized; anything else says how to give one. */
export function checkUrl(value: string): Result<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return failed(`bad URL ${JSON.stringify(value)} (give a full http:// or https:// URL)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return failed(`unsupported URL scheme ${url.protocol} (use http:// or https://)`);
  }
  return { ok: true, value: url.href };
}

/** A short human name for a target, for logs and the output envelope. */
export function describeTarget(target: Target): string {
  if (target.name) return target.name;
  if (target.kind === "http") return target.url;
  return [target.command, ...target.args].join(" ");
}
