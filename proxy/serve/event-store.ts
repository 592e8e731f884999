// What a 2025 session's SSE streams sent, kept so that a client that lost its connection can
// resume with Last-Event-ID and miss nothing. Bounded per session: the oldest events go first, and
// a client that comes back after they went resumes from what is left.
import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

/** Events kept per session (DESIGN.md "Serving over HTTP"). */
export const MAX_STORED_EVENTS = 1_000;
/** Bytes of stored events per session. */
export const MAX_STORED_EVENT_BYTES = 8 * 1024 * 1024;

interface Stored {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export class BoundedEventStore implements EventStore {
  readonly #events: Stored[] = [];
  #bytes = 0;
  #sequence = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The id names its stream, so a resume finds the stream even after its events were evicted.
    const id = `${streamId}.${++this.#sequence}`;
    const bytes = JSON.stringify(message).length;
    this.#events.push({ id, streamId, message, bytes });
    this.#bytes += bytes;
    while (this.#events.length > MAX_STORED_EVENTS || (this.#bytes > MAX_STORED_EVENT_BYTES && this.#events.length > 1)) {
      this.#bytes -= this.#events.shift()!.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const dot = eventId.lastIndexOf(".");
    return dot > 0 ? eventId.slice(0, dot) : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }) {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? "";
    const after = Number(lastEventId.slice(streamId.length + 1));
    for (const event of this.#events) {
      // A priming event (`{}`, which only gave the stream its first id) is nothing to send again.
      const priming = !("jsonrpc" in event.message);
      if (event.streamId === streamId && !priming && Number(event.id.slice(streamId.length + 1)) > after)
        await send(event.id, event.message);
    }
    return streamId;
  }

  get size(): { events: number; bytes: number } {
    return { events: this.#events.length, bytes: this.#bytes };
  }
}
