// Opening a URL in the user's browser, shared by OAuth and URL-mode elicitation: only https or
// loopback http, never with credentials in it, never through a shell (callers ask the user first).
// `$BROWSER` wins when set (the convention xdg-open and Python's webbrowser follow: commands
// separated by ':', `%s` standing for the URL, else the URL appended); else the platform's opener.
import { splitCommandLine } from "../io/command-line.ts";

export function isBrowserSafeUrl(url: URL): boolean {
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The command lines that may open `url`, in the order to try them. */
export function browserCommands(
  url: string,
  env: Record<string, string | undefined> = process.env,
  platform = process.platform,
): string[][] {
  const fromEnv = (env.BROWSER ?? "")
    .split(":")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .flatMap((entry) => {
      const words = splitCommandLine(entry);
      if (!words.ok) return [];
      return [
        words.value.some((word) => word.includes("%s")) ? words.value.map((word) => word.replaceAll("%s", url)) : [...words.value, url],
      ];
    });
  if (fromEnv.length > 0) return fromEnv;
  if (platform === "darwin") return [["open", url]];
  if (platform === "win32") return [["rundll32", "url.dll,FileProtocolHandler", url]];
  return [["xdg-open", url]];
}

/** Opens `url` without a shell, trying each browser command in turn. Refuses anything but https or loopback http. */
export async function openInBrowser(url: string): Promise<void> {
  if (!isBrowserSafeUrl(new URL(url))) throw new Error("refusing to open a non-https, non-loopback URL");
  const { spawn } = await import("node:child_process");
  let failure = "";
  for (const [command, ...args] of browserCommands(url)) {
    const child = spawn(command!, args, { stdio: "ignore", detached: true, shell: false, windowsHide: true });
    child.unref();
    // No browser on this machine (a server, a container) is worth saying: the URL is printed anyway.
    const started = await new Promise<boolean>((resolve) => {
      child.once("spawn", () => resolve(true));
      child.once("error", (error) => {
        failure = `could not start ${command}: ${error.message}`;
        resolve(false);
      });
    });
    if (started) return;
  }
  throw new Error(failure || "no browser command");
}
