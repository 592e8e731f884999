// What a 2025 session's SSE streams sent, kept so that a client that lost its connection can
// resume with Last-Event-ID and miss nothing. Bounded per session: the oldest events go first, and
// a client that comes back after they went resumes from what is left. An event id names its stream
// (`<stream>.<n>`), so a resume finds the stream even after all its events were evicted.

/** Events kept per session (DESIGN.md "Serving over HTTP"). */
export const MAX_STORED_EVENTS = 1_000;
/** Bytes of stored events per session. */
export const MAX_STORED_EVENT_BYTES = 8 * 1024 * 1024;

export interface StoredEvent {
  id: string;
  /** The message as it went out: one line of JSON. */
  data: string;
}

interface Stored extends StoredEvent {
  streamId: string;
  sequence: number;
}

export class BoundedEventStore {
  readonly #events: Stored[] = [];
  #bytes = 0;
  #sequence = 0;

  /** An id for an event that is not kept: the empty priming event that gives a stream its first id. */
  nextId(streamId: string): string {
    return `${streamId}.${++this.#sequence}`;
  }

  /** Keeps one message sent on `streamId`; its event id. */
  store(streamId: string, data: string): string {
    const sequence = ++this.#sequence;
    const id = `${streamId}.${sequence}`;
    this.#events.push({ id, data, streamId, sequence });
    this.#bytes += data.length;
    while (this.#events.length > MAX_STORED_EVENTS || (this.#bytes > MAX_STORED_EVENT_BYTES && this.#events.length > 1)) {
      this.#bytes -= this.#events.shift()!.data.length;
    }
    return id;
  }

  /** The stream `lastEventId` was on and what it sent after it still kept; undefined for an id not ours. */
  after(lastEventId: string): { streamId: string; events: StoredEvent[] } | undefined {
    const dot = lastEventId.lastIndexOf(".");
    const sequence = lastEventId.slice(dot + 1);
    if (dot <= 0 || !/^\d+$/.test(sequence)) return undefined;
    const after = Number(sequence);
    const streamId = lastEventId.slice(0, dot);
    const events = this.#events
      .filter((event) => event.streamId === streamId && event.sequence > after)
      .map(({ id, data }) => ({ id, data }));
    return { streamId, events };
  }

  get size(): { events: number; bytes: number } {
    return { events: this.#events.length, bytes: this.#bytes };
  }
}
