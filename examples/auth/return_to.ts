/**
 * Where to go after login: only ever a path on this site.
 *
 * A `returnTo` taken from the query string is attacker-controlled: a link
 * to `/auth/login?returnTo=https://evil.example` must not send a freshly
 * signed-in user elsewhere (an open redirect). Browsers read `\` as `/` and
 * drop tabs and newlines inside URLs, so `/\evil.example` and
 * `/\t/evil.example` leave the site as `//evil.example` does.
 *
 * @module
 */

/** Where a login goes when `returnTo` is missing or unsafe. */
export const DEFAULT_RETURN_TO = "/dashboard";

const BASE = "http://return-to.invalid";

/**
 * Gives `value` back when it is a local path (`/...`, not `//...`, no
 * backslash, whitespace or control character, staying on this origin),
 * else {@linkcode DEFAULT_RETURN_TO}.
 */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value || value[0] !== "/" || value[1] === "/") return DEFAULT_RETURN_TO;
  // deno-lint-ignore no-control-regex
  if (/[\\\s\x00-\x1f\x7f]/.test(value)) return DEFAULT_RETURN_TO;
  try {
    if (new URL(value, BASE).origin !== BASE) return DEFAULT_RETURN_TO;
  } catch {
    return DEFAULT_RETURN_TO;
  }
  return value;
}
