// Our client ID metadata document served over https on loopback, as GitHub Pages serves the
// published one: the sign-in checks it can fetch the document before offering it. The processes
// under test trust the test certificate through NODE_EXTRA_CA_CERTS (see `env`).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

const TLS = join(ROOT, "test/fixtures/tls");
export const TEST_CA_FILE = join(TLS, "loopback-cert.pem");

export interface ServedDocument {
  url: string;
  /** What a process needs to use it: the document's URL as ours, and the certificate trusted. */
  env: Record<string, string>;
  /** How many times the document was fetched. */
  fetches(): number;
  stop(): Promise<void>;
}

/** Serves `document` (its client_id set to its own URL) at https://127.0.0.1:PORT/oauth/client-metadata.json. */
export function serveDocument(document: Record<string, unknown>): ServedDocument {
  let fetched = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: readFileSync(TEST_CA_FILE, "utf8"), key: readFileSync(join(TLS, "loopback-key.pem"), "utf8") },
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/oauth/client-metadata.json") return new Response("not found", { status: 404 });
      fetched++;
      return Response.json({ ...document, client_id: url.href });
    },
  });
  const url = `https://127.0.0.1:${server.port}/oauth/client-metadata.json`;
  return {
    url,
    env: { MCPKIT_CLIENT_METADATA_URL: url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
    fetches: () => fetched,
    stop: () => server.stop(true),
  };
}
