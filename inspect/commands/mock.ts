// `mcp-inspect mock FILE`: a session recorded with `mcp-proxy --record` served as a stdio MCP
// server (inspect/mock/). stdout is the protocol's; a bad recording is one error line on stderr.
import { type CommandDef, defineCommand } from "citty";
import { EXIT } from "../../lib/cli/exit-codes.ts";
import { fail } from "../../lib/cli/fail.ts";
import { withExamples } from "../../lib/cli/help.ts";
import { createLogger } from "../../lib/io/log.ts";
import { isLogLevelName } from "../../lib/io/log-levels.ts";
import { readFileCapped } from "../../lib/io/read-capped.ts";
import { MAX_RECORDING_BYTES } from "../../lib/wire/limits.ts";
import { MOCK_ARGS } from "../command-flags.ts";
import { type Args, type Invocation, usageProblem } from "../invocation.ts";

export function mockCommand(invocation: Invocation): CommandDef<any> {
  const command = defineCommand({
    meta: {
      name: "mock",
      description:
        "Serve a session recorded with `mcp-proxy --record` as a stdio MCP server any client can use: the recorded handshake, and " +
        "the recorded answer to each request of the same method and params (ids rewritten, _meta ignored); a request the " +
        "recording lacks gets an error naming the closest recorded one. Over HTTP: mcp-proxy serve -- mcp-inspect mock FILE.",
    },
    args: MOCK_ARGS,
    run: ({ args }) => runMock(args as Args, invocation),
  });
  return withExamples(command, [
    "mcp-proxy --record session.jsonl -- node server.js     # record, then:",
    "mcp-inspect list-tools -- mcp-inspect mock session.jsonl",
    "mcp-proxy serve --port 3000 -- mcp-inspect mock session.jsonl",
  ]);
}

async function runMock(args: Args, invocation: Invocation): Promise<void> {
  const problem =
    usageProblem(args, MOCK_ARGS, invocation) ?? (args._[0] ? undefined : "missing the recording (e.g. mcp-inspect mock session.jsonl)");
  if (problem) return void fail(problem);
  const file = args._[0]!;
  const read = await readFileCapped(file, MAX_RECORDING_BYTES);
  if (!read.ok) return void fail(`cannot read ${file} (${read.error.detail ?? read.error.reason})`);
  const [{ parseRecording }, { serveRecording }] = await Promise.all([import("../mock/recording.ts"), import("../mock/serve.ts")]);
  const recording = parseRecording(read.value, file);
  if (!recording.ok) return void fail(recording.error);
  const given = args["log-level"];
  const level = given !== undefined && isLogLevelName(given) ? given : "warn";
  await serveRecording(recording.value, createLogger({ level, file: args["log-file"], tag: "mcp-inspect mock" }));
  process.exitCode = EXIT.ok;
}
