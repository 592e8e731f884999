// The official conformance suite against mcp-inspect and mcp-host (test/seams/conformance-client.ts
// is the client it runs): every auth/* client scenario that revision 2026-07-28 requires, the
// client credentials extension (secret and private key), 0.1.16's 2025-03-26 back-compat
// scenario, and the client scenarios that are not auth/*. Each version is installed once into the peer cache (test/support/peers.ts).
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, TEST_GUARD_MS } from "../support/helpers.ts";
import { installedPeer } from "../support/peers.ts";

const SUITE = "@modelcontextprotocol/conformance";
const CURRENT = "0.2.0-alpha.11";
/** The release that still has the 2025-03-26 back-compat scenario in this form. */
const BACKCOMPAT = "0.1.16";
const REQUIRED_2026_07_28 = [
  "metadata-default",
  "metadata-var1",
  "metadata-var2",
  "metadata-var3",
  "basic-cimd",
  "scope-from-www-authenticate",
  "scope-from-scopes-supported",
  "scope-omitted-when-undefined",
  "scope-step-up",
  "scope-retry-limit",
  "token-endpoint-auth-basic",
  "token-endpoint-auth-post",
  "token-endpoint-auth-none",
  "pre-registration",
  "resource-mismatch",
  "offline-access-scope",
  "offline-access-not-supported",
  "authorization-server-migration",
  "iss-supported",
  "iss-not-advertised",
  "iss-supported-missing",
  "iss-wrong-issuer",
  "iss-unexpected",
  "iss-normalized",
  "metadata-issuer-mismatch",
];
const EXTENSIONS = ["client-credentials-basic", "client-credentials-jwt"];

const dirs: Record<string, string> = {};
beforeAll(async () => {
  for (const version of [CURRENT, BACKCOMPAT]) dirs[version] = await installedPeer(SUITE, version);
}, TEST_GUARD_MS);

/** The client scenarios of --requirements 2026-07-28 that are not auth/*, and 2025-11-25's defaults case. */
const NOT_AUTH: [string, string[]][] = [
  ["tools_call", []],
  ["request-metadata", []],
  ["sep-2322-client-request-state", []],
  ["http-standard-headers", []],
  ["http-custom-headers", []],
  ["http-invalid-tool-headers", []],
  ["json-schema-ref-no-deref", []],
  ["elicitation-sep1034-client-defaults", ["--spec-version", "2025-11-25"]],
];

function scenario(version: string, name: string, tool: "inspect" | "host", extra: string[] = []) {
  const suite = join(dirs[version]!, "node_modules", SUITE, "dist/index.js");
  const client = `${BUN} ${join(ROOT, "test/seams/conformance-client.ts")} ${tool}`;
  const named = NOT_AUTH.some(([other]) => other === name) ? name : `auth/${name}`;
  const run = Bun.spawnSync([BUN, suite, "client", "--command", client, "--scenario", named, ...extra], {
    cwd: dirs[version],
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = run.stdout.toString() + run.stderr.toString();
  // A scenario the client never reached (no request, so no check) also says PASSED, with "Passed: 0/0".
  const checked = Number(output.match(/Passed: \d+\/(\d+)/)?.[1] ?? 0) > 0;
  return { passed: checked && output.includes("OVERALL: PASSED"), summary: output.match(/Passed: .*/)?.[0] ?? output.slice(-1500) };
}

for (const tool of ["inspect", "host"] as const)
  describe(`mcp-${tool}`, () => {
    for (const name of [...REQUIRED_2026_07_28, ...EXTENSIONS])
      test(`${SUITE}@${CURRENT} auth/${name}`, () => expect(scenario(CURRENT, name, tool)).toMatchObject({ passed: true }), TEST_GUARD_MS);
    test(
      `${SUITE}@${BACKCOMPAT} auth/2025-03-26-oauth-metadata-backcompat`,
      () => {
        expect(scenario(BACKCOMPAT, "2025-03-26-oauth-metadata-backcompat", tool)).toMatchObject({ passed: true });
      },
      TEST_GUARD_MS,
    );
  });

/** mcp-host -p has nobody to answer a server's question, and declines it (mcp-inspect answers from a file). */
const NEEDS_ANSWERS = ["elicitation-sep1034-client-defaults"];

for (const tool of ["inspect", "host"] as const)
  describe(`mcp-${tool}, the scenarios that are not auth/*`, () => {
    for (const [name, extra] of NOT_AUTH.filter(([name]) => tool === "inspect" || !NEEDS_ANSWERS.includes(name)))
      test(
        `${SUITE}@${CURRENT} ${name}`,
        () => expect(scenario(CURRENT, name, tool, extra)).toMatchObject({ passed: true }),
        TEST_GUARD_MS,
      );
  });
