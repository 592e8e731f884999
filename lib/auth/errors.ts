// How a sign-in fails, in words: AuthRequiredError is exit 3 in every tool, and what the
// authorization server said is cut to one line without control sequences.
import { oneLine } from "../io/text.ts";

/** The server wants a sign-in this process may not do (or the user declined, or it failed): exit 3. */
export class AuthRequiredError extends Error {}

export function signInError(resource: string, error: unknown, command: string): Error {
  const originOf = (url: string) => new URL(url).origin;
  const text = oneLine(error instanceof Error ? error.message : String(error));
  if (/does not support dynamic client registration/i.test(text)) {
    return new AuthRequiredError(
      `the authorization server for ${originOf(resource)} registers no clients by itself (no dynamic registration, no client ID ` +
        `metadata documents): register one with it, then give its ID as "oauth": {"clientId": "..."} in the config entry, or ` +
        `${command} --client-id ID`,
    );
  }
  return new AuthRequiredError(`signing in to ${originOf(resource)} failed: ${text}`);
}
