// The daemon's records of the servers it started: each with the start time /proc gives its pid (so
// a later daemon never kills a process that merely reused the pid), kept current as servers come
// and go (the start times are kept between rewrites: a restarted server must not keep its old one).
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createConsola } from "consola/core";
import { ChildRecords } from "../../../daemon/children.ts";
import type { DaemonSession } from "../../../daemon/session.ts";
import { processStartTime } from "../../../lib/io/process.ts";
import { removeTempDirs, tempDir } from "../../support/helpers.ts";

afterAll(removeTempDirs);

const sleeper = () => Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
const session = (key: string, pid: number) => ({ key, pid, target: { kind: "stdio", command: "sleep" } }) as unknown as DaemonSession;

test.skipIf(process.platform !== "linux")(
  "each server's record carries its pid's start time, re-read when a session's server changes pid",
  () => {
    const file = join(tempDir("mcpd-children-"), "children.json");
    const records = new ChildRecords(file, createConsola({ reporters: [] }));
    const [a, b, c] = [sleeper(), sleeper(), sleeper()];
    try {
      const written = () =>
        JSON.parse(readFileSync(file, "utf8")) as { pid: number; session: string; command: string; startTime?: string }[];
      records.write([session("one", a.pid), session("two", b.pid)]);
      expect(written()).toEqual([
        { pid: a.pid, session: "one", command: "sleep", startTime: processStartTime(a.pid) },
        { pid: b.pid, session: "two", command: "sleep", startTime: processStartTime(b.pid) },
      ]);
      // Session one's server restarted as another process; session two's went away.
      records.write([session("one", c.pid)]);
      expect(written()).toEqual([{ pid: c.pid, session: "one", command: "sleep", startTime: processStartTime(c.pid) }]);
      expect(processStartTime(c.pid)).toBeDefined();
    } finally {
      for (const child of [a, b, c]) child.kill("SIGKILL");
    }
  },
);
