// Our own requests over a channel (lib/client/peer.ts): sent on the channel, and a request given up
// on cancelled the channel's own way, else with notifications/cancelled.
import { describe, expect, test } from "bun:test";
import { cancelled, channelPeer } from "../../../lib/client/peer.ts";
import type { MessageChannel } from "../../../lib/transport/channel.ts";
import type { JsonRpcMessage } from "../../../lib/wire/jsonrpc.ts";

/** A channel that records what is sent; `cancel` as given (absent: the channel has no own way). */
function channel(options: { cancel?: (id: unknown) => boolean } = {}) {
  const sent: JsonRpcMessage[] = [];
  const fake = {
    start: async () => {},
    close: async () => {},
    send: async (message: JsonRpcMessage) => void sent.push(message),
    ...(options.cancel ? { cancel: options.cancel } : {}),
  };
  return { channel: fake as MessageChannel, sent };
}

test.each([7, "req-7"])("cancelled(%p) is MCP's notifications/cancelled for that id, with the reason", (id) => {
  expect(cancelled(id, "timed out")).toEqual({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: "timed out" },
  });
});

describe("channelPeer", () => {
  test("a request is sent on the channel as it is", async () => {
    const { channel: ch, sent } = channel();
    const request = { jsonrpc: "2.0" as const, id: 1, method: "tools/list" };
    await channelPeer(ch).send(request);
    expect(sent).toEqual([request]);
  });

  test("a channel with no own way of cancelling gets notifications/cancelled", async () => {
    const { channel: ch, sent } = channel();
    channelPeer(ch).cancel(3, "the user gave up");
    await Promise.resolve();
    expect(sent).toEqual([cancelled(3, "the user gave up")]);
  });

  test("a channel that cancels its own way (a 2026-07-28 stream closed) gets no notification", async () => {
    const asked: unknown[] = [];
    const { channel: ch, sent } = channel({ cancel: (id) => (asked.push(id), true) });
    channelPeer(ch).cancel(4, "timed out");
    await Promise.resolve();
    expect([asked, sent]).toEqual([[4], []]);
  });

  test("a channel whose own way does not apply to this request (cancel says false) gets the notification", async () => {
    const { channel: ch, sent } = channel({ cancel: () => false });
    channelPeer(ch).cancel(5, "timed out");
    await Promise.resolve();
    expect(sent).toEqual([cancelled(5, "timed out")]);
  });

  test("a cancellation that cannot be sent is dropped: its failure is handled, so no rejection escapes", () => {
    let handled = false;
    // The failed send's promise, watched for a rejection handler being attached, by catch or by then.
    const failedSend = () => {
      const failure = Promise.reject(new Error("the channel is closed"));
      const then = failure.then.bind(failure);
      const catcher = failure.catch.bind(failure);
      // biome-ignore lint/suspicious/noThenProperty: the test watches for a rejection handler being attached to this very promise
      failure.then = ((fulfilled, rejected) => ((handled ||= typeof rejected === "function"), then(fulfilled, rejected))) as typeof then;
      failure.catch = ((rejected) => ((handled ||= typeof rejected === "function"), catcher(rejected))) as typeof catcher;
      return failure;
    };
    const ch = { start: async () => {}, close: async () => {}, send: failedSend } as unknown as MessageChannel;
    channelPeer(ch).cancel(6, "timed out");
    expect(handled).toBe(true);
  });
});
