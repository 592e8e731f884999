// The log levels every tool's --log-level names, apart from the logger itself so that a flag can be
// checked before the logger (and consola) loads.

export const LOG_LEVELS = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;

export function isLogLevelName(value: string): value is LogLevelName {
  return Object.hasOwn(LOG_LEVELS, value);
}
