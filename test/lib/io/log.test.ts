import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DroppingLineWriter } from "../../../lib/io/log.ts";
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

test("a stream nobody reads: lines past the bound are dropped and counted, and one line says so once it drains", () => {
  const writes: string[] = [];
  let drain: (() => void) | undefined;
  const sink = {
    write: (text: string) => (writes.push(text), false),
    once: (_event: string, listener: () => void) => void (drain = listener),
    off: () => {},
  };
  const lines = new DroppingLineWriter(sink, 100);
  for (let i = 0; i < 50; i++) lines.write(`line ${"x".repeat(20)} ${i}\n`);
  expect(writes.length).toBeLessThan(10);
  expect(lines.dropped).toBe(50 - writes.length);
  const dropped = lines.dropped;
  drain!();
  expect(writes.at(-1)).toBe(`[mcpkit] ${dropped} line(s) dropped while nothing read this stream\n`);
});
