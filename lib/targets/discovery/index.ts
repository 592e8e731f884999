// Every MCP server configured for this user and project, in the files of the clients that keep
// them (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, Gemini CLI; where each
// looks is lib/discovery/clients.ts), each with the file it came from and its scope. What a
// `--server NAME` means among them, and whether a project's entry may run, is
// lib/discovery/resolve.ts. Loaded only when a name is to be found, never for `-- cmd`.
export { discoverServers, type DiscoveredServer, type Discovery, type DiscoveryOptions } from "./find.ts";
export { approve, isApproved, needsApproval } from "./approval.ts";
export { displayUrl, findServerTarget, pickServer, serverStates, targetOf, whatItRuns, type ServerState } from "./resolve.ts";
export { neededInputs } from "./variables.ts";
export { terminalAsk, type DiscoveryAsk } from "./ask.ts";
export type { ClientId, Env, Scope } from "./clients.ts";
export type { InputDefinition } from "./read.ts";
