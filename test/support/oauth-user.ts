// The person at the other end of a sign-in, for in-process OAuth suites: a scripted Asker, and a
// browser that follows the authorization server's redirect to our loopback callback; the
// context and the store a session would give signing in and refreshing.
import { join } from "node:path";
import type { AuthContext } from "../../lib/auth/context.ts";
import type { OAuthOptions } from "../../lib/auth/oauth.ts";
import { StoredProvider } from "../../lib/auth/provider.ts";
import { AuthStore } from "../../lib/auth/store.ts";
import type { Asker } from "../../lib/terminal/asker.ts";
import { tempDir } from "./helpers.ts";

/** Answers every confirm with `answer`; keeps each question and printed line. */
export function scriptedUser(answer = true) {
  const questions: string[] = [];
  const printed: string[] = [];
  const ui: Asker = {
    confirm: async (question) => (questions.push(question), answer),
    print: (line) => void printed.push(line),
  };
  return { ui, questions, printed };
}

/** Follows each URL it is given (the authorization URL) to wherever it redirects; `idle()` waits for every visit. */
export function followingBrowser() {
  const opened: string[] = [];
  const visits: Promise<void>[] = [];
  const openUrl = (url: string) => {
    opened.push(url);
    const visit = fetch(url).then((page) => void page.body?.cancel());
    visits.push(visit);
    return visit;
  };
  return { openUrl, opened, idle: () => Promise.all(visits) };
}

/** What signing in and refreshing need, as an OAuthSession would give it, on `store` (plain fetch: no origin rule). */
export function authContext(resource: string, store: AuthStore, options: Partial<OAuthOptions> = {}): AuthContext {
  return {
    resource,
    store,
    options: { signIn: "no", ui: scriptedUser().ui, signInCommand: "mcp-inspect auth", ...options },
    fetch,
    userWait: (waiting) => options.onuserwait?.(waiting),
    takeOverflow: () => undefined,
    metadataDocumentUrl: undefined,
    provider: (redirectUri, onredirect, state = "state", clientMetadataUrl) =>
      new StoredProvider({ store, resource, redirectUri, onredirect, state, clientMetadataUrl }),
  };
}

/** A token store of its own, in a temporary directory (removeTempDirs() removes it). */
export function privateStore(): AuthStore {
  return AuthStore.open({ MCPKIT_AUTH_DIR: join(tempDir("mcpkit-auth-"), "auth") });
}
