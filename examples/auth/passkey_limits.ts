/**
 * The limit on passkey option requests (`POST /passkeys/login/options`,
 * `POST /passkeys/register/options`): each one stores a challenge in the
 * session, and a guest's options write a new guest session, so a client
 * asking in a loop would fill the session store. Per client address (an
 * IPv6 client by its `/64`): a token bucket (GCRA) of
 * {@linkcode PASSKEY_OPTIONS_LIMIT} requests, refilled one every
 * 10 seconds ({@linkcode PASSKEY_OPTIONS_WINDOW_MS} for the whole bucket).
 * A person signs in with one request, so 60 people behind one office
 * address can all sign in within a minute, while a loop stores at most 6
 * sessions a minute after its first 60 (and guests' sessions expire in
 * 10 minutes, see `sessions.ts`). Over it: `429` JSON with `Retry-After`
 * and a message the passkey script shows.
 *
 * @module
 */
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";

/** Passkey option requests per client address, back to back... */
export const PASSKEY_OPTIONS_LIMIT = 60;
/** ...refilled over 10 minutes. */
export const PASSKEY_OPTIONS_WINDOW_MS = 10 * 60 * 1000;

/** The limiter, counting in `store` under `passkey-options`. */
export function passkeyOptionsLimit(store: RateLimitStore): Middleware {
  return rateLimit({
    name: "passkey-options",
    limit: PASSKEY_OPTIONS_LIMIT,
    windowMs: PASSKEY_OPTIONS_WINDOW_MS,
    algorithm: "gcra",
    store,
    onLimit: (_context, { retryAfterMs }) => {
      const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      return Response.json({
        error:
          `Too many passkey requests from your network. Try again in ${seconds} seconds, or sign in with your password.`,
      }, { status: 429 });
    },
  });
}
