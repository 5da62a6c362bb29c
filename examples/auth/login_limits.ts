/**
 * The login limits, on the toolkit's `rateLimit()`:
 *
 * | limiter   | key                       | limit                   | against                               |
 * | --------- | ------------------------- | ----------------------- | ------------------------------------- |
 * | `login-email`   | the email, lowercased | 5 attempts per 15 minutes | guessing one account's password       |
 * | `login-address` | the client address (an IPv6 one by its `/64`) | 20 attempts per 15 minutes | one client trying a password on many accounts (spraying) |
 *
 * Both count every login that reaches the password check (a form refused
 * with `422` is not counted: it costs no bcrypt and guesses nothing); a
 * refused attempt is not counted either. A successful login clears its
 * email's count, not its address's (an attacker holding one account must
 * not reset the address budget with it). The counts live in the app's
 * KV database, or in Redis with `SESSION_STORAGE=redis`, so every server
 * sharing them shares the budgets exactly.
 *
 * How this differs from the seed's limiter ("counter removed 15 minutes
 * after each attempt"): `rateLimit()` is a token bucket (GCRA). Five
 * attempts may come back to back and the sixth is refused, as in the
 * seed; but the bucket then refills one attempt every 3 minutes (15 / 5),
 * so the refused client is told to try again in 3 minutes, not 15, and
 * gets one attempt each time. The long-run rate is the same (5 per 15
 * minutes), and after 15 quiet minutes the full 5 are back. Within any
 * 15 minutes a patient guesser gets at most 9 attempts (5, then one
 * every 3 minutes) where the seed allowed 5, in exchange for no lockout
 * that an attacker can extend or time.
 *
 * 20 per address leaves room for a household or an office behind one
 * address (four people each mistyping five times); spraying from one
 * address is slowed to 80 attempts an hour. Where more users share one
 * address, raise it (`LOGIN_ADDRESS_LIMIT`). Behind a reverse proxy, set
 * the router's `trustProxy`, or every client counts as the proxy.
 *
 * @module
 */
import type { RequestContext } from "@fetchkit/toolkit/fetch-router";
import {
  rateLimit,
  type RateLimitMiddleware,
  type RateLimitResult,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";

/** The seed's login limit: 5 attempts per email... */
export const LOGIN_LIMIT = 5;
/** ...per 15 minutes. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Login attempts per client address, against password spraying... */
export const ADDRESS_LIMIT = 20;
/** ...per 15 minutes. */
export const ADDRESS_WINDOW_MS = 15 * 60 * 1000;

/** The two login limiters; run `perAddress` first. */
export interface LoginLimits {
  perAddress: RateLimitMiddleware;
  perEmail: RateLimitMiddleware;
}

/** Options of {@linkcode createLoginLimits}. */
export interface LoginLimitsOptions {
  /** Where the counts live (KV or Redis, shared by every server). */
  store: RateLimitStore;
  /** The lowercased email of this login, or `undefined` to not count it. */
  emailOf: (context: RequestContext) => string | undefined;
  /** The 429 page. */
  onLimit: (context: RequestContext, result: RateLimitResult) => Response;
  /** Attempts per address per 15 minutes. Default {@linkcode ADDRESS_LIMIT}. */
  addressLimit?: number;
}

/** Creates the per-address and per-email login limiters. */
export function createLoginLimits(options: LoginLimitsOptions): LoginLimits {
  const { store, emailOf, onLimit, addressLimit = ADDRESS_LIMIT } = options;
  return {
    perAddress: rateLimit({
      name: "login-address",
      limit: addressLimit,
      windowMs: ADDRESS_WINDOW_MS,
      store,
      onLimit,
    }),
    perEmail: rateLimit({
      name: "login-email",
      limit: LOGIN_LIMIT,
      windowMs: LOGIN_WINDOW_MS,
      store,
      key: emailOf,
      onLimit,
    }),
  };
}
