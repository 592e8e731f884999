// How a test run is told: a line per check for people, JUnit XML for CI, and a --baseline of
// known failures applied (a known failure does not fail the run; an entry that now passes does).
import { readFileCapped } from "../../lib/io/read-capped.ts";
import { stripControl } from "../../lib/io/text.ts";
import { MAX_PARAMS_BYTES } from "../../lib/wire/limits.ts";
import type { Result } from "../../lib/wire/result.ts";
import { type CheckResult, result } from "./model.ts";

const MARKS = { pass: "pass", fail: "FAIL", skip: "skip", "not-applicable": "n/a " } as const;

export function checksText(checks: CheckResult[]): string {
  const lines = checks.map((check) => {
    const known = check.known ? " (known, --baseline)" : "";
    const level = check.status === "fail" ? ` [${check.severity}]` : "";
    return `${MARKS[check.status]}  ${check.id}${level}${known}: ${stripControl(check.seen)}`;
  });
  return `${lines.join("\n")}\n${summary(checks)}\n`;
}

export function summary(checks: CheckResult[]): string {
  const count = (status: CheckResult["status"]) => checks.filter((c) => c.status === status).length;
  return `${count("pass")} passed, ${count("fail")} failed, ${count("skip")} skipped, ${count("not-applicable")} not applicable`;
}

const escapeXml = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    // XML 1.0 has no way to write most control characters at all.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, "");

/** One testsuite; a failure of warning severity is a failure too, its type saying so. */
export function junitXml(checks: CheckResult[], suite: string, durationMs: number): string {
  const failures = checks.filter((c) => c.status === "fail").length;
  const skipped = checks.filter((c) => c.status === "skip" || c.status === "not-applicable").length;
  const cases = checks.map((check) => {
    const open = `    <testcase classname="mcp-inspect.test" name="${escapeXml(check.id)}">`;
    const seen = escapeXml(check.seen);
    const body =
      check.status === "fail"
        ? `<failure type="${check.severity}${check.known ? " (known)" : ""}" message="${escapeXml(check.title)}">` +
          `${escapeXml(check.clause)}\n${seen}</failure>`
        : check.status === "pass"
          ? `<system-out>${seen}</system-out>`
          : `<skipped message="${check.status}: ${seen}"/>`;
    return `${open}${body}</testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-inspect test" tests="${checks.length}" failures="${failures}" time="${(durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="${escapeXml(suite)}" tests="${checks.length}" failures="${failures}" skipped="${skipped}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/**
 * The check ids a --baseline file names as known failures: a JSON list of ids, `{"failures": [...]}`,
 * or the envelope of an earlier `mcp-inspect test --json` (its failing checks).
 */
export async function readBaseline(file: string): Promise<Result<string[]>> {
  const read = await readFileCapped(file, MAX_PARAMS_BYTES);
  if (!read.ok) return { ok: false, error: `cannot read --baseline ${file} (${read.error.detail ?? read.error.reason})` };
  let value: unknown;
  try {
    value = JSON.parse(read.value);
  } catch (error) {
    return { ok: false, error: `--baseline ${file} is not JSON (${(error as Error).message})` };
  }
  const fromEnvelope = (value as { data?: { checks?: unknown } })?.data?.checks;
  const ids = Array.isArray(value)
    ? value
    : Array.isArray((value as { failures?: unknown })?.failures)
      ? (value as { failures: unknown[] }).failures
      : Array.isArray(fromEnvelope)
        ? fromEnvelope.filter((c) => (c as CheckResult).status === "fail").map((c) => (c as CheckResult).id)
        : undefined;
  if (!ids?.every((id) => typeof id === "string"))
    return { ok: false, error: `--baseline ${file}: expected a list of check ids, {"failures": [...]}, or a test --json envelope` };
  return { ok: true, value: ids as string[] };
}

/** Marks the known failures, and adds a failing `baseline` check for entries that no longer fail. */
export function applyBaseline(checks: CheckResult[], known: string[]): CheckResult[] {
  const marked = checks.map((check) => (check.status === "fail" && known.includes(check.id) ? { ...check, known: true } : check));
  const stale = known.filter((id) => !checks.some((check) => check.id === id && check.status === "fail"));
  const entry =
    stale.length > 0
      ? result("baseline", "fail", `no longer failing (remove from the baseline): ${stale.join(", ")}`)
      : result("baseline", "pass", `${known.length} known failure(s), all still failing`);
  return [...marked, entry];
}
