// The person's part of a sign-in: the question whether to sign in, the address pasted back
// (--no-browser), and the waits for them, during which every timer of the command holds. Each way
// it can go wrong says what happened: declined, nobody to ask, input that ended unanswered.
import type { AuthContext } from "./context.ts";
import { AuthRequiredError } from "./errors.ts";
import { pastedCallback } from "./redirect.ts";
import { originOf } from "./tokens.ts";

/** Asks whether to sign in; refuses when the person says no, or when nobody can answer. */
export async function askFirst(ctx: AuthContext, signal: AbortSignal | undefined): Promise<void> {
  const { ui, signInCommand } = ctx.options;
  const where = originOf(ctx.resource);
  if (!ui.confirm)
    throw new AuthRequiredError(`${where} requires a sign-in, and there is no terminal to ask on (run ${signInCommand}, or pass --oauth)`);
  const yes = await whileUserWaits(ctx, () => ui.confirm!(`${where} requires a sign-in. Sign in with your browser?`, signal));
  if (yes === null)
    throw new AuthRequiredError(
      `${where} requires a sign-in, and the input ended before anyone answered whether to sign in (run ${signInCommand}, or pass --oauth)`,
    );
  if (!yes) throw new AuthRequiredError(`signing in to ${where} was declined (run ${signInCommand} to sign in)`);
}

/** `work` while the person is waited for: every timer of the command holds meanwhile. */
export async function whileUserWaits<T>(ctx: AuthContext, work: () => Promise<T>): Promise<T> {
  ctx.userWait(true);
  try {
    return await work();
  } finally {
    ctx.userWait(false);
  }
}

/** The redirect URL the person pastes (--no-browser); input that ends first is said as such. */
export async function pasted(ctx: AuthContext, state: string, signal: AbortSignal | undefined): Promise<URLSearchParams> {
  const text = await ctx.options.ui.ask!("Paste the redirect URL here: ", { signal });
  if (text === null) {
    if (signal?.aborted) throw new AuthRequiredError(`signing in to ${originOf(ctx.resource)} was cancelled`);
    throw new AuthRequiredError(
      `the input ended before the redirect URL was pasted (run ${ctx.options.signInCommand} at a terminal, or without --no-browser)`,
    );
  }
  return pastedCallback(text, state);
}
