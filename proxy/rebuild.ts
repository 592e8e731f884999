// What a watched change does: a build (when --build is given), then a restart. Changes seen
// meanwhile (the build may write inside the watched tree, and those events arrive up to a
// debounce later) make at most one more round; changes during that round are its own output and
// start nothing, so a build never loops. A failed build keeps the old server and says why.
import type { ConsolaInstance } from "consola/core";
import { waitMs } from "../lib/io/reading.ts";
import type { McpProxy } from "./core.ts";
import type { Builder } from "./watch.ts";

/** A change, and at most one more round for what changed while it was built. */
export const WATCH_ROUNDS = 2;

export interface RebuildOptions {
  proxy: McpProxy;
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
async function rebuild(paths: string[], { proxy, builder, log }: RebuildOptions): Promise<boolean> {
  const shown = paths.slice(0, 3).join(", ") + (paths.length > 3 ? ` and ${paths.length - 3} more` : "");
  if (builder) {
    log.info(`building: ${builder.command}`);
    const build = await builder.build();
    if (!build.ok) {
      const text = `build failed (exit ${build.code}); the server keeps running the previous build:\n${build.output}`;
      log.error(text);
      await proxy.notifyClient("error", text);
      return false;
    }
  }
  await proxy.restart(`changed: ${shown}`, { again: true, resetsBreaker: true });
  return true;
}
