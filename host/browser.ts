// Opening a URL in the user's browser, shared by OAuth and URL-mode elicitation: only https or
// loopback http, never with credentials in it, never through a shell (callers ask the user first).

export function isBrowserSafeUrl(url: URL): boolean {
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Opens `url` in the system browser without a shell. Refuses anything but https or loopback http. */
export async function openInBrowser(url: string): Promise<void> {
  if (!isBrowserSafeUrl(new URL(url))) throw new Error("refusing to open a non-https, non-loopback URL");
  const { spawn } = await import("node:child_process");
  const [command, args]: [string, string[]] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]];
  const child = spawn(command, args, { stdio: "ignore", detached: true, shell: false, windowsHide: true });
  child.unref();
  // No browser opener on this machine (a server, a container) is worth saying: the URL is printed anyway.
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", (error) => reject(new Error(`could not start ${command}: ${error.message}`)));
  });
}
