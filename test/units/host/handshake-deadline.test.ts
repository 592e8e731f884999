// The handshake's clock in mcp-host: it stops while the person signs in, and once the handshake is
// over it lets go of the channel, so that a later sign-in (a step-up in a tool call) arms no timer
// that would keep `mcp-host -p` alive after its answer (the conformance suite's scope-step-up and
// authorization-server-migration runs timed out on that 30 s timer).
import { expect, test } from "bun:test";
import { handshakeDeadline } from "../../../host/servers.ts";

test("once the handshake is over, the channel's user-wait handler is no longer the handshake's clock", () => {
  const channel: { onuserwait?: (waiting: boolean) => void } = {};
  const deadline = handshakeDeadline(channel);
  expect(channel.onuserwait).toBeFunction();
  deadline.stop();
  expect(channel.onuserwait).toBeUndefined();
  expect(deadline.signal.aborted).toBe(false);
});

test("a user-wait handler set before still hears every wait during the handshake, and is given back after", () => {
  const heard: boolean[] = [];
  const before = (waiting: boolean) => void heard.push(waiting);
  const channel: { onuserwait?: (waiting: boolean) => void } = { onuserwait: before };
  const deadline = handshakeDeadline(channel);
  channel.onuserwait?.(true);
  channel.onuserwait?.(false);
  deadline.stop();
  expect(heard).toEqual([true, false]);
  expect(channel.onuserwait).toBe(before);
});
