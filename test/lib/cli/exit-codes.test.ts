// The exit codes of every tool, one table (lib/cli/exit-codes.ts), and their names in mcp-inspect's
// JSON envelope.
import { expect, test } from "bun:test";
import { EXIT, EXIT_NAMES } from "../../../lib/cli/exit-codes.ts";
import { EXIT_SIGNALS, type ExitSignal, signalExitCode } from "../../../lib/io/signals.ts";

test("no two outcomes share a code, and 0 is success", () => {
  const codes = Object.values(EXIT);
  expect(new Set(codes).size).toBe(codes.length);
  expect(EXIT.ok).toBe(0);
  for (const code of codes) expect(Number.isInteger(code) && code >= 0 && code <= 255).toBe(true);
});

test("every failure code has a stable name, and success has none", () => {
  for (const [outcome, code] of Object.entries(EXIT)) {
    if (outcome === "ok") expect(EXIT_NAMES[code]).toBeUndefined();
    else expect(EXIT_NAMES[code]).toMatch(/^[A-Z_]+$/);
  }
});

test("the names are one per outcome: only the signal codes share CANCELLED", () => {
  const byName = new Map<string, number[]>();
  for (const [code, name] of Object.entries(EXIT_NAMES)) byName.set(name, [...(byName.get(name) ?? []), Number(code)]);
  for (const [name, codes] of byName) if (name !== "CANCELLED") expect(codes).toHaveLength(1);
  expect(byName.get("CANCELLED")).toEqual((Object.keys(EXIT_SIGNALS) as ExitSignal[]).map(signalExitCode).sort((a, b) => a - b));
});

test("every signal a tool ends on is CANCELLED, at 128+N; Ctrl-C is the interrupted code", () => {
  for (const signal of Object.keys(EXIT_SIGNALS) as ExitSignal[]) expect(EXIT_NAMES[signalExitCode(signal)]).toBe("CANCELLED");
  expect(signalExitCode("SIGINT")).toBe(EXIT.interrupted);
});

test("the tools' own codes stay below 128, where no signal's code can be taken for one", () => {
  for (const [outcome, code] of Object.entries(EXIT)) if (outcome !== "interrupted") expect(code).toBeLessThan(128);
});
