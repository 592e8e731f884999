// The floor for any stdio proxy: a process that only copies bytes between its stdio and a child's,
// parsing nothing. bench/proxy.ts measures it beside mcp-proxy, so the cost of the extra process
// hop itself is seen apart from what the proxy does.
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: byte-forwarder <command> [args]\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on("exit", (code) => process.exit(code ?? 0));
process.stdin.on("end", () => child.stdin.end());
