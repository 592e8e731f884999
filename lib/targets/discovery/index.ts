// Every MCP server configured for this user and project, in the files of the clients that keep
// them (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, Gemini CLI and its
// extensions, opencode, Copilot CLI, Qwen Code, Zed, Cline, Roo Code, Goose, LM Studio, Amazon Q
// Developer CLI; where each looks is lib/targets/discovery/clients.ts), each with the file it came
// from and its scope. What a `--server NAME` means among them, and whether a project's entry may
// run, is lib/targets/discovery/resolve.ts. Loaded only when a name is to be found, never for `-- cmd`.

export { approve, isApproved, needsApproval } from "./approval.ts";
export type { ClientId, Env, Scope } from "./clients.ts";
export { commonEntry } from "./common-entry.ts";
export { type DiscoveredServer, type Discovery, type DiscoveryOptions, discoverServers } from "./find.ts";
export type { InputDefinition } from "./read.ts";
export {
  displayUrl,
  type EntryRef,
  findServerTarget,
  pickServer,
  type ServerState,
  serverStates,
  targetOf,
  unreachableReason,
  whatItRuns,
} from "./resolve.ts";
export { neededInputs } from "./variables.ts";
