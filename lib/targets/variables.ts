// `${VAR}` in a config entry, as the clients expand it: `${VAR}`, `${VAR:-default}` and VS Code's
// `${env:VAR}`, from the environment's own entries only. (VS Code's other variables and inputs are
// lib/targets/discovery/variables.ts.)
import { isJsonObject } from "../wire/jsonrpc.ts";
import type { Result } from "../wire/result.ts";
import { failed as fail } from "../wire/result.ts";
import type { Env } from "./target.ts";

const VARIABLE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}`, `${VAR:-default}` and VS Code's `${env:VAR}`; an unset VAR without a default is an error. */
export function expandVariables(text: string, environment: Env): Result<string> {
  let missing: string | undefined;
  const value = text.replace(VARIABLE, (_match, variable: string, fallback: string | undefined) => {
    // Only the environment's own entries: ${__proto__} or ${toString} must not reach Object.prototype.
    const found = Object.hasOwn(environment, variable) ? environment[variable] : undefined;
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    if (found === "") return "";
    missing ??= variable;
    return "";
  });
  if (missing) return fail(`\${${missing}} is not set (export it, or write \${${missing}:-default})`);
  return { ok: true, value };
}

export function expandDeep(value: unknown, environment: Env): Result<unknown> {
  if (typeof value === "string") return expandVariables(value, environment);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const expanded = expandDeep(item, environment);
      if (!expanded.ok) return expanded;
      out.push(expanded.value);
    }
    return { ok: true, value: out };
  }
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const expanded = expandDeep(item, environment);
      if (!expanded.ok) return expanded;
      out[key] = expanded.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}
