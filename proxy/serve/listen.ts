// The one place serve touches its runtime's HTTP server: Bun.serve under Bun, Deno.serve under
// Deno, both taking the same web-standard fetch handler (Request in, Response out).

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface Listening {
  /** The base URL, with the port the system gave when 0 was asked. */
  origin: string;
  port: number;
  stop(): Promise<void>;
}

/** Listens on host:port (0: a free port); resolves once connections are taken. */
export async function listen(host: string, port: number, handler: FetchHandler): Promise<Listening> {
  const shown = host.includes(":") ? `[${host}]` : host;
  const deno = (globalThis as { Deno?: DenoLike }).Deno;
  if (typeof Bun !== "undefined") {
    // idleTimeout 0: an SSE stream may stay quiet for minutes (a GET stream waiting for the server).
    const server = Bun.serve({ hostname: host, port, idleTimeout: 0, fetch: handler });
    const bound = server.port ?? port;
    return { origin: `http://${shown}:${bound}`, port: bound, stop: async () => void (await server.stop(true)) };
  }
  if (deno) {
    const ready = Promise.withResolvers<number>();
    const server = deno.serve({ hostname: host, port, onListen: ({ port: bound }) => ready.resolve(bound) }, handler);
    const bound = await ready.promise;
    return { origin: `http://${shown}:${bound}`, port: bound, stop: () => server.shutdown() };
  }
  throw new Error("mcp-proxy serve runs under Bun or Deno");
}

interface DenoLike {
  serve(
    options: { hostname: string; port: number; onListen: (addr: { port: number }) => void },
    handler: FetchHandler,
  ): { shutdown(): Promise<void> };
}
