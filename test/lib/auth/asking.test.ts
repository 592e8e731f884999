// lib/auth/asking: the person's part of a sign-in. Each way it ends says what happened (declined,
// nobody to ask, input that ended unanswered), and each wait for the person is told to the timers.
import { describe, expect, test } from "bun:test";
import { askFirst, pasted, whileUserWaits } from "../../../lib/auth/asking.ts";
import type { Asker } from "../../../lib/terminal/asker.ts";
import { authContext, privateStore } from "../../support/oauth-user.ts";

const RESOURCE = "https://mcp.example.com/mcp";

function context(ui: Asker) {
  const waits: boolean[] = [];
  const ctx = authContext(RESOURCE, privateStore(), { ui, onuserwait: (waiting) => void waits.push(waiting) });
  return { ctx, waits };
}

describe("askFirst", () => {
  test("yes goes on, the question counted as a wait for the person", async () => {
    const { ctx, waits } = context({ print: () => {}, confirm: async () => true });
    await askFirst(ctx, undefined);
    expect(waits).toEqual([true, false]);
  });

  test("no is declined, with the command that signs in", async () => {
    const { ctx } = context({ print: () => {}, confirm: async () => false });
    await expect(askFirst(ctx, undefined)).rejects.toThrow(
      "signing in to https://mcp.example.com was declined (run mcp-inspect auth to sign in)",
    );
  });

  test("nobody to ask (no terminal) is not 'declined': it says so, and names --oauth", async () => {
    const { ctx, waits } = context({ print: () => {} });
    await expect(askFirst(ctx, undefined)).rejects.toThrow(
      "https://mcp.example.com requires a sign-in, and there is no terminal to ask on (run mcp-inspect auth, or pass --oauth)",
    );
    expect(waits).toEqual([]);
  });

  test("input that ends unanswered is not 'declined' either", async () => {
    const { ctx } = context({ print: () => {}, confirm: async () => null });
    await expect(askFirst(ctx, undefined)).rejects.toThrow(
      "https://mcp.example.com requires a sign-in, and the input ended before anyone answered whether to sign in (run mcp-inspect " +
        "auth, or pass --oauth)",
    );
  });
});

describe("pasted", () => {
  test("the pasted address's query, when its state is ours", async () => {
    const { ctx } = context({ print: () => {}, ask: async () => "http://127.0.0.1/callback?code=c&state=ours" });
    expect((await pasted(ctx, "ours", undefined)).get("code")).toBe("c");
  });

  test("input that ends before an address is pasted says so, not 'that is not the URL'", async () => {
    const { ctx } = context({ print: () => {}, ask: async () => null });
    await expect(pasted(ctx, "ours", undefined)).rejects.toThrow(
      "the input ended before the redirect URL was pasted (run mcp-inspect auth at a terminal, or without --no-browser)",
    );
  });

  test("Ctrl-C while waiting for the paste is a cancel", async () => {
    const stop = new AbortController();
    stop.abort();
    const { ctx } = context({ print: () => {}, ask: async () => null });
    await expect(pasted(ctx, "ours", stop.signal)).rejects.toThrow("signing in to https://mcp.example.com was cancelled");
  });
});

test("whileUserWaits tells the timers when the wait starts and ends, however it ends", async () => {
  const { ctx, waits } = context({ print: () => {} });
  expect(await whileUserWaits(ctx, async () => 1)).toBe(1);
  await expect(whileUserWaits(ctx, async () => Promise.reject(new Error("gone")))).rejects.toThrow("gone");
  expect(waits).toEqual([true, false, true, false]);
});
