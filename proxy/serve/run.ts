// One run of `mcp-proxy serve`: the endpoint on its address, `listening <url>` on stderr once it
// takes connections, the watcher restarting every server process, and a signal ending them all.
import { createLogger } from "../../lib/io/log.ts";
import { onExitSignals } from "../../lib/io/signals.ts";
import { ownStderr } from "../../lib/io/stderr.ts";
import { openChannel } from "../../lib/open.ts";
import { describeTarget } from "../../lib/targets/target.ts";
import { McpProxy } from "../core.ts";
import { watchForRebuilds } from "../rebuild.ts";
import { MCP_PATH, ServeEndpoint } from "./endpoint.ts";
import { listen } from "./listen.ts";
import type { ServeSettings } from "./settings.ts";

/** Serves until a signal; resolves with the exit code. */
export async function runServe(settings: ServeSettings): Promise<number> {
  const log = createLogger({ level: settings.logLevel, file: settings.logFile, tag: "mcp-proxy serve" });
  const stderr = ownStderr();
  // The token is ours: the servers never see it (they inherit the rest of our environment).
  if (settings.tokenVariable) delete process.env[settings.tokenVariable];
  let processes = 0;
  const endpoint = new ServeEndpoint({
    loopback: settings.loopback,
    ...(settings.token ? { token: settings.token } : {}),
    maxSessions: settings.maxSessions,
    sessionIdleMs: settings.sessionIdleMs,
    ...(settings.sessionPrefix !== undefined ? { sessionPrefix: settings.sessionPrefix } : {}),
    log,
    proxyFor: (toClient, tag, clientInput) => {
      const label = `${tag} ${++processes}`;
      return new McpProxy({
        connect: () =>
          openChannel(settings.target, {
            forwarding: true,
            inheritEnvironment: settings.inheritEnvironment,
            onstderr: (line) => stderr.write(`[server ${label}] ${line}\n`),
          }),
        toClient,
        clientInput,
        log: log.withTag(label),
        restartTimeoutMs: settings.restartTimeoutMs,
        autoRestart: settings.autoRestart,
        maxRestarts: settings.maxRestarts,
        restartDelayMs: settings.restartDelayMs,
      });
    },
  });

  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen(settings.host, settings.port, endpoint.fetch);
  } catch (error) {
    await endpoint.close();
    log.error(`cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}`);
    return 1;
  }
  // Always said, whatever the log level: scripts and tests wait for this line.
  stderr.write(`listening ${listening.origin}${MCP_PATH}\n`);
  log.info(`serving ${describeTarget(settings.target)}`);

  const stopWatching = watchForRebuilds(settings, buildCwd(settings), () => endpoint.proxies(), log);

  const signalled = Promise.withResolvers<number>();
  onExitSignals((_signal, code) => signalled.resolve(code));
  const code = await signalled.promise;
  stopWatching();
  await Promise.allSettled([endpoint.close(), listening.stop()]);
  return code;
}

/** Where --build runs: the server's own folder (serve's target is always a stdio command). */
function buildCwd(settings: ServeSettings): string {
  return (settings.target.kind === "stdio" ? settings.target.cwd : undefined) ?? process.cwd();
}
