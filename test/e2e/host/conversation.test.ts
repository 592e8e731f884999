// The end-to-end proof of mcp-host: a scripted conversation (scripted provider, scripted user input
// on stdin, Ctrl-C as SIGINT) against the reference server over stdio and over Streamable HTTP, on
// 2026-07-28 and on the 2025 handshake. Every step asserts what the user would see; the last line
// printed names how many checks passed.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REFERENCE_LINE, ROOT, startReferenceHttp, TEST_GUARD_MS, until } from "../../support/helpers.ts";
import { HostDriver } from "../../support/host-driver.ts";

const K = "mcpkit-reference";
let passed = 0;

afterAll(() => {
  console.log(`mcp-host end-to-end: ${passed} checks passed`);
});

type Leg = { transport: "stdio" | "http"; era: "2026-07-28" | "2025-11-25" };
const LEGS: Leg[] = [
  { transport: "stdio", era: "2026-07-28" },
  { transport: "stdio", era: "2025-11-25" },
  { transport: "http", era: "2026-07-28" },
  { transport: "http", era: "2025-11-25" },
];

describe.each(LEGS)("scripted conversation over $transport on $era", ({ transport, era }) => {
  test(
    "every client feature round-trips",
    async () => {
      const http = transport === "http" ? await startReferenceHttp() : undefined;
      const extra = mkdtempSync(join(tmpdir(), "mcp-host-root-"));
      const server = http ? http.url : REFERENCE_LINE;
      // A URL server goes by its host's name; a stdio one by the name it gives itself.
      const key = http ? "localhost" : K;
      const host = new HostDriver(["--server", server, ...(era === "2026-07-28" ? [] : ["--legacy"])]);
      const check = async (pattern: RegExp | string) => {
        await host.waitFor(pattern);
        passed++;
      };
      try {
        // Negotiation and namespacing.
        await check(`connected to "${K}" as ${key} (${era}, 18 tools, 3 resources, 2 prompts)`);
        host.send("/tools");
        await check(`mcp__${key}__echo`);
        await check(`mcp__${key}__region_query`);

        // The tool loop, a failure fed back verbatim with isError.
        host.send("call add a=2 b=3");
        await check(`← ${key}/add: 5`);
        await check(`mcp__${key}__add returned: 5`);
        host.send("fail");
        await check(`✗ ${key}/fail: fail: requested failure`);
        await check(`mcp__${key}__fail failed: fail: requested failure. I give up on it.`);

        // A resource attached with its provenance.
        host.send(`@${key}:ref://hello what is this?`);
        await check(`attached @${key}:ref://hello`);
        await check(`I read ref://hello from ${key}`);

        // Prompts seed the conversation in their own roles.
        host.send(`/${key}:review code=x=1`);
        await check("[user] Please review this code:");
        await check("[assistant] Looks good to me.");
        host.send(`/${key}:greet name=Ann`);
        await check("[user] Hello, Ann!");
        await check(/message\(s\) so far \([a-z, ]*user, assistant, user\)/);

        // Completions through completion/complete.
        host.send(`/complete /${key}:greet name=a`);
        await check(`/${key}:greet name=alice`);
        host.send(`/complete @${key}:ref://items/item-`);
        await check(`@${key}:ref://items/item-5`);

        // Sampling needs approval, then runs through the same provider; a refusal reaches the server.
        host.send("sample prompt=hello", "y");
        await check(`Allow ${key} to sample scripted/scripted? [y/N] y`);
        await check(`mcp__${key}__sample returned: (scripted) A sampled answer to: "hello"`);
        host.send("sample prompt=again", "n");
        await check("sampling declined");
        await check(`mcp__${key}__sample failed:`);

        // Elicitation: accept, decline and cancel all reach the server.
        host.send("elicit", "a", "Ann");
        await check(`{"action":"accept","content":{"name":"Ann"}}`);
        host.send("elicit", "d");
        await check(`{"action":"decline"}`);
        host.send("elicit", "c");
        await check(`{"action":"cancel"}`);
        // A question a 2025 server asks on its own while the chat waits at its prompt: answered, and
        // the prompt comes back (2026-07-28 has no server->client requests outside a call).
        if (era === "2025-11-25") {
          host.send("elicit_later delayMs=300");
          await check(`elicit_later returned: will ask later`);
          await check("A later question: your name?");
          host.send("a", "Zed");
          await check(`later: accept {"name":"Zed"}`);
          host.send("call add a=4 b=4");
          await check(`← ${key}/add: 8`);
        }

        // URL mode: only after consent, and never a URL that is neither https nor loopback.
        host.send("elicit_url url=https://example.com/consent", "n");
        await check(/^ {2}https:\/\/example\.com\/consent$/m);
        await check("Open it in your browser? [y/N] n");
        await check(`elicit_url returned: {"action":"decline"}`);
        host.send("elicit_url url=http://evil.example/x");
        await check("refused: http://evil.example/x is not an https or loopback URL");
        await check(`elicit_url returned: {"action":"decline"}`);

        // Roots: the default (cwd), then one added at run time.
        host.send("roots");
        await check(pathToFileURL(ROOT).href);
        host.send(`/root add ${extra}`, "roots");
        await check(`added root ${pathToFileURL(realpathSync(extra)).href}`);
        await check(`"uri":"${pathToFileURL(extra).href}"`);

        // Logging and progress render while the work runs.
        host.send("log level=warning message=careful");
        await check(`[${key}] warning reference: careful`);
        host.send("slow steps=3 delayMs=30");
        await check(`… ${key}/slow 1/3 step 1/3`);
        await check(`← ${key}/slow: done 3 steps`);

        // Ctrl-C cancels the running call (the server is told) and the chat goes on.
        host.send("slow steps=200 delayMs=50");
        await check(`… ${key}/slow 2/200`);
        host.interrupt();
        await check(`✗ ${key}/slow: cancelled`);
        if (transport === "stdio") {
          await until(() => /slow: cancelled after \d+ steps/.test(host.stderr), "the server's cancel line");
          passed++;
        }
        host.send("call add a=1 b=1");
        await check(`← ${key}/add: 2`);

        // list_changed keeps the tools the model sees fresh.
        host.send("grow");
        await check(`[${key}] changed: tools +grown_1`);
        host.send("/tools");
        await check(`mcp__${key}__grown_1`);

        // Subscriptions: resources/subscribe on 2025, subscriptions/listen on 2026-07-28.
        host.send(`/watch @${key}:ref://hello`);
        await check(`watching @${key}:ref://hello (${era === "2026-07-28" ? "subscriptions/listen" : "resources/subscribe"})`);
        host.send("touch uri=ref://hello");
        await check(`[${key}] resource updated: @${key}:ref://hello`);

        // The listing commands.
        host.send("/help");
        await check("/watch @server:uri");
        host.send("/servers");
        await check(`"${K}" as ${key} (${era}, 19 tools`);
        host.send("/resources");
        await check(`@${key}:ref://items/{id}  item (template)`);
        host.send("/prompts");
        await check(`/${key}:greet name= [style=]  Greet someone`);
        host.send("/roots");
        await check(pathToFileURL(extra).href);

        host.send("/quit");
        expect(await host.exit()).toBe(0);
        passed++;
      } finally {
        host.child.kill("SIGKILL");
        await http?.stop();
        rmSync(extra, { recursive: true, force: true });
      }
    },
    TEST_GUARD_MS,
  );
});
