// What the three vendor providers share: which model to use, and how a vendor failure reads.
// Kept free of any SDK import so that loading one provider never loads another's SDK.
import { clip, oneLine } from "../../lib/io/text.ts";

/**
 * One retry for what the SDKs consider transient (429, 5xx, connection reset): an interactive chat
 * should surface an outage in seconds, not after the SDKs' default back-off of several attempts.
 */
export const VENDOR_MAX_RETRIES = 1;

export interface ModelChoice<Listed> {
  /** The --model value, when given. */
  pinned?: string;
  /** e.g. "ANTHROPIC_MODEL": consulted when --model is absent. */
  envVar: string;
  env: Record<string, string | undefined>;
  /** e.g. "anthropic": names the vendor in error messages. */
  vendor: string;
  /** The vendor's models API, every page; asked only when neither --model nor the env var names a model. */
  listModels: () => AsyncIterable<Listed> | Promise<AsyncIterable<Listed>>;
  /** The newest suitable model among those listed. */
  pick: (listed: Listed[]) => string | undefined;
  /** The vendor's failure as one line. */
  describeError: (error: unknown) => Error;
  /** What the picker looks for, for the error when nothing qualifies, e.g. "a Sonnet model". */
  wanted: string;
}

/** --model wins, then <VENDOR>_MODEL, then the newest suitable model the vendor lists. */
export async function resolveModel<Listed>(choice: ModelChoice<Listed>): Promise<string> {
  const explicit = choice.pinned?.trim() || choice.env[choice.envVar]?.trim();
  if (explicit) return explicit;
  const listed: Listed[] = [];
  try {
    for await (const model of await choice.listModels()) listed.push(model);
  } catch (error) {
    throw choice.describeError(error);
  }
  const picked = choice.pick(listed);
  if (picked) return picked;
  throw new Error(`${choice.vendor}: the models API lists no ${choice.wanted} (set ${choice.envVar} or pass --model)`);
}

export interface BaseUrl {
  url: string;
  /** `NAME=value` when the user set it, for error hints; undefined for the vendor's own host. */
  endpoint?: string;
}

/** The vendor's base URL from `envVar`, else its public one; a malformed value is a clear error. */
export function baseUrlFrom(env: Record<string, string | undefined>, envVar: string, fallback: string, vendor: string): BaseUrl {
  const custom = env[envVar]?.trim();
  if (!custom) return { url: fallback };
  if (!URL.canParse(custom)) throw new Error(`${vendor}: ${envVar} is not a URL: ${JSON.stringify(custom)}`);
  return { url: custom, endpoint: `${envVar}=${custom}` };
}

/** The SDKs' connection errors say only "Connection error."; the reason is on `cause`. */
export function messageWithCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message.replace(/\.$/, "")}: ${cause}` : error.message;
}

/** Collapses a vendor message (often multi-line JSON or HTML) to one line of bounded length. */
export const MAX_ERROR_MESSAGE_CHARS = 300;

export interface VendorFailure {
  vendor: string;
  /** The HTTP status, absent when no response came (refused, reset, DNS). */
  status?: number;
  message: string;
  /** The env var that holds the credential, named in the hint for 401/403. */
  keyVar: string;
  /** The endpoint as the user set it (e.g. `OPENAI_BASE_URL=http://…`), named when it cannot be reached. */
  endpoint?: string;
  /** No HTTP response at all: refused, reset, DNS, timeout. */
  unreachable?: boolean;
}

/** `anthropic: HTTP 401: invalid x-api-key (check ANTHROPIC_API_KEY)`: one line, no stack. */
export function vendorError(failure: VendorFailure): Error {
  const status = failure.status === undefined ? "" : ` HTTP ${failure.status}:`;
  const hint =
    failure.status === 401 || failure.status === 403
      ? ` (check ${failure.keyVar})`
      : failure.unreachable && failure.endpoint
        ? ` (check ${failure.endpoint})`
        : "";
  const error = new Error(`${failure.vendor}:${status} ${clip(oneLine(failure.message), MAX_ERROR_MESSAGE_CHARS) || "no message"}${hint}`);
  // The SDK's stack says nothing the message does not; the host prints message only anyway.
  error.stack = error.message;
  return error;
}

/** The error a generate() rejects with when the caller aborted it: recognisable by name, one line. */
export function abortedError(vendor: string): Error {
  const error = new Error(`${vendor}: request aborted`);
  error.name = "AbortError";
  error.stack = error.message;
  return error;
}
