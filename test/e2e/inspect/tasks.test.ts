// Tasks in mcp-inspect, on both wire forms: the 2025-11-25 tasks utility and the
// 2026-07-28 tasks extension. The peers are the reference server's slow_task (it runs only as a
// task) and server-everything's simulate-research-query, over stdio, HTTP and mcp-daemon.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  BUN,
  daemonDir,
  EVERYTHING,
  type HttpFixture,
  inspect,
  LinePeer,
  REFERENCE_CMD,
  startReferenceHttp,
  stopDaemons,
  TEST_GUARD_MS,
  toolCommand,
} from "../../support/helpers.ts";

const INSPECT = toolCommand("mcp-inspect.ts");

const ERAS = [
  ["2026-07-28", []],
  ["2025-11-25", ["--protocol-version", "2025-11-25"]],
] as const;
const TASK_LINE = /task (\S+): working/;

let http: HttpFixture;
beforeAll(async () => {
  http = await startReferenceHttp();
});
afterAll(() => http.stop());

const textOf = (result: { content?: unknown }) => (result.content as { type: string; text: string }[])[0]?.text ?? "";

// The eras' tests and server-everything's go side by side (each task its own, on the one HTTP server):
// the two --timeout tests wait 20 s each, and overlap everything else.
describe.concurrent.each(ERAS)("tasks on %s", (era, pin) => {
  const url = () => ["--url", http.url, ...pin];

  test(
    "a tool whose taskSupport is required just works with plain call-tool, its progress on stderr",
    async () => {
      const { code, json, stderr } = await inspect(["call-tool", "slow_task", "steps=2", "delayMs=50", ...pin, "--", ...REFERENCE_CMD]);
      expect(code).toBe(0);
      expect(json.data.content[0].text).toBe("done 2 steps");
      expect(json.metadata.protocolVersion).toBe(era);
      expect(stderr).toMatch(/task \S+: working \(step \d\/2\)/);
      expect(stderr).toMatch(/task \S+: completed \(done 2 steps\)/);
    },
    TEST_GUARD_MS,
  );

  test(
    "--task waits for the task, and Ctrl-C cancels it with tasks/cancel, then exits 130 with its id in the envelope",
    async () => {
      const run = new LinePeer([
        ...toolCommand("mcp-inspect.ts"),
        "call-tool",
        "slow_task",
        "steps=1000",
        "delayMs=100",
        "--task",
        ...url(),
      ]);
      await run.waitFor(() => TASK_LINE.test(run.stderr), 20_000, "the task's first status line");
      const taskId = run.stderr.match(TASK_LINE)![1];
      run.child.kill("SIGINT");
      expect(await run.child.exited).toBe(130);
      await run.waitFor(() => run.messages.length > 0, 5_000, "the envelope");
      const [envelope] = run.messages;
      expect(envelope.error).toMatchObject({ code: "CANCELLED", details: { exitCode: 130, taskId, taskCancelled: true } });
      const after = await inspect(["task", "get", taskId!, ...url()]);
      expect(after.json.data).toMatchObject({ taskId, status: "cancelled" });
    },
    TEST_GUARD_MS,
  );

  test(
    "at --timeout the task keeps running: exit 4 with its id in the envelope, and task get finds it still working",
    async () => {
      // One step of 60 s: no progress, so --timeout fires while the task runs (20 s: the task is surely
      // created by then, even on a loaded box; 2 s was not, once at load 5, nor 10 s at load 29 with
      // this file's tests side by side). The wait overlaps the other tests, and the other era's.
      const timedOut = await inspect(["call-tool", "slow_task", "steps=1", "delayMs=60000", "--timeout", "20000", ...url()]);
      expect(timedOut.code).toBe(4);
      expect(timedOut.json.error.code).toBe("TIMEOUT");
      const taskId = timedOut.json.error.details.taskId;
      expect(typeof taskId).toBe("string");
      expect(timedOut.json.error.message).toContain(`task ${taskId} keeps running`);
      expect((await inspect(["task", "get", taskId, ...url()])).json.data).toMatchObject({ taskId, status: "working" });
      expect((await inspect(["task", "cancel", taskId, ...url()])).code).toBe(0);
    },
    TEST_GUARD_MS,
  );

  test(
    "--detach returns the task at once; task get, task result and task cancel follow it over HTTP",
    async () => {
      const detached = await inspect(["call-tool", "slow_task", "steps=2", "delayMs=100", "--detach", ...url()]);
      expect(detached.code).toBe(0);
      const taskId = detached.json.data.taskId;
      expect(detached.json.data.status).toBe("working");
      const got = await inspect(["task", "get", taskId, ...url()]);
      expect(got.code).toBe(0);
      expect(got.json.data.taskId).toBe(taskId);
      const result = await inspect(["task", "result", taskId, ...url()]);
      expect(result.code).toBe(0);
      expect(result.json.data.content[0].text).toBe("done 2 steps");

      const long = await inspect(["call-tool", "slow_task", "steps=1000", "delayMs=100", "--detach", ...url()]);
      const longId = long.json.data.taskId;
      expect((await inspect(["task", "cancel", longId, ...url()])).code).toBe(0);
      expect((await inspect(["task", "get", longId, ...url()])).json.data.status).toBe("cancelled");
      const cancelled = await inspect(["task", "result", longId, ...url()]);
      expect(cancelled.code).toBe(6);
      expect(cancelled.json.error.message).toContain(`task ${longId} was cancelled`);
    },
    TEST_GUARD_MS,
  );

  test(
    "mcp mode offers the same: call_tool runs required tools and detaches, get_task, get_task_result and cancel_task follow",
    async () => {
      const client = new Client({ name: "tasks-test", version: "0" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(
        new StdioClientTransport({
          command: INSPECT[0]!,
          args: [...INSPECT.slice(1), "mcp", ...pin, "--", ...REFERENCE_CMD],
          env: getDefaultEnvironment(),
          stderr: "pipe",
        }),
      );
      try {
        const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
        expect(textOf(await call("call_tool", { name: "slow_task", arguments: { steps: 1, delayMs: 10 } }))).toBe("done 1 steps");
        const detached = JSON.parse(
          textOf(await call("call_tool", { name: "slow_task", arguments: { steps: 2, delayMs: 50 }, detach: true })),
        );
        expect(detached.status).toBe("working");
        expect(JSON.parse(textOf(await call("get_task", { taskId: detached.taskId }))).taskId).toBe(detached.taskId);
        expect(textOf(await call("get_task_result", { taskId: detached.taskId }))).toBe("done 2 steps");
        const long = JSON.parse(
          textOf(await call("call_tool", { name: "slow_task", arguments: { steps: 1000, delayMs: 100 }, detach: true })),
        );
        expect((await call("cancel_task", { taskId: long.taskId })).isError).toBeFalsy();
        expect(JSON.parse(textOf(await call("get_task", { taskId: long.taskId }))).status).toBe("cancelled");
      } finally {
        await client.close();
      }
    },
    TEST_GUARD_MS,
  );
});

describe.concurrent("server-everything (v1 SDK, 2025-11-25)", () => {
  test(
    "simulate-research-query, whose taskSupport is required, just works with plain call-tool",
    async () => {
      const { code, json, stderr } = await inspect(["call-tool", "simulate-research-query", "topic=tasks", "--", BUN, EVERYTHING]);
      expect(code).toBe(0);
      expect(json.data.content[0].text).toContain("# Research Report: tasks");
      expect(stderr).toMatch(/task \S+: working \(Gathering sources\.\.\.\)/);
      expect(stderr).toMatch(/task \S+: completed/);
    },
    TEST_GUARD_MS,
  );
});

describe("tasks that outlive mcp-inspect", () => {
  afterEach(stopDaemons);

  test(
    "--detach and task follow a task that mcp-daemon keeps for a stdio server (--stateful)",
    async () => {
      const env = { MCPKIT_DAEMON_DIR: daemonDir() };
      const detached = await inspect(
        ["call-tool", "slow_task", "steps=2", "delayMs=100", "--detach", "--stateful", "--", ...REFERENCE_CMD],
        { env },
      );
      expect(detached.code).toBe(0);
      const taskId = detached.json.data.taskId;
      const got = await inspect(["task", "get", taskId, "--stateful", "--", ...REFERENCE_CMD], { env });
      expect(got.json.data.taskId).toBe(taskId);
      const result = await inspect(["task", "result", taskId, "--stateful", "--", ...REFERENCE_CMD], { env });
      expect(result.code).toBe(0);
      expect(result.json.data.content[0].text).toBe("done 2 steps");
    },
    TEST_GUARD_MS,
  );

  test.each([
    [["call-tool", "slow_task", "--detach"], "--detach needs a server that outlives this command"],
    [["task", "get", "some-id"], "task needs a server that outlives this command"],
  ])(
    "%j against a one-shot stdio server is a usage error that says so",
    async (args, message) => {
      const { code, json } = await inspect([...args, "--", ...REFERENCE_CMD]);
      expect(code).toBe(1);
      expect(json.error.code).toBe("USAGE_ERROR");
      expect(json.error.message).toStartWith(message);
      expect(json.error.message).toContain("--stateful");
    },
    TEST_GUARD_MS,
  );
});
