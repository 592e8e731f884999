// What mcp-host decides from its command line before anything heavy loads (the MCP SDK, a vendor
// SDK): the protocol era to ask for and the roots to offer (exit codes are lib's). `--help` and
// `--version` then stay instant.
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { checkValue } from "../lib/cli/values.ts";
import type { Result } from "../lib/wire/result.ts";

export { EXIT } from "../lib/cli/exit-codes.ts";

/** --legacy, --protocol-version V, or the default probe for 2026-07-28. */
export type EraChoice = { mode: "auto" } | { mode: "legacy" } | { mode: "pin"; version: string };

/** Checks a --protocol-version value: a 2025-era revision runs the legacy handshake pinned to it. */
export function eraChoice(legacy: boolean, version: string | undefined): Result<EraChoice> {
  if (legacy && version) return { ok: false, error: "give --legacy or --protocol-version, not both" };
  if (legacy) return { ok: true, value: { mode: "legacy" } };
  if (version === undefined) return { ok: true, value: { mode: "auto" } };
  const checked = checkValue("--protocol-version", "protocol-version", version);
  return checked.ok ? { ok: true, value: { mode: "pin", version } } : checked;
}

/** file:// roots for directories. */
export function rootFor(directory: string): { uri: string; name: string } {
  return { uri: pathToFileURL(directory).href, name: basename(directory) || directory };
}
