/**
 * The login limits, on the toolkit's `rateLimit()`:
 *
 * | limiter   | key                       | limit                   | against                               |
 * | --------- | ------------------------- | ----------------------- | ------------------------------------- |
 * | `login-email`   | the email, lowercased | 5 attempts, then none until 15 minutes after the last (a lockout) | guessing one account's password       |
 * | `login-address` | the client address (an IPv6 one by its `/64`) | 100 failed logins per hour (GCRA) | one client trying a password on many accounts (spraying) |
 *
 * Neither counts a form refused with `422` (it costs no bcrypt and
 * guesses nothing). A limiter does not count the attempts it refuses
 * itself. The counts live in the app's KV database, or in Redis with
 * `SESSION_STORAGE=redis`, so every server sharing them shares the
 * budgets exactly. When that store is down or slow (5 s), both limiters
 * fail closed (`rateLimit()`'s default): the login gets a `503` page with
 * `Retry-After`, never an unchecked password guess.
 *
 * The per-email limit: `rateLimit()` with `algorithm:
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
 * The per-address limit counts failed logins only (`countResponse`): each
 * attempt takes one unit of the address's budget before the password is
 * checked, so concurrent guesses cannot overshoot it, and a successful
 * login gives its unit back. People signing in correctly never use it up:
 * an office, campus or mobile carrier with hundreds of people behind one
 * address signs in as freely as one person. A success gives back only its
 * own attempt; it does not clear the address's failures (an attacker
 * holding one account must not reset the address budget with it). An
 * attempt the email lockout refuses counts as a failure: a client that
 * keeps hammering a locked account spends its own address budget.
 *
 * It is a token bucket (GCRA, the `rateLimit()` default): 100 failures
 * back to back, then one every 36 seconds. Why 100 per hour: people
 * mistype a password on roughly one login in ten, so 200 people behind
 * one address each signing in twice in one hour make about 40 failures,
 * and even all 200 mistyping once in the same hour stay within the burst
 * plus the hour's refill (100 + 100); nobody is shut out, only slowed to
 * one failure every 36 seconds past the burst. A sprayer gets 100 guesses
 * in the first hour and 100 per hour after (2,400 a day, spread over many
 * accounts, each of which locks after 5): too slow to matter against any
 * password outside the few most common ones. Where more users share one
 * address, raise it (`LOGIN_ADDRESS_LIMIT`, failed logins per address per
 * hour). Behind a reverse proxy, set the router's `trustProxy`, or every
 * client counts as the proxy.
 *
 * @module
 */
import {
  createContextKey,
  type RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import {
  rateLimit,
  type RateLimitMiddleware,
  type RateLimitResult,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";

/** The login limit: 5 attempts per email; the sixth is refused... */
export const LOGIN_LIMIT = 5;
/** ...forgotten 15 minutes after the last counted one. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Failed logins per client address, against password spraying... */
export const ADDRESS_LIMIT = 100;
/** ...per hour. */
export const ADDRESS_WINDOW_MS = 60 * 60 * 1000;

/**
 * Set to `true` by the login handler when the password matched: the
 * per-address limiter then gives the attempt back.
 */
export const LoginSucceeded = createContextKey<boolean>();

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
  /** Failed logins per address per hour. Default {@linkcode ADDRESS_LIMIT}. */
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
      countResponse: (_response, context) =>
        context.get(LoginSucceeded) !== true,
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
