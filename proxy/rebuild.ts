// What a watched change does: a build (when --build is given), then a restart. Changes seen
// meanwhile (the build may write inside the watched tree, and those events arrive up to a
// debounce later) make at most one more round; changes during that round are its own output and
// start nothing, so a build never loops. A failed build keeps the old server and says why.
import type { ConsolaInstance } from "consola/core";
import { waitMs } from "../lib/io/reading.ts";
import type { McpProxy } from "./core.ts";
import type { Settings } from "./settings.ts";
import { Builder, startWatching } from "./watch.ts";

/** A change, and at most one more round for what changed while it was built. */
export const WATCH_ROUNDS = 2;

export interface RebuildOptions {
  /** The proxies to restart: mcp-proxy's one, or every server process `serve` runs at the time. */
  proxies: () => McpProxy[];
  builder?: Builder;
  log: ConsolaInstance;
  debounceMs: number;
}

/** The watcher's onchange: one rebuild at a time, rounds bounded by WATCH_ROUNDS. */
export function rebuilder(options: RebuildOptions): (paths: string[]) => Promise<void> {
  let changedMeanwhile: string[] | undefined;
  let rebuilding = false;
  return async (paths) => {
    if (rebuilding) {
      changedMeanwhile = [...(changedMeanwhile ?? []), ...paths];
      return;
    }
    rebuilding = true;
    let round = 0;
    try {
      let batch: string[] | undefined = paths;
      for (; batch && round < WATCH_ROUNDS; round++) {
        changedMeanwhile = undefined;
        if (!(await rebuild(batch, options))) break;
        await waitMs(options.debounceMs);
        batch = changedMeanwhile;
      }
    } finally {
      rebuilding = false;
      changedMeanwhile = undefined;
      options.log.debug(`watching again after ${round} build round(s)`);
    }
  };
}

/** Builds (when asked to) and restarts; false when the build failed and the old server stays. */
async function rebuild(paths: string[], { proxies, builder, log }: RebuildOptions): Promise<boolean> {
  const shown = paths.slice(0, 3).join(", ") + (paths.length > 3 ? ` and ${paths.length - 3} more` : "");
  if (builder) {
    log.info(`building: ${builder.command}`);
    const build = await builder.build();
    if (!build.ok) {
      const text = `build failed (exit ${build.code}); the server keeps running the previous build:\n${build.output}`;
      log.error(text);
      await Promise.allSettled(proxies().map((proxy) => proxy.notifyClient("error", text)));
      return false;
    }
  }
  await Promise.allSettled(proxies().map((proxy) => proxy.restart(`changed: ${shown}`, { again: true, resetsBreaker: true })));
  return true;
}

/**
 * --watch and --build for a run: a change rebuilds and restarts what `proxies` gives at the time.
 * Returns what stops both the watcher and a build in progress.
 */
export function watchForRebuilds(
  settings: Pick<Settings, "build" | "watch" | "debounceMs">,
  buildCwd: string,
  proxies: () => McpProxy[],
  log: ConsolaInstance,
): () => void {
  const builder = settings.build ? new Builder(settings.build, buildCwd) : undefined;
  const onchange = rebuilder({ proxies, builder, log, debounceMs: settings.debounceMs });
  const stopWatching =
    settings.watch.length > 0
      ? startWatching({
          patterns: settings.watch,
          cwd: process.cwd(),
          debounceMs: settings.debounceMs,
          onerror: (message) => log.warn(message),
          onignored: (path, why, pending) => log.debug(`ignored a change to ${path} (${why}; ${pending} change(s) pending)`),
          onchange: (paths) => void onchange(paths),
        })
      : () => {};
  return () => {
    stopWatching();
    builder?.stop();
  };
}
