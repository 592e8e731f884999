// The conformance suite's results folded into `mcp-inspect test`'s checks: each scenario one check
// (`conformance:<scenario>`), failing when one of its checks fails. Most of the suite's server
// scenarios call its own fixture tools, prompts and resources (test_simple_text, test://static-text):
// on a server without them a scenario whose every failure is such a miss is not applicable, and says so.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { oneLine } from "../../lib/io/text.ts";
import { type CheckResult, listed, type Status } from "../checks/model.ts";
import { CONFORMANCE } from "./suite.ts";

/** One check of a scenario as the suite writes it to <output-dir>/server-<scenario>-<time>/checks.json. */
interface SuiteCheck {
  id?: string;
  status?: string;
  errorMessage?: string;
  specReferences?: { url?: string }[];
}

/** A results folder: the scenario's name, then the ISO time of its run with - for : and . */
const RESULT_DIR = /^server-(.+)-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)$/;
/** The summary line of a scenario on the suite's stdout. */
const VERDICT_LINE = /^([✓✗]) ([^:\s]+): (.*)$/;
/** A fixture of the suite's own, named in what it says of a failing check. */
const FIXTURE_NAME = /\b(test_[a-z0-9_]+|test:\/\/[^\s,;]+)/i;
/** Servers word a miss their own way: "Tool X not found", "unknown tool X", "no such prompt". */
const MISSING = /\bnot found\b|\bunknown\b|\bno such\b|\bdoes not exist\b|\bdoesn't exist\b/i;

export const conformanceId = (scenario: string) => `conformance:${scenario}`;

/** Every scenario the run left results for, in the order they ran; the stdout summary fills in any without. */
export function foldResults(outputDir: string, stdout: string): CheckResult[] {
  const runs = readdirSync(outputDir)
    .map((name) => RESULT_DIR.exec(name))
    .filter((match) => match !== null)
    .sort((a, b) => a[2]!.localeCompare(b[2]!));
  const checks = runs.map((match) => scenarioCheck(match[1]!, readChecks(join(outputDir, match[0]))));
  for (const line of stdout.split("\n")) {
    const verdict = VERDICT_LINE.exec(line.trim());
    if (!verdict || checks.some((check) => check.id === conformanceId(verdict[2]!))) continue;
    checks.push(check(verdict[2]!, verdict[1] === "✓" ? "pass" : "fail", `${verdict[3]} (no results written)`, []));
  }
  return checks;
}

function readChecks(dir: string): SuiteCheck[] | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, "checks.json"), "utf8"));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function scenarioCheck(scenario: string, suiteChecks: SuiteCheck[] | undefined): CheckResult {
  if (!suiteChecks) return check(scenario, "fail", "the suite wrote no readable checks.json for it", []);
  const urls = [...new Set(suiteChecks.flatMap((c) => (c.specReferences ?? []).map((ref) => ref.url ?? "")).filter(Boolean))];
  const count = (status: string) => suiteChecks.filter((c) => c.status === status).length;
  const failures = suiteChecks.filter((c) => c.status === "FAILURE");
  const warnings = suiteChecks.filter((c) => c.status === "WARNING");
  const tally = `${count("SUCCESS")} passed, ${failures.length} failed${warnings.length > 0 ? `, ${warnings.length} warning(s)` : ""}`;
  const said = (c: SuiteCheck) => `${c.id ?? "?"}: ${oneLine(c.errorMessage ?? "no message")}`;
  if (failures.length === 0) {
    const noted = warnings.length > 0 ? ` (${listed(warnings.map(said))})` : "";
    return check(scenario, "pass", `${tally}${noted}`, urls);
  }
  const fixtures = failures.map((c) => (MISSING.test(c.errorMessage ?? "") ? FIXTURE_NAME.exec(c.errorMessage ?? "") : null));
  if (fixtures.every((match) => match !== null)) {
    const names = [...new Set(fixtures.map((match) => match![1]!))];
    return check(scenario, "not-applicable", `needs the suite's own fixture ${names.join(", ")}, which this server does not have`, urls);
  }
  return check(scenario, "fail", `${tally}: ${listed(failures.map(said))}`, urls);
}

function check(scenario: string, status: Status, seen: string, urls: string[]): CheckResult {
  return {
    id: conformanceId(scenario),
    title: `conformance scenario ${scenario}`,
    clause: `${CONFORMANCE} server scenario ${scenario}${urls.length > 0 ? ` (${urls.join(", ")})` : ""}`,
    severity: "error",
    status,
    seen,
  };
}
