// The loopback end of the OAuth redirect: one listener on 127.0.0.1 that takes exactly one
// callback, checks its `state`, and says on the page what happened.
import type { IncomingMessage, Server, ServerResponse } from "node:http";

export const CALLBACK_PATH = "/callback";

export interface CallbackListener {
  redirectUrl: URL;
  /** The callback's query, once a callback with the expected state arrived. */
  params: Promise<URLSearchParams>;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:`port` for exactly one callback at CALLBACK_PATH. Requests with a foreign
 * Host or Origin, another method or path, or a missing or wrong `state` are refused (400) without
 * consuming the callback; the first callback with our state settles `params` and closes the
 * listener.
 */
export async function listenForCallback(port: number, expectedState: string): Promise<CallbackListener> {
  const http = await import("node:http");
  let settle!: { resolve: (p: URLSearchParams) => void; reject: (e: Error) => void };
  const params = new Promise<URLSearchParams>((resolve, reject) => (settle = { resolve, reject }));
  params.catch(() => {}); // observed later by the flow; never an unhandled rejection
  let consumed = false;
  let bound = port;

  const server: Server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const self = `127.0.0.1:${bound}`;
    // DNS-rebinding and cross-site guard: only our own loopback origin may talk to us.
    if (req.headers.host !== self) return page(res, 400, "Bad request", "Unexpected Host header.");
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${self}`) return page(res, 403, "Forbidden", "Cross-origin requests are not accepted.");
    if (req.method !== "GET") return page(res, 405, "Method not allowed", "Only GET is accepted.");
    const url = new URL(req.url ?? "/", `http://${self}`);
    if (url.pathname !== CALLBACK_PATH) return page(res, 404, "Not found", "Nothing here.");
    if (consumed) return page(res, 410, "Gone", "This authorization callback was already used.");
    // A callback without our state is not ours (a forged or stale link): it is refused, and the
    // real one may still come, until the sign-in's own timeout.
    const state = url.searchParams.get("state");
    if (state === null || state !== expectedState) {
      const what = state === null ? "has no state parameter" : "has a state parameter that does not match";
      return page(
        res,
        400,
        "Not this sign-in",
        `This callback ${what} the sign-in under way, so it was refused. The sign-in goes on waiting for its own callback.`,
      );
    }
    consumed = true;
    res.on("finish", () => void close());
    settle.resolve(url.searchParams);
    if (!url.searchParams.has("code")) {
      return page(
        res,
        400,
        "Authorization not granted",
        "The authorization server did not grant access. See the terminal for details; you can close this window.",
      );
    }
    return page(
      res,
      200,
      "Authorization received",
      "mcpkit received the authorization. You can close this window and return to the terminal.",
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === "EADDRINUSE"
            ? `cannot listen for the OAuth callback on 127.0.0.1:${port}: the port is in use (choose another --callback-port)`
            : `cannot listen for the OAuth callback on 127.0.0.1:${port}: ${e.message}`,
        ),
      ),
    );
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  bound = typeof address === "object" && address ? address.port : port;

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      settle.reject(new Error("the OAuth callback listener was closed"));
      server.close(() => resolve());
      server.closeIdleConnections?.();
    });
    return closing;
  }
  return { redirectUrl: new URL(`http://127.0.0.1:${bound}${CALLBACK_PATH}`), params, close };
}

function page(res: ServerResponse, status: number, title: string, message: string): void {
  const html = `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${message}</p>\n`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    // The callback URL carries the authorization code: never leak it in a Referer.
    "referrer-policy": "no-referrer",
    "content-security-policy": "default-src 'none'",
    "x-content-type-options": "nosniff",
    connection: "close",
  });
  res.end(html);
}
