// The one token store: ~/.mcpkit/auth/ (MCPKIT_AUTH_DIR moves it), a 0700 directory of 0600
// files, one per protected resource (the MCP server's URL), each naming the authorization server
// that issued what it holds: the registered client and its loopback redirect (so the redirect
// URI stays the same across runs), the tokens, and what discovery found. Every read goes to the
// disk (another process may have refreshed the tokens); changes are written whole and renamed
// into place. A lock per resource serializes sign-ins and refreshes across processes.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { withLock } from "../io/file-lock.ts";
import { ensurePrivateDir } from "../io/private-dir.ts";
import { readFileCappedSync } from "../io/read-capped.ts";
import { MAX_OAUTH_RESPONSE_BYTES } from "../wire/limits.ts";

/** Tokens as the authorization server issued them, plus when the access token expires. */
export interface StoredTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  scope?: string;
  expires_in?: number;
  /** Milliseconds since the epoch; computed from expires_in when the tokens were saved. */
  expires_at?: number;
  issuer?: string;
  [extra: string]: unknown;
}

export interface AuthEntry {
  /** The protected resource: the MCP server URL. */
  resource: string;
  /** The authorization server's issuer, once discovery found it. */
  issuer?: string;
  /** A dynamically registered (or metadata-document) client; a pre-registered one is never stored with its secret. */
  client?: { client_id: string; client_secret?: string; issuer?: string; [extra: string]: unknown };
  /** The loopback redirect URI the client was registered with. */
  redirectUri?: string;
  tokens?: StoredTokens;
  discovery?: Record<string, unknown>;
  /** Our metadata document's URL, when a sign-in that offered it got no callback: the next one registers dynamically. */
  metadataDocumentFailed?: string;
  /** Scopes a server asked for (403 insufficient_scope) where no sign-in could happen: the next sign-in asks for them. */
  wantedScope?: string;
  savedAt?: string;
}

/** A lock not refreshed for this long is stale, whoever holds it (its holder refreshes it every AUTH_LOCK_HEARTBEAT_MS). */
export const AUTH_LOCK_MAX_AGE_MS = 2 * 60_000;
export const AUTH_LOCK_HEARTBEAT_MS = 20_000;
const DIR_VARIABLE = "MCPKIT_AUTH_DIR";

export class AuthStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The store of this user: MCPKIT_AUTH_DIR, else ~/.mcpkit/auth (created 0700, refused if others can enter). */
  static open(env: Record<string, string | undefined> = process.env): AuthStore {
    const dir = AuthStore.dirOf(env);
    const checked = ensurePrivateDir(dir);
    if (!checked.ok) throw new Error(`the token store: ${checked.error}`);
    return new AuthStore(dir);
  }

  /** Whether this user has a store at all (nobody signed in anywhere yet: no directory). */
  static exists(env: Record<string, string | undefined> = process.env): boolean {
    return existsSync(AuthStore.dirOf(env));
  }

  static dirOf(env: Record<string, string | undefined>): string {
    return env.MCPKIT_AUTH_DIR || join(env.HOME ?? homedir(), ".mcpkit", "auth");
  }

  /** What is stored for `resource` ({resource} when nothing, or nothing we read as an entry). */
  read(resource: string): AuthEntry {
    const text = readEntryFile(this.#file(resource));
    if (text === undefined) return { resource };
    try {
      const entry = JSON.parse(text) as AuthEntry;
      return entry.resource === resource ? entry : { resource };
    } catch {
      return { resource };
    }
  }

  /** Applies `change` to what is on disk now and writes the result whole (0600, renamed into place). */
  update(resource: string, change: (entry: AuthEntry) => AuthEntry | undefined): AuthEntry {
    const entry = this.read(resource);
    const next = change(entry) ?? entry;
    next.savedAt = new Date().toISOString();
    const file = this.#file(resource);
    const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(draft, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    renameSync(draft, file);
    return next;
  }

  forget(resource: string): boolean {
    try {
      unlinkSync(this.#file(resource));
      return true;
    } catch {
      return false;
    }
  }

  list(): AuthEntry[] {
    const entries: AuthEntry[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".json")) continue;
      try {
        const text = readEntryFile(join(this.dir, name));
        if (text !== undefined) entries.push(JSON.parse(text) as AuthEntry);
      } catch {
        // A half-written or foreign file: not ours to show.
      }
    }
    return entries.sort((a, b) => a.resource.localeCompare(b.resource));
  }

  /**
   * Runs `work` holding the resource's lock (a sign-in or a refresh at a time, across processes).
   * The holder keeps the lock fresh while it works, so a long sign-in never looks stale.
   */
  withLock<T>(
    resource: string,
    waitMs: number,
    signal: AbortSignal | undefined,
    work: () => Promise<T>,
    onwait?: (waiting: boolean) => void,
  ): Promise<T> {
    return withLock(
      `${this.#file(resource)}.lock`,
      {
        maxAgeMs: AUTH_LOCK_MAX_AGE_MS,
        dirVariable: DIR_VARIABLE,
        waitMs,
        pollMs: 100,
        heartbeatMs: AUTH_LOCK_HEARTBEAT_MS,
        signal,
        onwait,
      },
      work,
    );
  }

  #file(resource: string): string {
    return join(this.dir, `${createHash("sha256").update(resource).digest("hex").slice(0, 32)}.json`);
  }
}

/**
 * A token-store file's text, or undefined when there is none to take: read capped at
 * MAX_OAUTH_RESPONSE_BYTES (1 MB), never through a symbolic link, never from anything but a
 * regular file (a FIFO planted there would hang every tool). A refused file reads as nothing
 * stored, and the next update replaces it (renamed over: what a link pointed at is left alone).
 */
function readEntryFile(file: string): string | undefined {
  const read = readFileCappedSync(file, MAX_OAUTH_RESPONSE_BYTES, { regularOnly: true, noFollow: true });
  return read.ok ? read.value : undefined;
}
