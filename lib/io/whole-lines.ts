// Our stdin as one chunk per whole line, for the SDK's stdio server transport (mcp-inspect's mcp mode,
// the reference server). The SDK's ReadBuffer joins each chunk to all it holds and searches it again
// from the start: a long line arriving in small pieces costs time quadratic in its length (a 30 MB
// line kept `mcp-inspect mcp` at 100% of a core for minutes), and past its cap it stops reading
// altogether. The splitter joins a line once, and a line over the cap never reaches the SDK.
import { PassThrough, type Readable } from "node:stream";
import { ByteLineSplitter } from "../wire/lines.ts";
import { readChunks } from "./reading.ts";

const NEWLINE = new Uint8Array([0x0a]);

export interface OversizeLine {
  bytes: number;
  /** The line's first and last bytes, decoded leniently: enough to read its JSON-RPC id (idFromEdges). */
  head: string;
  tail: string;
}

export interface WholeLinesOptions {
  maxLineBytes: number;
  /** A line over the cap was dropped and the stream goes on; without it, the stream ends with an error. */
  onoversize?: (line: OversizeLine) => void;
}

/** Whole lines of `input`, each with its newline; pausing the result pauses `input`. */
export function wholeLines(input: Readable, options: WholeLinesOptions): Readable {
  const { maxLineBytes, onoversize } = options;
  const lines = new PassThrough();
  const splitter = new ByteLineSplitter((line) => lines.write(Buffer.concat([line, NEWLINE])), {
    maxLineBytes,
    validateUtf8: false,
    chunksAreOwned: true,
    onerror: (error) => {
      if (error.kind !== "oversize") return;
      if (onoversize) onoversize({ bytes: error.bytes, head: error.head, tail: error.tail });
      else lines.destroy(new Error(`a message of ${error.bytes} bytes is over the ${maxLineBytes} cap`));
    },
  });
  // Read so that an input that is always readable (/dev/zero) still lets a signal through.
  const flow = readChunks(input, {
    onchunk: (chunk) => splitter.push(chunk),
    onend: (error) => {
      if (error) return void lines.destroy(error);
      splitter.end();
      lines.end();
    },
  });
  // The transport pauses its stdin when it closes, so that a server with nothing else to do exits.
  lines.on("pause", () => flow.pause("consumer"));
  lines.on("close", () => flow.pause("closed"));
  lines.on("resume", () => flow.resume("consumer"));
  return lines;
}
