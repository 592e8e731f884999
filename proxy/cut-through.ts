// Which long messages the forwarder streams (DESIGN.md "Forwarding at wire speed"): one past
// HOLD_BYTES goes on as its bytes come in unless the proxy may have to change or withhold it. The
// proxy holds a request it must read (READ_IN_FULL), may send again after a restart, must rewrite
// (a reused id) or answers itself (restart_server), everything to an HTTP server, a server's request
// (its id is rewritten), and an answer it patches, rewrites or settles itself. An answer whose id
// comes last streams when no such answer is pending, and its id is recorded when it arrives.
import type { LineStream, MessageHead } from "../lib/wire/cut-through.ts";
import type { JsonRpcRequest } from "../lib/wire/jsonrpc.ts";
import type { PieceWriter } from "../lib/wire/line-writer.ts";
import { SAFE_TO_REPEAT_METHODS } from "../lib/wire/protocol.ts";
import type { ServerChild } from "./child.ts";
import type { ClientInput, ClientOutput } from "./forwarder.ts";
import type { InFlight, InFlightTable } from "./in-flight.ts";
import { PATCHED_METHODS, RESTART_TOOL } from "./restart-tool.ts";

/** What a server sends first on a subscriptions/listen stream; the client must see it once per listen. */
export const LISTEN_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

export interface CutThroughParts {
  child: ServerChild;
  inFlight: InFlightTable;
  toClient: ClientOutput;
  clientInput?: ClientInput;
  /** Client messages the proxy reads whole. */
  readsInFull: ReadonlySet<string>;
  /** Whether messages flow now (the proxy is running, not restarting, broken or closed). */
  running: () => boolean;
  /** HTTP: every request is held (its headers come from its params). */
  holdsRequests: boolean;
  /** A request the client began but never finished: answered and forgotten. */
  unfinished: (entry: InFlight) => void;
}

export class CutThrough {
  readonly #parts: CutThroughParts;

  constructor(parts: CutThroughParts) {
    this.#parts = parts;
  }

  /** A long client message: to the current process as it comes, or undefined to hold it. */
  fromClient(head: MessageHead): LineStream | undefined {
    const { child, inFlight, running, holdsRequests, readsInFull } = this.#parts;
    const { id, method } = head;
    if (!running() || holdsRequests || head.body !== "params" || id === undefined || method === undefined) return undefined;
    if (readsInFull.has(method) || SAFE_TO_REPEAT_METHODS.has(method) || inFlight.inFlightAs(id)) return undefined;
    if (method === "tools/call" && (head.toolName === undefined || head.toolName === RESTART_TOOL)) return undefined;
    const channel = child.channel;
    const out = channel?.openLine?.();
    if (!out) return undefined;
    const entry = inFlight.track({ jsonrpc: "2.0", id, method } as JsonRpcRequest);
    const generation = child.generation;
    // After a restart the rest goes nowhere: the request was answered when its process stopped.
    const current = () => generation === child.generation;
    // The server's pipe is full: the client's input waits, and the rest of this line with it.
    const holdBack = () => {
      if (channel!.hasRoom === false) this.#parts.clientInput?.pause("server");
    };
    return {
      data: (piece) => {
        if (!current()) return;
        out.write(piece);
        holdBack();
      },
      end: (_head, tail) => {
        if (!current()) return;
        out.end(tail);
        holdBack();
      },
      abort: () => {
        if (current()) out.end();
        this.#parts.unfinished(entry);
      },
    };
  }

  /** A long message from the server: to the client as it comes, or undefined to hold it. */
  fromChild(head: MessageHead): LineStream | undefined {
    const { child, inFlight, toClient, running } = this.#parts;
    if (!running() || !toClient.openLine) return undefined;
    if (head.method !== undefined ? head.id !== undefined || head.method === LISTEN_ACKNOWLEDGED : !this.#passesAnswer(head))
      return undefined;
    const out: PieceWriter | undefined = toClient.openLine();
    if (!out) return undefined;
    const holdBack = () => {
      if (!toClient.hasRoom) child.channel?.pause?.();
    };
    return {
      data: (piece) => {
        out.write(piece);
        holdBack();
      },
      end: (last, tail) => {
        out.end(tail);
        holdBack();
        // The answer is out: its request is done (an SDK server writes the id last).
        const entry = head.method === undefined && last.id !== undefined ? inFlight.get(last.id) : undefined;
        if (entry) inFlight.forget(entry);
      },
      // The server died mid-message: the line is ended (the client drops it as a parse error), and
      // its request, still in flight, gets the crash's error.
      abort: () => out.end(),
    };
  }

  /**
   * An answer passes as it comes when the proxy will not change it: by its id, or, with the id still
   * to come, when no answer it changes is pending.
   */
  #passesAnswer(head: MessageHead): boolean {
    const { child, inFlight } = this.#parts;
    if (head.body === "params") return false;
    if (head.id === undefined) return !child.awaits() && !inFlight.changesAnswers(PATCHED_METHODS);
    if (child.awaits(head.id)) return false;
    const entry = inFlight.get(head.id);
    return entry !== undefined && entry.upstreamId === entry.id && !PATCHED_METHODS.has(entry.method);
  }
}
