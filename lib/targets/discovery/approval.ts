// Project servers run only once the user has approved them, as Claude Code does for a cloned
// repository's .mcp.json: a file in someone else's repository must not start programs unasked.
// Approvals are remembered per user in ~/.mcpkit/approvals/servers.json (a 0700 directory, a
// 0600 file), keyed by the project, the file, the name and a hash of the entry as written, so an
// entry that changes is asked about again.
import { createHash, randomBytes } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../../io/private-dir.ts";
import { isJsonObject } from "../../wire/jsonrpc.ts";
import type { Result } from "../../wire/result.ts";
import { readConfigFile } from "../config-file.ts";
import { type Env, type Scope, userHome } from "./clients.ts";

export interface Approvable {
  name: string;
  scope: Scope;
  file: string;
  project: string;
  entry: Record<string, unknown>;
}

export interface Approval {
  project: string;
  file: string;
  name: string;
  entry: string;
  approvedAt: string;
}

const APPROVALS_FILE = "servers.json";

export function needsApproval(server: Pick<Approvable, "scope">): boolean {
  return server.scope === "project";
}

/** User and local entries need no approval (the user wrote them); a project entry needs one, here or by its client (discovery decides). */
export function isApproved(server: { scope: Scope; approved: boolean }): boolean {
  return !needsApproval(server) || server.approved;
}

/** Whether this exact entry was approved here (`approvals`: readApprovals, read once for a whole listing). */
export function recordedApproval(approvals: Approval[], server: Approvable): boolean {
  const key = approvalKey(server);
  return approvals.some(
    (approval) =>
      approval.project === key.project && approval.file === key.file && approval.name === key.name && approval.entry === key.entry,
  );
}

export async function approve(server: Approvable, env: Env = process.env, now = new Date()): Promise<Result<true>> {
  const dir = ensurePrivateDir(approvalsDir(env));
  if (!dir.ok) return { ok: false, error: `cannot remember the approval: ${dir.error}` };
  const key = approvalKey(server);
  const kept = (await readApprovals(env)).filter(
    (approval) => !(approval.project === key.project && approval.file === key.file && approval.name === key.name),
  );
  const file = join(dir.value, APPROVALS_FILE);
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(draft, `${JSON.stringify({ approved: [...kept, { ...key, approvedAt: now.toISOString() }] }, null, 2)}\n`, {
      mode: 0o600,
      flag: "wx",
    });
    renameSync(draft, file);
  } catch (error) {
    return { ok: false, error: `cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return { ok: true, value: true };
}

/** A hash of the entry as written, keys sorted, so that reformatting the file does not matter but any change of value does. */
export function entryHash(entry: unknown): string {
  return createHash("sha256").update(canonicalJson(entry)).digest("hex");
}

function approvalKey(server: Approvable): Omit<Approval, "approvedAt"> {
  return { project: server.project, file: server.file, name: server.name, entry: entryHash(server.entry) };
}

function approvalsDir(env: Env): string {
  return join(userHome(env), ".mcpkit", "approvals");
}

/** The approvals kept here, read like any config file (lib/targets/config-file.ts); a damaged file approves nothing. */
export async function readApprovals(env: Env, signal?: AbortSignal): Promise<Approval[]> {
  // Approvals in a directory that others could write to are no approvals at all.
  const dir = ensurePrivateDir(approvalsDir(env));
  if (!dir.ok) return [];
  const read = await readConfigFile(join(dir.value, APPROVALS_FILE), "json", signal);
  const approved = read.ok && isJsonObject(read.value) ? read.value.approved : undefined;
  return Array.isArray(approved) ? (approved as Approval[]) : [];
}

/** JSON with every object's keys sorted: equal for equal values, however the file was formatted. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
