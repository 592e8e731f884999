// Text that came from a server, made safe for a terminal: no escape sequences, no control
// characters, and (oneLine) no line breaks.

/**
 * Strips ANSI escape sequences and other control characters from server-supplied text before it
 * reaches a terminal (a server must not be able to rewrite the user's screen): C0 and C1 controls,
 * and the bidirectional overrides and isolates that make text read differently than it is
 * (CVE-2021-42574, "Trojan Source").
 */
export function stripControl(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, "")
    .replace(/\u001b[@-_]/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}

/** Text that came from a server, safe on a terminal: one line, no control sequences. */
export function oneLine(text: string): string {
  return stripControl(text.replace(/\s+/g, " ")).trim();
}

/** At most `maxChars` characters of `text`, an ellipsis marking where it was cut. */
export function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
