// Set in the environment of the process that serves the reference server built into this program
// (mcp-host's server when none is given, run as this very executable again). mcpkit.ts reads it
// before anything else loads, so it lives alone here: importing host/options.ts for it cost every
// start of the release binary ~1 ms (five more chunks to load).
export const SERVE_REFERENCE_ENV = "MCPKIT_SERVE_REFERENCE";
