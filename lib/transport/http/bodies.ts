// The messages in what a Streamable HTTP server sends back: a JSON body (one message, or a batch
// as 2025-03-26 allowed), an SSE stream of events (each a message, each capped), or the JSON-RPC
// error an error page may carry. Nothing here keeps state: the channel hands each message on.
import type { JsonRpcFailure, JsonRpcId, JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { isResponse, parseMessage, validateMessage } from "../../wire/jsonrpc.ts";
import { MAX_MESSAGE_BYTES } from "../../wire/limits.ts";
import { pumpSse, SseParser } from "../../wire/sse.ts";
import type { StreamRead } from "./recovery.ts";

/** Where the messages of a body go. */
export interface BodyReader {
  deliver(message: JsonRpcMessage, raw?: string): void;
  onerror(error: Error): void;
}

/** Delivers a JSON body's messages; false when nothing in it was usable. */
export function deliverJson(body: string, reader: BodyReader): boolean {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return false;
  }
  let delivered = false;
  const single = !Array.isArray(value);
  for (const item of single ? [value] : (value as unknown[])) {
    const checked = validateMessage(item);
    if (checked.ok) {
      reader.deliver(checked.value, single ? body : undefined);
      delivered = true;
    } else {
      reader.onerror(new Error(`skipped a message from the server that is not JSON-RPC (${checked.error})`));
    }
  }
  return delivered;
}

export interface SseReading extends BodyReader {
  /** The request whose stream this is (none for the standalone GET stream). */
  requestId?: JsonRpcId;
  /** An event too large to keep, on a request's own stream, was most likely its answer: the request is answered with why. */
  oversize(id: JsonRpcId): void;
  /** Awaited before each read (backpressure). */
  whenReading(): Promise<void> | undefined;
  /** Nobody wants this stream any more: a failure of it is not worth reporting. */
  abandoned(): boolean;
}

/** Reads one SSE stream to its end, or until it carried the answer to its request. */
export async function readSseStream(response: Response, reading: SseReading): Promise<StreamRead> {
  const { requestId } = reading;
  let answered = false;
  let delivered = 0;
  const parser = new SseParser(
    (event) => {
      if (event.event !== "message") return;
      const parsed = parseMessage(event.data);
      if (!parsed.ok) {
        reading.onerror(new Error(`skipped an SSE event that is not JSON-RPC (${parsed.error})`));
        return;
      }
      if (isResponse(parsed.value) && parsed.value.id === requestId) answered = true;
      delivered++;
      reading.deliver(parsed.value, event.data);
    },
    {
      onerror: (error) => {
        reading.onerror(new Error(`dropped a ${error.bytes}-byte SSE event (over the ${MAX_MESSAGE_BYTES}-byte limit)`));
        if (requestId !== undefined && !answered) {
          answered = true;
          reading.oversize(requestId);
        }
      },
    },
  );
  let failure: string | undefined;
  try {
    await pumpSse(response, parser, () => answered, reading.whenReading);
  } catch (error) {
    failure = (error as Error).message;
    if (!reading.abandoned()) reading.onerror(new Error(`the server's SSE stream failed: ${failure}`));
  }
  return { answered, delivered, lastEventId: parser.lastEventId, retry: parser.retry, ...(failure !== undefined ? { failure } : {}) };
}

/** The JSON-RPC error an error page carries, if it is one. */
export function jsonRpcErrorIn(body: string): JsonRpcFailure | undefined {
  const parsed = parseMessage(body);
  if (!parsed.ok || !("error" in parsed.value)) return undefined;
  return parsed.value as JsonRpcFailure;
}
