// The flags several tools share, declared once (lib/cli/args.ts), and the OAuth flags checked once.
import { describe, expect, test } from "bun:test";
import { AUTH_ARGS, authFlags, LOG_ARGS, PROTOCOL_VERSION_ARGS, REPEATABLE_TARGET_FLAGS, TARGET_ARGS } from "../../../lib/cli/args.ts";
import { checkValue, type FlagDef } from "../../../lib/cli/values.ts";
import { KNOWN_PROTOCOL_VERSIONS } from "../../../lib/wire/protocol.ts";

const SHARED: Record<string, Record<string, FlagDef>> = { AUTH_ARGS, LOG_ARGS, PROTOCOL_VERSION_ARGS, TARGET_ARGS };

describe("the shared declarations", () => {
  test.each(Object.entries(SHARED))("%s: every flag is described, and every value flag says what its value looks like", (_name, defs) => {
    for (const [flag, def] of Object.entries(defs)) {
      expect([flag, def.description?.length ?? 0]).not.toEqual([flag, 0]);
      if (def.type === "string") expect([flag, "valueHint" in def && def.valueHint]).not.toEqual([flag, false]);
    }
  });

  test("a flag that declares a value kind is checked as that kind (a known kind: a good value passes)", () => {
    const good = { port: "8080", "positive-duration": "5000", "log-level": "debug", "protocol-version": KNOWN_PROTOCOL_VERSIONS[0] };
    for (const defs of Object.values(SHARED)) {
      for (const [flag, def] of Object.entries(defs)) {
        if (def.value === undefined) continue;
        expect([flag, checkValue(`--${flag}`, def.value, good[def.value as keyof typeof good]).ok]).toEqual([flag, true]);
      }
    }
  });

  test("no two shared flags, or their aliases, have the same name", () => {
    const names = Object.values(SHARED).flatMap((defs) =>
      Object.entries(defs).flatMap(([flag, def]) => [flag, ...("alias" in def && def.alias ? [def.alias].flat() : [])]),
    );
    expect(names.length).toBe(new Set(names).size);
  });

  test("the repeatable flags are target flags, with the aliases their declarations give", () => {
    for (const [flag, aliases] of Object.entries(REPEATABLE_TARGET_FLAGS)) {
      const def = TARGET_ARGS[flag as keyof typeof TARGET_ARGS];
      expect(def).toBeDefined();
      expect(aliases).toEqual(["alias" in def ? def.alias : []].flat());
    }
  });

  test("--protocol-version names every revision there is", () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) expect(PROTOCOL_VERSION_ARGS["protocol-version"].description).toContain(version);
  });
});

describe("authFlags", () => {
  test("no flags given: nothing set", () => {
    expect(authFlags({}, {})).toEqual({ ok: true, value: {} });
  });

  test("a port, a timeout and a client with its secret read from the variable named", () => {
    expect(
      authFlags(
        { "callback-port": "8765", "callback-timeout": "60000", "client-id": "abc", "client-secret-env": "MY_SECRET" },
        { MY_SECRET: "s3cret" },
      ),
    ).toEqual({ ok: true, value: { callbackPort: 8765, callbackTimeoutMs: 60_000, client: { clientId: "abc", clientSecret: "s3cret" } } });
  });

  test("a client id alone is a public client, without a secret", () => {
    expect(authFlags({ "client-id": "abc" }, {})).toEqual({ ok: true, value: { client: { clientId: "abc" } } });
  });

  test.each([
    ["port 0", { "callback-port": "0" }, '--callback-port takes a port number (1-65535), not "0"'],
    ["a port that is not a number", { "callback-port": "http" }, '--callback-port takes a port number (1-65535), not "http"'],
    [
      "a timeout of 0",
      { "callback-timeout": "0" },
      '--callback-timeout takes milliseconds, a whole number of at least 1 (e.g. 5000), not "0"',
    ],
    ["a secret without a client id", { "client-secret-env": "MY_SECRET" }, "--client-secret-env goes with --client-id"],
    [
      "a secret variable that is not set",
      { "client-id": "abc", "client-secret-env": "UNSET" },
      "--client-secret-env UNSET: that variable is not set",
    ],
    [
      "a secret variable set empty",
      { "client-id": "abc", "client-secret-env": "EMPTY" },
      "--client-secret-env EMPTY: that variable is not set",
    ],
  ])("%s is refused", (_name, args, error) => {
    expect(authFlags(args, { EMPTY: "" })).toEqual({ ok: false, error });
  });

  test("the secret itself never appears in an error, only the variable's name", () => {
    const checked = authFlags({ "callback-port": "x", "client-id": "abc", "client-secret-env": "S" }, { S: "s3cret" });
    expect(checked.ok).toBe(false);
    expect(JSON.stringify(checked)).not.toContain("s3cret");
  });
});
