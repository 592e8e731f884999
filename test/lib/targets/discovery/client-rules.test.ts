// What the clients themselves decide: Codex's layering of a project over the user's entry, and
// Gemini CLI's folder trust (the longest rule wins, TRUST_PARENT stands for the folder above).
import { expect, test } from "bun:test";
import { geminiTrusts, layered } from "../../../../lib/targets/discovery/client-rules.ts";

test("Codex layering: tables merged key by key, arrays and values replaced, the user's other fields kept", () => {
  const user = { command: "run", args: ["a", "b"], env: { A: "user", B: "user" }, startup_timeout_sec: 5 };
  const project = { args: ["c"], env: { B: "project", C: "project" } };
  expect(layered(user, project)).toEqual({
    command: "run",
    args: ["c"],
    env: { A: "user", B: "project", C: "project" },
    startup_timeout_sec: 5,
  });
  expect(layered({}, project)).toEqual(project);
  expect(layered(user, {})).toEqual(user);
});

test("Gemini folder trust: the longest rule holding the folder decides; TRUST_PARENT trusts the folder above its path", () => {
  const rules: [string, string][] = [
    ["/work", "TRUST_FOLDER"],
    ["/work/cloned", "DO_NOT_TRUST"],
    ["/src/repo/sub", "TRUST_PARENT"],
  ];
  expect(geminiTrusts(rules, "/work/mine")).toBe(true);
  expect(geminiTrusts(rules, "/work/cloned/deeper")).toBe(false);
  expect(geminiTrusts(rules, "/src/repo")).toBe(true);
  expect(geminiTrusts(rules, "/src/other")).toBe(false);
  expect(geminiTrusts(rules, "/workshop")).toBe(false);
  expect(geminiTrusts([], "/work")).toBe(false);
});
