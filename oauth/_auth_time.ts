/**
 * How long ago the provider last authenticated the user: the ID token's
 * `auth_time` (OpenID Connect Core §2) checked against the `max_age` an
 * authorization request sent (§3.1.2.1: the provider must then include
 * `auth_time`, and re-authenticate a user whose last sign-in there is
 * older). A provider that ignores `max_age` or `prompt=login` and answers
 * from an old session is caught here, as openid-client's `max_age` check
 * does: the time is read from the signed token, not trusted from the
 * redirect.
 */
import { OAuthError } from "./_errors.ts";

/** Options of {@linkcode checkAuthTime}. */
export interface CheckAuthTimeOptions {
  /**
   * Seconds: the oldest authentication accepted. `auth_time` must be at
   * most this long before `now`, give or take `clockTolerance`.
   */
  maxAge: number;
  /**
   * Seconds of clock skew allowed, both ways.
   *
   * @default {30}
   */
  clockTolerance?: number;
  /** The time to check against, ms since the epoch. Default `Date.now()`. */
  now?: number;
}

/**
 * Checks that `claims.auth_time` is present and no older than `maxAge`
 * seconds (plus `clockTolerance`), nor in the future; throws an
 * {@linkcode OAuthError} with reason `"auth_time"` naming the fault
 * otherwise. `callback()` runs it itself for a sign-in started with
 * `authorize(context, { maxAge })`; call it directly for claims read
 * another way (a token kept from an earlier sign-in).
 *
 * @example A sign-in ten minutes old is refused for a 5-minute window
 * ```ts
 * import { checkAuthTime, OAuthError } from "@fetchkit/toolkit/oauth";
 *
 * const now = Date.now();
 * const claims = { sub: "user-1", auth_time: Math.floor(now / 1000) - 600 };
 * try {
 *   checkAuthTime(claims, { maxAge: 300, now });
 * } catch (error) {
 *   console.log(error instanceof OAuthError && error.reason); // "auth_time"
 * }
 * checkAuthTime({ ...claims, auth_time: Math.floor(now / 1000) - 60 }, {
 *   maxAge: 300,
 *   now,
 * }); // passes
 * ```
 *
 * @param claims The ID token's verified claims.
 * @param options The oldest authentication accepted, and the clock.
 * @throws {OAuthError} When `auth_time` is missing, too old or in the future.
 * @throws {RangeError} When `maxAge` or `clockTolerance` is not seconds (>= 0).
 */
export function checkAuthTime(
  claims: Readonly<Record<string, unknown>>,
  options: CheckAuthTimeOptions,
): void {
  const { maxAge } = options;
  const tolerance = options.clockTolerance ?? 30;
  checkSeconds("checkAuthTime", "maxAge", maxAge);
  checkSeconds("checkAuthTime", "clockTolerance", tolerance);
  const authTime = claims.auth_time;
  if (typeof authTime !== "number" || !Number.isFinite(authTime)) {
    throw new OAuthError(
      "auth_time",
      "The provider did not say when you last signed in there (the ID token has no auth_time, " +
        "which max_age asks for: OpenID Connect Core §3.1.2.1)",
    );
  }
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (authTime > now + tolerance) {
    throw new OAuthError(
      "auth_time",
      `The ID token's auth_time is ${
        authTime - now
      } s in the future (more than the ${tolerance} s of clock tolerance)`,
    );
  }
  const age = now - authTime;
  if (age > maxAge + tolerance) {
    throw new OAuthError(
      "auth_time",
      `The provider last asked you to sign in ${age} s ago; at most ${maxAge} s is accepted` +
        (tolerance > 0 ? ` (plus ${tolerance} s of clock tolerance)` : ""),
    );
  }
}

/** `value` as seconds (finite, >= 0), or a `RangeError` naming `fn` and `name`. */
export function checkSeconds(fn: string, name: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `${fn}(): ${name} must be seconds (a finite number >= 0), got ${
        String(value)
      }`,
    );
  }
}
