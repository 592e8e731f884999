// Every MCP server configured for this user and project, in the files of the clients that keep
// them (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, Gemini CLI; where each
// looks is lib/discovery/clients.ts), each with the file it came from and its scope. What a
// `--server NAME` means among them, and whether a project's entry may run, is
// lib/discovery/resolve.ts. Loaded only when a name is to be found, never for `-- cmd`.
export { discoverServers, type DiscoveredServer, type Discovery, type DiscoveryOptions } from "./discovery/find.ts";
export { approve, isApproved, needsApproval } from "./discovery/approval.ts";
export { displayUrl, findServerTarget, pickServer, serverStates, targetOf, whatItRuns, type ServerState } from "./discovery/resolve.ts";
export { neededInputs } from "./discovery/variables.ts";
export { terminalAsk, type DiscoveryAsk } from "./discovery/ask.ts";
export type { ClientId, Env, Scope } from "./discovery/clients.ts";
export type { InputDefinition } from "./discovery/read.ts";
