// The one way every tool turns a target into a channel: a stdio child, an HTTP session, or the
// daemon's session for that target. Each transport, the daemon's client and the OAuth client are
// loaded only when they are needed: a stdio command pays for none of the others, and a warm
// --stateful call for the daemon's client alone.

import type { Registration } from "./auth/client-identity.ts";
import type { OAuthSession } from "./auth/oauth.ts";
import type { PreRegisteredClient } from "./auth/provider.ts";
import type { DaemonOptions } from "./daemon/client.ts";
import { ownStderr } from "./io/stderr.ts";
import type { HttpTarget, Target } from "./targets/target.ts";
import type { Asker } from "./terminal/asker.ts";
import type { MessageChannel } from "./transport/channel.ts";

export interface OpenChannelOptions {
  /** Through mcp-daemon, which keeps the server running between calls (also when the target says so). */
  stateful?: boolean;
  daemon?: DaemonOptions;
  /** Forwarders: each message's raw bytes as they arrived, large ones read for routing only. */
  forwarding?: boolean;
  /** Each line of a stdio server's stderr, stripped of control sequences. */
  onstderr?: (line: string) => void;
  /** 2025-era HTTP: open the session's GET stream for server-initiated messages. */
  listen?: boolean;
  /** Pass our whole environment to a stdio server, not the allow-list (mcp-proxy's `-- cmd`). */
  inheritEnvironment?: boolean;
  fetch?: typeof fetch;
  /** How an HTTP server that wants OAuth is signed in to (default: stored tokens only, never a new sign-in). */
  auth?: ChannelAuth;
}

export interface ChannelAuth {
  signIn: "ask" | "yes" | "no";
  ui: Asker;
  /** False: print the URL and read the redirect back (--no-browser). */
  browser?: boolean;
  /** --client-id (with --client-secret-env), over the entry's own `oauth.clientId`. */
  client?: PreRegisteredClient;
  callbackPort?: number;
  callbackTimeoutMs?: number;
  /** --registration, over the entry's own `oauth.registration`. */
  registration?: Registration;
  /** --grant, over the entry's own `oauth.grant`. */
  grant?: "authorization_code" | "client_credentials";
  /** Aborting stops waiting for the browser. */
  signal?: AbortSignal;
  /** Opens the sign-in page (default: $BROWSER, else the platform's opener). */
  openUrl?: (url: string) => Promise<void>;
  /** Told when a sign-in starts and stops waiting for the person (a command's --timeout holds meanwhile). */
  onuserwait?: (waiting: boolean) => void;
}

/** How a user signs in to this target by hand (named in errors when a sign-in may not happen). */
export function signInCommand(target: HttpTarget): string {
  return target.configFile && target.name
    ? `mcp-inspect auth --config ${target.configFile} --server ${target.name}`
    : `mcp-inspect auth --url ${target.url}`;
}

/** OAuth for an HTTP target, unless its headers carry credentials of their own. */
export async function oauthFor(target: HttpTarget, auth: ChannelAuth | undefined): Promise<OAuthSession | undefined> {
  if (Object.keys(target.headers).some((name) => name.toLowerCase() === "authorization")) return undefined;
  const { OAuthSession } = await import("./auth/oauth.ts");
  const configured = target.oauth;
  const registration = auth?.registration ?? configured?.registration;
  // A forced dynamic registration or metadata document leaves a configured client aside.
  const forcedOther = registration === "dynamic" || registration === "metadata-document";
  const client = forcedOther
    ? undefined
    : (auth?.client ??
      (configured?.clientId
        ? {
            clientId: configured.clientId,
            ...(configured.clientSecret ? { clientSecret: configured.clientSecret } : {}),
            ...(configured.privateKeyFile ? { privateKeyFile: configured.privateKeyFile } : {}),
          }
        : undefined));
  return new OAuthSession(target.url, {
    signIn: auth?.signIn ?? "no",
    ui: auth?.ui ?? { print: (line) => ownStderr().write(`${line}\n`) },
    signInCommand: signInCommand(target),
    browser: auth?.browser,
    client,
    registration,
    grant: auth?.grant ?? configured?.grant,
    scopes: configured?.scopes,
    callbackPort: auth?.callbackPort ?? configured?.callbackPort,
    callbackTimeoutMs: auth?.callbackTimeoutMs,
    signal: auth?.signal,
    openUrl: auth?.openUrl,
    onuserwait: auth?.onuserwait,
  });
}

/** An unstarted channel to the target; `start()` connects. */
export async function openChannel(target: Target, options: OpenChannelOptions = {}): Promise<MessageChannel> {
  if (options.stateful || target.stateful) {
    const { DaemonChannel } = await import("./daemon/client.ts");
    // --client-id and --registration travel with the target: the daemon's session signs in as that client.
    const client = target.kind === "http" ? options.auth?.client : undefined;
    const registration = target.kind === "http" ? options.auth?.registration : undefined;
    const grant = target.kind === "http" ? options.auth?.grant : undefined;
    const withClient =
      (client || registration || grant) && target.kind === "http"
        ? {
            ...target,
            oauth: {
              ...target.oauth,
              ...(client
                ? {
                    clientId: client.clientId,
                    ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
                    ...(client.privateKeyFile ? { privateKeyFile: client.privateKeyFile } : {}),
                  }
                : {}),
              ...(registration ? { registration } : {}),
              ...(grant ? { grant } : {}),
            },
          }
        : target;
    return new DaemonChannel(withClient, options.daemon);
  }
  if (target.kind === "http") {
    const { HttpChannel } = await import("./transport/http/streamable.ts");
    return new HttpChannel({
      url: target.url,
      headers: target.headers,
      transport: target.transport,
      listen: options.listen,
      fetch: options.fetch,
      auth: await oauthFor(target, options.auth),
    });
  }
  const { StdioChannel } = await import("./transport/stdio.ts");
  return new StdioChannel({
    command: target.command,
    args: target.args,
    env: target.env,
    cwd: target.cwd,
    onstderr: options.onstderr,
    forwarding: options.forwarding,
    inheritEnvironment: options.inheritEnvironment,
  });
}
