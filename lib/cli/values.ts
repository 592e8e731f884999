// Every flag value that is a duration, a count, a port, a log level or a protocol revision is
// checked here, one way and in one wording, whichever tool and flag it is. A flag's definition names
// its kind (`value` in lib/cli/args.ts); checkFlagValues reads every such flag of a command at once.
import type { ArgDef } from "citty";
import { isLogLevelName, LOG_LEVELS } from "../io/log-levels.ts";
import { KNOWN_PROTOCOL_VERSIONS } from "../wire/protocol.ts";
import type { Result } from "../wire/result.ts";

/** setTimeout's own limit: a longer duration would fire at once. */
export const MAX_DURATION_MS = 2_147_483_647;
export const MAX_PORT = 65_535;

export type ValueKind = "duration" | "positive-duration" | "count" | "positive-count" | "port" | "log-level" | "protocol-version";
/** A citty argument that says what kind of value it takes (citty itself ignores the field). */
export type FlagDef = ArgDef & { value?: ValueKind };

const LEVEL_NAMES = Object.keys(LOG_LEVELS).join(", ");

/** `text` read as a value of `kind`; `source` names where it came from (`--timeout`, or an environment variable). */
export function checkValue(source: string, kind: ValueKind, text: unknown): Result<number | string> {
  const shown = JSON.stringify(text);
  switch (kind) {
    case "duration":
    case "positive-duration": {
      const least = kind === "duration" ? 0 : 1;
      if (typeof text !== "string" || !/^\d+$/.test(text) || Number(text) < least)
        return { ok: false, error: `${source} takes milliseconds, a whole number of at least ${least} (e.g. 5000), not ${shown}` };
      if (Number(text) > MAX_DURATION_MS)
        return { ok: false, error: `${source} takes at most ${MAX_DURATION_MS} ms (about 24 days), not ${text}` };
      return { ok: true, value: Number(text) };
    }
    case "count":
    case "positive-count": {
      const least = kind === "count" ? 0 : 1;
      if (typeof text !== "string" || !/^\d+$/.test(text) || Number(text) < least || !Number.isSafeInteger(Number(text)))
        return { ok: false, error: `${source} takes a whole number of at least ${least}, not ${shown}` };
      return { ok: true, value: Number(text) };
    }
    case "port":
      if (typeof text !== "string" || !/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_PORT)
        return { ok: false, error: `${source} takes a port number (1-${MAX_PORT}), not ${shown}` };
      return { ok: true, value: Number(text) };
    case "log-level":
      if (typeof text !== "string" || !isLogLevelName(text))
        return { ok: false, error: `${source} takes one of ${LEVEL_NAMES}, not ${shown}` };
      return { ok: true, value: text };
    case "protocol-version":
      if (typeof text !== "string" || !KNOWN_PROTOCOL_VERSIONS.includes(text))
        return { ok: false, error: `${source} takes one of ${KNOWN_PROTOCOL_VERSIONS.join(", ")}, not ${shown}` };
      return { ok: true, value: text };
  }
}

/** Checks every flag of `defs` that declares a kind and was given; the first problem, or the values read. */
export function checkFlagValues(args: Record<string, unknown>, defs: Record<string, FlagDef>): Result<Record<string, number | string>> {
  const values: Record<string, number | string> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (def.value === undefined || args[name] === undefined) continue;
    const checked = checkValue(`--${name}`, def.value, args[name]);
    if (!checked.ok) return checked;
    values[name] = checked.value;
  }
  return { ok: true, value: values };
}
