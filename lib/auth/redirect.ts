// Both ends of the browser's round trip: what we may send the user to (https or loopback only, our
// state, PKCE S256), what may come back pasted (--no-browser), and how long we wait for it.
import { isBrowserSafeUrl } from "../terminal/browser.ts";
import { AuthRequiredError } from "./errors.ts";

/**
 * What keeps us from sending the user to this URL: https or loopback only, our state, and PKCE
 * S256, which the server must advertise (spec: no code_challenge_methods_supported means no PKCE
 * support, and the client MUST refuse to proceed).
 */
export function unsafeAuthorizationUrl(url: URL, state: string, challengeMethods: string[] | undefined): string | undefined {
  const where = `${url.protocol}//${url.host}`;
  if (!isBrowserSafeUrl(url)) return `refusing to open the authorization endpoint ${where} (only https or loopback http URLs are opened)`;
  if (!challengeMethods?.includes("S256") || url.searchParams.get("code_challenge_method") !== "S256") {
    return `the authorization server at ${where} does not advertise PKCE S256 (refusing to sign in without it)`;
  }
  if (url.searchParams.get("state") !== state) return "internal error: the authorization request does not carry our state";
  return undefined;
}

/** The redirect URL pasted back (--no-browser): its state must be ours. */
export function pastedCallback(text: string, state: string): URLSearchParams {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new AuthRequiredError(
      "that is not the URL the browser was sent to (paste the whole address, http://127.0.0.1:…/callback?code=…)",
    );
  }
  if (url.searchParams.get("state") !== state)
    throw new AuthRequiredError("the pasted URL is not from this sign-in (its state does not match)");
  return url.searchParams;
}

/** `promise`, or a rejection after `ms` or when `signal` aborts, whichever comes first. */
export function waitFor<T>(promise: Promise<T>, o: { ms: number; timeout: string; signal?: AbortSignal; aborted: string }): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AuthRequiredError(o.timeout)), o.ms);
    onAbort = () => reject(new AuthRequiredError(o.aborted));
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, stop]).finally(() => {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  });
}
