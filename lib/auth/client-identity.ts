// Which client a sign-in presents itself as, in the spec's order: a pre-registered client when one
// is configured, else our client ID metadata document, else dynamic registration. The document is
// offered only when we can fetch it ourselves (an authorization server that cannot either shows
// the person "invalid_client" and never comes back), and not to a server where a sign-in with it
// already got no callback; `"oauth": {"registration": ...}` or --registration forces one way.
import { readBodyCapped } from "../io/capped-body.ts";
import { MAX_OAUTH_RESPONSE_BYTES } from "../wire/limits.ts";
import type { AuthEntry } from "./store.ts";

export type Registration = "dynamic" | "metadata-document" | "pre-registered";
export const REGISTRATIONS: readonly Registration[] = ["dynamic", "metadata-document", "pre-registered"];

/** How long we wait for our own metadata document before signing in without it. */
export const DOCUMENT_CHECK_TIMEOUT_MS = 5_000;

const checked = new Map<string, Promise<boolean>>();

/** Whether `url` serves a client ID metadata document that names itself (checked once per process). */
export function documentServed(url: string, fetchFn: typeof fetch, signal?: AbortSignal): Promise<boolean> {
  let answer = checked.get(url);
  if (!answer) {
    answer = fetchDocument(url, fetchFn, signal);
    checked.set(url, answer);
  }
  return answer;
}

async function fetchDocument(url: string, fetchFn: typeof fetch, signal?: AbortSignal): Promise<boolean> {
  const bound = AbortSignal.timeout(DOCUMENT_CHECK_TIMEOUT_MS);
  try {
    const response = await fetchFn(url, {
      headers: { accept: "application/json" },
      signal: signal ? AbortSignal.any([signal, bound]) : bound,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return false;
    }
    const document = JSON.parse(await readBodyCapped(response, MAX_OAUTH_RESPONSE_BYTES, url)) as { client_id?: unknown };
    return document.client_id === url;
  } catch {
    return false;
  }
}

/**
 * The metadata-document URL this sign-in offers, or undefined for none: never beside a
 * pre-registered client, always when forced, else when it is served and the server in the entry
 * has not already failed to come back with it.
 */
export async function documentToOffer(o: {
  registration?: Registration;
  preRegistered: boolean;
  url: string | undefined;
  entry: AuthEntry;
  fetch: typeof fetch;
  signal?: AbortSignal;
}): Promise<string | undefined> {
  if (!o.url || o.registration === "dynamic" || o.registration === "pre-registered") return undefined;
  if (o.registration === "metadata-document") return o.url;
  if (o.preRegistered || o.entry.metadataDocumentFailed === o.url) return undefined;
  return (await documentServed(o.url, o.fetch, o.signal)) ? o.url : undefined;
}

/** The line printed while the browser is out with our metadata document as the client ID. */
export function documentHint(command: string): string {
  return (
    "If the page reports invalid_client, the authorization server could not fetch mcpkit's client metadata document: " +
    `press Ctrl-C and sign in again (${command}); the next sign-in registers the client dynamically.`
  );
}
