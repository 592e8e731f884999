import { describe, expect, test } from "bun:test";
import { type SseEvent, SseParser } from "../../../lib/wire/sse.ts";

const encoder = new TextEncoder();

function parse(chunks: (string | Uint8Array)[], maxEventBytes?: number) {
  const events: SseEvent[] = [];
  const errors: unknown[] = [];
  const parser = new SseParser((event) => events.push(event), { maxEventBytes, onerror: (e) => errors.push(e) });
  for (const chunk of chunks) parser.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  parser.end();
  return { events, errors };
}

function everySplit(text: string): Uint8Array[][] {
  const bytes = encoder.encode(text);
  const out: Uint8Array[][] = [];
  for (let cut = 0; cut <= bytes.length; cut++) out.push([bytes.slice(0, cut), bytes.slice(cut)]);
  return out;
}

describe("SseParser", () => {
  test("event, id, retry and multi-line data are all read", () => {
    const { events } = parse(["event: update\nid: 7\nretry: 1500\ndata: one\ndata: two\n\n"]);
    expect(events).toEqual([{ event: "update", data: "one\ntwo", id: "7", retry: 1500 }]);
  });

  test("CR, LF and CRLF line endings are all accepted", () => {
    for (const eol of ["\n", "\r", "\r\n"]) {
      const { events } = parse([`data: a${eol}${eol}data: b${eol}${eol}`]);
      expect(events.map((e) => e.data)).toEqual(["a", "b"]);
    }
  });

  test("every split of a CRLF stream, a multi-byte character and a BOM gives the same events", () => {
    const text = '\uFEFFdata: héllo 🎉\r\n\r\nevent: x\r\ndata: {"a":1}\r\n\r\n';
    for (const chunks of everySplit(text)) {
      const { events } = parse(chunks);
      expect(events.map((e) => [e.event, e.data])).toEqual([
        ["message", "héllo 🎉"],
        ["x", '{"a":1}'],
      ]);
    }
  });

  test("comments are ignored and a field without a colon counts as empty", () => {
    const { events } = parse([": keep-alive\n\ndata\n\ndata:x\n\n"]);
    expect(events.map((e) => e.data)).toEqual(["", "x"]);
  });

  test("an event cut off by the end of the stream is discarded", () => {
    const { events } = parse(["data: complete\n\ndata: cut mid-ev"]);
    expect(events.map((e) => e.data)).toEqual(["complete"]);
  });

  test("the last event id carries over to later events; an id with NUL is ignored", () => {
    const { events } = parse(["id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\n"]);
    expect(events.map((e) => e.id)).toEqual(["1", "1", "1"]);
  });

  test("an oversized event is dropped with an error and the next one arrives", () => {
    const { events, errors } = parse([`data: ${"z".repeat(200)}\n\ndata: small\n\n`], 100);
    expect(events.map((e) => e.data)).toEqual(["small"]);
    expect(errors.length).toBe(1);
  });

  test("a 20 MB data line in 64 KB chunks arrives whole", () => {
    const big = "q".repeat(20 * 1024 * 1024);
    const bytes = encoder.encode(`data: ${big}\n\n`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
    const { events } = parse(chunks);
    expect(events.length).toBe(1);
    expect(events[0]!.data.length).toBe(big.length);
  });

  test("retry that is not all digits is ignored", () => {
    const { events } = parse(["retry: 12a\ndata: x\n\n"]);
    expect(events[0]!.retry).toBeUndefined();
  });
});

describe("events written by a server", () => {
  test("data with newlines written as several data fields arrives rejoined", () => {
    const text = formatSseEvent({ event: "message", id: "42", data: "line1\nline2\r\nline3" });
    const { events } = parse([text]);
    expect(events).toEqual([{ event: "message", id: "42", data: "line1\nline2\nline3" }]);
  });
});

/** Writes one event as a server would: data with newlines becomes several data fields. */
function formatSseEvent(event: { event?: string; data: string; id?: string; retry?: number }): string {
  let out = "";
  if (event.event && event.event !== "message") out += `event: ${stripNewlines(event.event)}\n`;
  if (event.id !== undefined) out += `id: ${stripNewlines(event.id)}\n`;
  if (event.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(event.retry))}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

function stripNewlines(value: string): string {
  return value.replace(/[\r\n]/g, "");
}
