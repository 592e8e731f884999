// `mcp-inspect mock FILE`: a recorded session served as a stdio MCP server. The handshake is the
// recorded one whatever the client sends; each request gets the recorded answer to the same
// method and params (the first not yet used, then the last), under the client's id, after the
// server's own recorded requests (sent in order, their answers taken as they come) and
// notifications. A request the recording lacks gets an error naming the closest recorded one.
import type { ConsolaInstance } from "consola";
import { readChunks } from "../../lib/io/reading.ts";
import { quietStdout } from "../../lib/io/runtime.ts";
import { oversizeRefusal } from "../../lib/wire/json-scan.ts";
import { ErrorCode, isJsonObject, type JsonObject, type JsonRpcId } from "../../lib/wire/jsonrpc.ts";
import { LineWriter } from "../../lib/wire/line-writer.ts";
import { ByteLineSplitter, MAX_LINE_BYTES } from "../../lib/wire/lines.ts";
import { closest, comparable, type Exchange, type Recording } from "./recording.ts";

/** How long the mock waits for the client to answer a recorded server request before answering anyway. */
export const CLIENT_ANSWER_WAIT_MS = 10_000;
/** Ids of the mock's own requests to the client start with this, so they never meet the client's. */
const OWN_ID_PREFIX = "mock-";
/** Methods answered from the handshake, whatever the client asks. */
const HANDSHAKE = new Set(["initialize", "server/discover"]);

export async function serveRecording(recording: Recording, log: ConsolaInstance): Promise<void> {
  const out = new LineWriter(quietStdout());
  const used = new Set<Exchange>();
  const awaiting = new Map<string, () => void>();
  let ownId = 0;
  const send = (message: JsonObject) => void out.write(JSON.stringify({ jsonrpc: "2.0", ...message }));

  const answerFor = (method: string, params: JsonObject): Exchange | undefined => {
    const key = comparable(params);
    const matching = recording.exchanges.filter((e) => e.method === method && (HANDSHAKE.has(method) || comparable(e.params) === key));
    const fresh = matching.find((e) => !used.has(e));
    return fresh ?? matching.at(-1);
  };

  /** The server's recorded requests and notifications before an answer; a progress token becomes the client's. */
  const replayBefore = async (exchange: Exchange, token: unknown) => {
    for (const said of exchange.before) {
      if (said.id === undefined) {
        const params = isJsonObject(said.params) ? said.params : {};
        const retoken = said.method === "notifications/progress" && token !== undefined ? { ...params, progressToken: token } : params;
        send({ method: said.method, params: retoken });
        continue;
      }
      const id = `${OWN_ID_PREFIX}${++ownId}`;
      const answered = new Promise<void>((resolve) => {
        awaiting.set(id, resolve);
        setTimeout(resolve, CLIENT_ANSWER_WAIT_MS).unref?.();
      });
      send({ id, method: said.method, ...(said.params ? { params: said.params } : {}) });
      await answered;
      awaiting.delete(id);
    }
  };

  const onRequest = async (id: JsonRpcId, method: string, params: JsonObject) => {
    const exchange = answerFor(method, params);
    if (!exchange) {
      if (method === "ping") return send({ id, result: {} });
      const known = recording.exchanges.some((e) => e.method === method);
      const code = known ? ErrorCode.InvalidParams : ErrorCode.MethodNotFound;
      const lacking = `the recording has no ${method} ${known ? "with these params" : "request"}`;
      const message = `${lacking}; the closest recorded: ${closest(recording, method, params)}`;
      log.warn(message);
      return send({ id, error: { code, message } });
    }
    used.add(exchange);
    await replayBefore(exchange, isJsonObject(params._meta) ? params._meta.progressToken : undefined);
    send({ id, ...exchange.answer });
  };

  const onLine = (line: Uint8Array) => {
    let message: unknown;
    try {
      message = JSON.parse(new TextDecoder().decode(line));
    } catch {
      return send({ id: null, error: { code: ErrorCode.ParseError, message: "not JSON" } });
    }
    if (!isJsonObject(message)) return;
    const { id, method } = message;
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number"))
      void onRequest(id, method, isJsonObject(message.params) ? message.params : {});
    else if (typeof method !== "string" && typeof id === "string") awaiting.get(id)?.();
  };

  const splitter = new ByteLineSplitter(onLine, {
    onerror: (error) => {
      log.warn(`dropped a ${error.bytes}-byte line (${error.kind})`);
      // A request too large to read still gets its one answer, when its id can be read.
      const refusal = error.kind === "oversize" ? oversizeRefusal(error, MAX_LINE_BYTES) : undefined;
      if (refusal) void out.write(JSON.stringify(refusal));
    },
  });
  const ended = Promise.withResolvers<void>();
  readChunks(process.stdin, {
    onchunk: (chunk) => splitter.push(chunk),
    onend: () => {
      splitter.end();
      ended.resolve();
    },
  });
  await ended.promise;
  await out.flushed();
}
