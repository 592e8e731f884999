// The release for every target: run by `npm run test:release` (and the release workflow), not by
// `npm test`, since cross-compiling fetches six foreign runtimes (about 620 MB) into bun's cache.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { BUN, ROOT } from "../support/helpers.ts";

const LONG = 900_000;
const work = mkdtempSync(join(tmpdir(), "mcpkit-release-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function run(command: string[]) {
  const child = Bun.spawn(command, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** The first bytes of the one file in an archive. */
function firstFileBytes(archive: Uint8Array, zip: boolean): Uint8Array {
  if (!zip) return gunzipSync(archive).subarray(512, 512 + 4096);
  const view = new DataView(archive.buffer, archive.byteOffset);
  const nameLength = view.getUint16(26, true);
  const size = view.getUint32(18, true);
  return inflateRawSync(archive.subarray(30 + nameLength, 30 + nameLength + size)).subarray(0, 4096);
}

test(
  "every other target cross-compiles to the right kind of executable",
  async () => {
    const all = join(work, "all");
    const built = await run([BUN, "build.ts", "--outdir", all]);
    expect(built.code).toBe(0);
    const names = readdirSync(all)
      .filter((name) => name !== "SHA256SUMS")
      .sort();
    expect(names).toEqual([
      "mcpkit-darwin-arm64.tar.gz",
      "mcpkit-darwin-x64.tar.gz",
      "mcpkit-linux-arm64.tar.gz",
      "mcpkit-linux-x64-baseline.tar.gz",
      "mcpkit-linux-x64-musl.tar.gz",
      "mcpkit-linux-x64.tar.gz",
      "mcpkit-windows-x64.zip",
    ]);
    const sums = readFileSync(join(all, "SHA256SUMS"), "utf8");
    for (const name of names) expect(sums).toMatch(new RegExp(`^[0-9a-f]{64}  ${name.replace(/\./g, "\\.")}$`, "m"));
    const kind = (name: string) => {
      const bytes = firstFileBytes(readFileSync(join(all, name)), name.endsWith(".zip"));
      const view = new DataView(bytes.buffer, bytes.byteOffset);
      if (bytes[0] === 0x4d && bytes[1] === 0x5a) return "pe";
      if (view.getUint32(0, false) === 0x7f454c46) {
        const machine = view.getUint16(18, true) === 0xb7 ? "arm64" : view.getUint16(18, true) === 0x3e ? "x64" : "?";
        const musl = new TextDecoder("latin1").decode(bytes).includes("ld-musl") ? "-musl" : "";
        return `elf-${machine}${musl}`;
      }
      if (view.getUint32(0, true) === 0xfeedfacf)
        return `macho-${view.getUint32(4, true) === 0x0100000c ? "arm64" : view.getUint32(4, true) === 0x01000007 ? "x64" : "?"}`;
      return "unknown";
    };
    expect(Object.fromEntries(names.map((name) => [name, kind(name)]))).toEqual({
      "mcpkit-darwin-arm64.tar.gz": "macho-arm64",
      "mcpkit-darwin-x64.tar.gz": "macho-x64",
      "mcpkit-linux-arm64.tar.gz": "elf-arm64",
      "mcpkit-linux-x64-baseline.tar.gz": "elf-x64",
      "mcpkit-linux-x64-musl.tar.gz": "elf-x64-musl",
      "mcpkit-linux-x64.tar.gz": "elf-x64",
      "mcpkit-windows-x64.zip": "pe",
    });
  },
  LONG,
);
