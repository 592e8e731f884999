// A 2025 session's SSE parts in process: the bounded event store a Last-Event-ID resume reads
// from, and the stream that writes the events.
import { describe, expect, test } from "bun:test";
import { BoundedEventStore, MAX_STORED_EVENT_BYTES, MAX_STORED_EVENTS } from "../../../proxy/serve/event-store.ts";
import { SseStream } from "../../../proxy/serve/sse-stream.ts";

describe("the bounded event store", () => {
  test("a resume gets what its stream sent after the id, not another stream's, and a priming id resumes from the start", () => {
    const store = new BoundedEventStore();
    const primed = store.nextId("post-1");
    const first = store.store("post-1", '{"n":1}');
    store.store("standalone", '{"n":"other"}');
    store.store("post-1", '{"n":2}');
    expect(store.after(primed)?.events.map((event) => event.data)).toEqual(['{"n":1}', '{"n":2}']);
    expect(store.after(first)).toEqual({ streamId: "post-1", events: [{ id: expect.stringMatching(/^post-1\./), data: '{"n":2}' }] });
    expect(store.size.events).toBe(3);
  });

  test.each(["nonsense", ".5", "post-1.", "post-1.x", "post-1.-2"])("an id not of ours (%p) is refused", (id) => {
    expect(new BoundedEventStore().after(id)).toBeUndefined();
  });

  test("past its event and byte limits the oldest go first; a resume after them gets what is left", () => {
    const store = new BoundedEventStore();
    const oldest = store.store("post-1", "0");
    for (let i = 1; i <= MAX_STORED_EVENTS + 10; i++) store.store("post-1", String(i));
    expect(store.size.events).toBe(MAX_STORED_EVENTS);
    const left = store.after(oldest)!.events;
    expect(left).toHaveLength(MAX_STORED_EVENTS);
    expect(left[0]!.data).toBe("11");
    const big = "x".repeat(MAX_STORED_EVENT_BYTES / 4);
    for (let i = 0; i < 5; i++) store.store("post-2", big);
    expect(store.size.bytes).toBeLessThanOrEqual(MAX_STORED_EVENT_BYTES);
    // One event larger than the whole budget is still kept, alone: the newest answer is never lost.
    store.store("post-3", "y".repeat(MAX_STORED_EVENT_BYTES + 1));
    expect(store.size.events).toBe(1);
  });
});

describe("an SSE stream", () => {
  const read = (stream: SseStream) => new Response(stream.body).text();

  test("writes the priming event and messages in the transport's format, an opening comment only when nothing came first", async () => {
    const primed = new SseStream();
    primed.prime("post-1.1");
    primed.open();
    primed.event("post-1.2", '{"jsonrpc":"2.0","id":1,"result":{}}');
    primed.close();
    expect(await read(primed)).toBe('id: post-1.1\ndata: \n\nevent: message\nid: post-1.2\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    const quiet = new SseStream();
    quiet.open();
    quiet.close();
    expect(await read(quiet)).toBe(": open\n\n");
  });

  test("a client that goes away is told once; writing or closing afterwards is a no-op", async () => {
    const stream = new SseStream();
    let told = 0;
    stream.oncancel = () => void told++;
    await stream.body.cancel();
    expect(told).toBe(1);
    expect(stream.closed).toBe(true);
    stream.event("s.1", "{}");
    stream.close();
    stream.close();
    expect(told).toBe(1);
  });
});
