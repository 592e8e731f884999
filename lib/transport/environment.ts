// What a server started from a target definition inherits from us: an allow-list plus what its
// entry configures. API keys in the caller's environment stay behind.
import type { SpawnOptions } from "../io/spawn.ts";

export const INHERITED_ENV_POSIX = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];
export const INHERITED_ENV_WINDOWS = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "PROGRAMFILES",
];

export type Environment = Record<string, string | undefined>;

/** The allow-listed variables of `base`, then `extra` on top. */
export function serverEnvironment(extra: Record<string, string> = {}, base: Environment = process.env): Record<string, string> {
  const names = process.platform === "win32" ? INHERITED_ENV_WINDOWS : INHERITED_ENV_POSIX;
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = base[name];
    // Exported bash functions look like "() { ...": never pass them on (Shellshock).
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return { ...env, ...extra };
}

/** How a stdio server is spawned (lib/transport/stdio.ts, or mcp-inspect's early path before that loads). */
export function serverSpawnOptions(options: {
  env?: Record<string, string>;
  cwd?: string;
  baseEnv?: Environment;
  /** Pass all of `baseEnv` on, not only the allow-list (mcp-proxy's `-- cmd`: the client configured it). */
  inheritEnvironment?: boolean;
}): SpawnOptions {
  const base = options.baseEnv ?? process.env;
  const env = options.inheritEnvironment ? { ...definedOnly(base), ...options.env } : serverEnvironment(options.env, base);
  // Its own process group, so that a shutdown reaches whatever it starts.
  return { cwd: options.cwd, env, detached: process.platform !== "win32" };
}

function definedOnly(env: Environment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
