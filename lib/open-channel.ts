// The one way every tool turns a target into a channel: a stdio child, an HTTP session, or the
// daemon's session for that target. The daemon's client is loaded only when it is needed.
import type { MessageChannel } from "./channel.ts";
import type { DaemonOptions } from "./daemon-client.ts";
import { HttpChannel } from "./streamable-http.ts";
import { StdioChannel } from "./stdio.ts";
import type { Target } from "./target.ts";

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
}

/** An unstarted channel to the target; `start()` connects. */
export async function openChannel(target: Target, options: OpenChannelOptions = {}): Promise<MessageChannel> {
  if (options.stateful || target.stateful) {
    const { DaemonChannel } = await import("./daemon-client.ts");
    return new DaemonChannel(target, options.daemon);
  }
  if (target.kind === "http") {
    return new HttpChannel({ url: target.url, headers: target.headers, transport: target.transport, listen: options.listen, fetch: options.fetch });
  }
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
