// Server text made safe for a terminal: stripControl, oneLine, clip.
import { describe, expect, test } from "bun:test";
import { clip, oneLine, stripControl, terminalSafeJson } from "../../../lib/io/text.ts";

describe("stripControl", () => {
  test("removes ANSI colour, cursor and OSC sequences and control bytes, and keeps newlines and tabs", () => {
    expect(stripControl("\u001b[31mred\u001b[0m \u001b]0;title\u0007ok\u001b[2J\r\u0000\tx\ny")).toBe("red ok\tx\ny");
  });

  test("removes C1 controls (a CSI as one byte) and the bidi overrides and isolates of Trojan Source", () => {
    expect(stripControl("a\u009b31mb\u0085c\u0090d")).toBe("a31mbcd");
    expect(stripControl("user\u202e\u2066gnp.exe\u2069\u202a\u202b\u202c\u202d\u2067\u2068 ok")).toBe("usergnp.exe ok");
  });

  test("removes the bidi marks (U+061C, U+200E, U+200F) and the zero-width U+200B, U+2060, U+FEFF; keeps ZWJ and ZWNJ", () => {
    expect(stripControl("a\u061cb\u200ec\u200fd\u200be\u2060f\ufeffg")).toBe("abcdefg");
    // A family emoji and a Persian word need them.
    expect(stripControl("👨\u200d👩\u200d👧 می\u200cخواهم")).toBe("👨\u200d👩\u200d👧 می\u200cخواهم");
  });

  test.each([
    ["an OSC ended by ST instead of BEL", "a\u001b]8;;https://evil\u001b\\link\u001b]8;;\u001b\\b", "alinkb"],
    ["an escape it has no rule for (RIS, a full reset) loses its ESC: plain text is left", "a\u001bcb", "acb"],
    ["a CSI with private parameters (hide the cursor)", "a\u001b[?25lb", "ab"],
    ["a lone ESC at the end", "ab\u001b", "ab"],
    ["DEL and BEL", "a\u007fb\u0007c", "abc"],
    ["text with no controls, non-ASCII kept", "héllo 日本 🎉", "héllo 日本 🎉"],
  ])("%s", (_name, input, expected) => {
    expect(stripControl(input)).toBe(expected);
  });
});

describe("terminalSafeJson", () => {
  test("escapes what stripControl removes as \\uXXXX, so the JSON is safe on a terminal and parses to the same data", () => {
    const value = { name: "evil\u009b31m\u202egnp\u200b\u0085", keep: "👨\u200d👩 a\tb\nc", n: 1 };
    const json = terminalSafeJson(value);
    expect(json).toBe('{"name":"evil\\u009b31m\\u202egnp\\u200b\\u0085","keep":"👨\u200d👩 a\\tb\\nc","n":1}');
    expect(JSON.parse(json)).toEqual(value);
    expect(stripControl(json)).toBe(json);
    expect(JSON.parse(terminalSafeJson(value, 2))).toEqual(value);
  });
});

describe("oneLine", () => {
  test.each([
    ["line breaks and tabs become single spaces", "first\nsecond\r\n\tthird", "first second third"],
    ["runs of whitespace collapse, and the ends are trimmed", "  a   b  \n", "a b"],
    ["escape sequences are stripped as well", "\u001b[31mred\u001b[0m\nline", "red line"],
    ["a vertical tab or form feed is whitespace, not a break left behind", "a\u000bb\u000cc", "a b c"],
    ["only whitespace gives the empty string", " \n\t ", ""],
  ])("%s", (_name, input, expected) => {
    expect(oneLine(input)).toBe(expected);
    expect(oneLine(input)).not.toMatch(/[\n\r]/);
  });
});

describe("clip", () => {
  test.each([
    ["shorter than the bound: unchanged", "abc", 5, "abc"],
    ["exactly the bound: unchanged", "abcde", 5, "abcde"],
    ["one over: cut, the ellipsis within the bound", "abcdef", 5, "abcd…"],
    ["empty text", "", 3, ""],
  ])("%s", (_name, text, max, expected) => {
    expect(clip(text, max)).toBe(expected);
    expect(clip(text, max).length).toBeLessThanOrEqual(max);
  });
});
