// The one config reader: absent is no problem, anything but a regular file is refused without
// opening it for a blocking read, a read past its deadline gives up, and nesting is capped.
import { afterAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readConfigFile } from "../../../lib/targets/config-file.ts";
import { parseConfigText } from "../../../lib/targets/config-text.ts";
import { MAX_CONFIG_DEPTH } from "../../../lib/wire/limits.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

test("a file that is not there is absent; a directory, a FIFO and a device are refused by kind", async () => {
  const dir = tempDir();
  const fifo = join(dir, "fifo.json");
  execFileSync("mkfifo", [fifo]);
  mkdirSync(join(dir, "folder.json"));
  expect(await readConfigFile(join(dir, "none.json"), "json")).toEqual({ ok: false, error: { absent: true } });
  expect(await readConfigFile(join(dir, "none", "deeper.json"), "json")).toEqual({ ok: false, error: { absent: true } });
  for (const [file, kind] of [
    [fifo, "a FIFO"],
    [join(dir, "folder.json"), "a directory"],
    ["/dev/zero", "a device"],
  ] as const)
    expect(await readConfigFile(file, "json")).toEqual({
      ok: false,
      error: { absent: false, problem: `${file} is not a regular file (${kind})` },
    });
});

test("a read whose deadline has passed gives up, naming the file and --timeout", async () => {
  const file = join(tempDir(), "config.json");
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  expect(await readConfigFile(file, "json", AbortSignal.abort())).toEqual({
    ok: false,
    error: { absent: false, problem: `reading ${file} did not finish in time (--timeout)` },
  });
  expect(await readConfigFile(file, "json", AbortSignal.timeout(60_000))).toEqual({ ok: true, value: { mcpServers: {} } });
});

test("nesting: exactly the cap is parsed, one more level refused, brackets in strings and comments not counted", () => {
  const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
  expect(parseConfigText(nested(MAX_CONFIG_DEPTH), "json").ok).toBe(true);
  expect(parseConfigText(nested(MAX_CONFIG_DEPTH + 1), "json")).toEqual({
    ok: false,
    error: `nested deeper than ${MAX_CONFIG_DEPTH} levels`,
  });
  const quoted = `{"a": "${"[".repeat(500)}", /* ${"{".repeat(500)} */ "b": 1} // ${"[".repeat(500)}`;
  expect(parseConfigText(quoted, "json")).toEqual({ ok: true, value: { a: "[".repeat(500), b: 1 } });
  // YAML (Goose's config.yaml): flow collections count, and indentation nesting is caught once parsed.
  expect(parseConfigText(`a: ${nested(MAX_CONFIG_DEPTH + 1)}`, "yaml")).toEqual({
    ok: false,
    error: `nested deeper than ${MAX_CONFIG_DEPTH} levels`,
  });
  const indented = Array.from({ length: MAX_CONFIG_DEPTH + 1 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n");
  expect(parseConfigText(`${indented} 1\n`, "yaml")).toEqual({ ok: false, error: `nested deeper than ${MAX_CONFIG_DEPTH} levels` });
  expect(parseConfigText("extensions:\n  x: {type: stdio, cmd: run}\n", "yaml")).toEqual({
    ok: true,
    value: { extensions: { x: { type: "stdio", cmd: "run" } } },
  });
  const toml = `a = '${"[".repeat(500)}'\nb = """${"{".repeat(500)}"""\n# ${"[".repeat(500)}\nc = "\\"["\n`;
  expect(parseConfigText(toml, "toml")).toEqual({ ok: true, value: { a: "[".repeat(500), b: "{".repeat(500), c: '"[' } });
});
