import { describe, expect, test } from "bun:test";
import { DroppedLineError } from "../../../lib/transport/channel.ts";
import { serverEnvironment } from "../../../lib/transport/environment.ts";
import { StdioChannel } from "../../../lib/transport/stdio.ts";
import { BUN, FAULTY, INITIALIZE, waitUntil } from "../../support/helpers.ts";

describe("the environment a server gets", () => {
  test("only allow-listed variables, never API keys or exported bash functions, plus what was configured", () => {
    const env = serverEnvironment(
      { TOKEN: "configured" },
      { PATH: "/bin", HOME: "/h", ANTHROPIC_API_KEY: "secret", OPENAI_API_KEY: "secret", SHELL: "() { :; }; echo pwned" },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", TOKEN: "configured" });
  });
});

describe("StdioChannel", () => {
  test("a command that does not exist fails fast with a clear message, and close returns at once", async () => {
    const channel = new StdioChannel({ command: "no-such-command-mcpkit" });
    await expect(channel.start()).rejects.toThrow("command not found: no-such-command-mcpkit");
    const started = performance.now();
    await channel.close();
    expect(performance.now() - started).toBeLessThan(500);
  });

  test("a missing working directory is named", async () => {
    await expect(new StdioChannel({ command: BUN, cwd: "/nonexistent/dir" }).start()).rejects.toThrow(
      "working directory not found: /nonexistent/dir",
    );
  });

  test("junk lines are reported as skipped, messages arrive with their raw text, close is idempotent", async () => {
    const channel = new StdioChannel({ command: BUN, args: [FAULTY, "junk"] });
    const errors: Error[] = [];
    const raws: string[] = [];
    channel.onerror = (error) => errors.push(error);
    channel.onmessage = (_message, raw) => raws.push(raw as string);
    let closes = 0;
    channel.onclose = () => closes++;
    await channel.start();
    await channel.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE() });
    await waitUntil(() => raws.length > 0);
    expect(JSON.parse(raws[0]!).id).toBe(1);
    expect(errors.some((e) => e instanceof DroppedLineError && e.kind === "not-json-rpc")).toBe(true);
    await Promise.all([channel.close(), channel.close()]);
    await channel.close();
    expect(closes).toBe(1);
    expect(channel.exit).toBeDefined();
  });

  test("a server that ignores stdin EOF and SIGTERM is killed, with its process group", async () => {
    const channel = new StdioChannel({ command: BUN, args: [FAULTY, "stubborn"] });
    await channel.start();
    const pid = channel.pid!;
    await channel.close();
    expect(channel.exit?.signal).toBe("SIGKILL");
    expect(() => process.kill(pid, 0)).toThrow();
  }, 15_000);
});
