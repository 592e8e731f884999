import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../../lib/io/log.ts";
import { BUN, ROOT } from "../../support/helpers.ts";

test("every level goes to stderr in order, stdout stays empty, the level filters, and the file gets every line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-log-"));
  const file = join(dir, "out.log");
  const script = `
    import { createLogger } from ${JSON.stringify(join(ROOT, "lib/io/log.ts"))};
    const log = createLogger({ level: "info", file: ${JSON.stringify(file)}, tag: "t" });
    log.error("first"); log.warn("second"); log.info("third"); log.debug("hidden");
  `;
  const child = Bun.spawn([BUN, "-e", script], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(stdout).toBe("");
  const order = ["first", "second", "third"].map((word) => stderr.indexOf(word));
  expect(order.every((index) => index >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  expect(stderr).not.toContain("hidden");
  expect(readFileSync(file, "utf8").trim().split("\n").length).toBe(3);
  rmSync(dir, { recursive: true, force: true });
});

test("a logger writes to its stream, filters by level, appends each line to the file, and outlives a file it cannot write", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-log-"));
  const file = join(dir, "out.log");
  const lines: string[] = [];
  const stream = { write: (text: string) => lines.push(text) };
  const log = createLogger({ level: "info", file: [file, join(dir, "missing", "x.log")], tag: "t", stream });
  log.info("shown");
  log.debug("hidden");
  log.warn({ a: 1 });
  expect(lines).toEqual(["[t] shown\n", '[t] warn: {"a":1}\n']);
  const written = readFileSync(file, "utf8").trim().split("\n");
  expect(written).toHaveLength(2);
  expect(written[0]).toMatch(/^\d{4}-\d\d-\d\dT.* info \[t\] shown$/);
  rmSync(dir, { recursive: true, force: true });
});
