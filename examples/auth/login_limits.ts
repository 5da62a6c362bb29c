/**
 * The login limits, on the toolkit's `rateLimit()`:
 *
 * | limiter   | key                       | limit                   | against                               |
 * | --------- | ------------------------- | ----------------------- | ------------------------------------- |
 * | `login-email`   | the email, lowercased | 5 attempts, then none until 15 minutes after the last (a lockout) | guessing one account's password       |
 * | `login-address` | the client address (an IPv6 one by its `/64`) | 20 attempts per 15 minutes (GCRA) | one client trying a password on many accounts (spraying) |
 *
 * Both count every login that reaches the password check (a form refused
 * with `422` is not counted: it costs no bcrypt and guesses nothing). A
 * limiter does not count the attempts it refuses itself. The address
 * limiter runs first, so an attempt that the email lockout then refuses
 * still counts toward its address: a client that keeps hammering a locked
 * account spends its own address budget. A successful login clears its
 * email's count, not its address's (an attacker holding one account must
 * not reset the address budget with it). The counts live in the app's
 * KV database, or in Redis with `SESSION_STORAGE=redis`, so every server
 * sharing them shares the budgets exactly.
 *
 * The per-email limit is the seed's: `rateLimit()` with `algorithm:
 * "lockout"` counts attempts per email and forgets the count 15 minutes
 * after the last counted attempt, checked on every read. The sixth
 * attempt is refused with `429` and `Retry-After: 900`, and so is every
 * attempt until those 15 minutes are over ("Try again in 15 minutes.",
 * then less as time passes). Refused attempts are not counted and do not
 * move the window, so an attacker cannot keep an account locked longer
 * than 15 minutes after their fifth guess; the account's owner can still
 * sign in once it is over, and a success clears the count. A guesser gets
 * at most 5 attempts in any 15 minutes.
 *
 * The per-address limit is a token bucket (GCRA, the `rateLimit()`
 * default): 20 back to back, then one every 45 seconds, so the people
 * behind one address are slowed, never shut out for 15 minutes by one
 * of them.
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
/** ...forgotten 15 minutes after the last counted one. */
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
      algorithm: "lockout",
      limit: LOGIN_LIMIT,
      windowMs: LOGIN_WINDOW_MS,
      store,
      key: emailOf,
      onLimit,
    }),
  };
}
