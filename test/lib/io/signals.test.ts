// The signals that end a tool and the exit code each gives, 128+N (lib/io/signals.ts); the handler
// each tool installs, and its unsubscribe.
import { afterEach, describe, expect, test } from "bun:test";
import { EXIT_SIGNALS, type ExitSignal, onExitSignals, signalExitCode } from "../../../lib/io/signals.ts";
import { BUN, ROOT, readUntil } from "../../support/helpers.ts";

const SIGNALS = Object.keys(EXIT_SIGNALS) as ExitSignal[];

test.each([
  ["SIGHUP", 129],
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)("%s ends a tool with %d, as a shell reports it", (signal, code) => {
  expect(signalExitCode(signal)).toBe(code);
});

test("the signals that end a tool are exactly SIGHUP, SIGINT and SIGTERM, with their POSIX numbers", () => {
  expect(EXIT_SIGNALS).toEqual({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 });
});

describe("onExitSignals, in process", () => {
  const offs: (() => void)[] = [];
  afterEach(() => {
    for (const off of offs.splice(0)) off();
  });

  test("each signal calls the handler with its name and its code", () => {
    const seen: [ExitSignal, number][] = [];
    offs.push(onExitSignals((signal, code) => void seen.push([signal, code])));
    for (const signal of SIGNALS) process.emit(signal);
    expect(seen).toEqual([
      ["SIGHUP", 129],
      ["SIGINT", 130],
      ["SIGTERM", 143],
    ]);
  });

  test("unsubscribing removes exactly the listeners it added: the handler is called no more, others stay", () => {
    const before = SIGNALS.map((signal) => process.listenerCount(signal));
    let first = 0;
    let second = 0;
    const off = onExitSignals(() => void first++);
    offs.push(onExitSignals(() => void second++));
    expect(SIGNALS.map((signal) => process.listenerCount(signal))).toEqual(before.map((count) => count + 2));
    off();
    off(); // a second unsubscribe removes nothing more
    expect(SIGNALS.map((signal) => process.listenerCount(signal))).toEqual(before.map((count) => count + 1));
    process.emit("SIGINT");
    expect([first, second]).toEqual([0, 1]);
  });
});

test("real signals reach the handler in a child; once unsubscribed, SIGTERM ends it as the default does", async () => {
  const script = `
    import { onExitSignals } from ${JSON.stringify(`${ROOT}/lib/io/signals.ts`)};
    const off = onExitSignals((signal, code) => {
      console.log(signal, code);
      if (signal === "SIGTERM") { off(); console.log("off"); }
    });
    setInterval(() => {}, 1 << 30);
    console.log("ready");
  `;
  const child = Bun.spawn([BUN, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  try {
    let seen = await readUntil(reader, (text) => text.includes("ready\n"));
    for (const [signal, line] of [
      ["SIGINT", "SIGINT 130\n"],
      ["SIGHUP", "SIGHUP 129\n"],
      ["SIGTERM", "SIGTERM 143\noff\n"],
    ] as const) {
      child.kill(signal);
      seen += await readUntil(reader, (text) => text.endsWith(line));
      expect(seen.endsWith(line)).toBe(true);
    }
    child.kill("SIGTERM");
    expect(await child.exited).toBe(143);
    expect(child.signalCode).toBe("SIGTERM");
  } finally {
    child.kill("SIGKILL");
  }
});
