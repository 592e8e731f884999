// Text that came from a server, made safe for a terminal: no escape sequences, no control
// characters, and (oneLine) no line breaks.

/**
 * What must never reach a terminal from a server: C0 controls but tab and newline, DEL and C1
 * (U+0080-U+009F), the bidirectional marks, overrides and isolates that make text read differently
 * than it is (CVE-2021-42574, "Trojan Source"), and the zero-width characters that hide text
 * (U+200B, U+2060, U+FEFF). ZWJ and ZWNJ (U+200D, U+200C) stay: scripts and emoji need them.
 */
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/** Strips ANSI escape sequences, then every character above, from server-supplied text before it reaches a terminal. */
export function stripControl(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, "")
    .replace(/\u001b[@-_]/g, "")
    .replace(TERMINAL_UNSAFE, "");
}

/**
 * JSON that is safe on a terminal and still the same data: the characters above escaped as \uXXXX
 * (stripping them would change what a program reads). They can stand only inside strings.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? "null";
  return json.replace(TERMINAL_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text that came from a server, safe on a terminal: one line, no control sequences. */
export function oneLine(text: string): string {
  return stripControl(text.replace(/\s+/g, " ")).trim();
}

/** At most `maxChars` characters of `text`, an ellipsis marking where it was cut. */
export function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
