/**
 * Re-authentication in the app: `confirmFirst()` guards a route with
 * `requireReauth()` (a confirmation at most 10 minutes old, made on
 * `/auth/confirm` with the password, a passkey, or a sign-in again at a
 * linked provider). It runs after
 * `requireAuth()`; a page without a fresh confirmation goes to the confirm
 * page and comes back to `returnTo`, a JSON request (the passkey script)
 * gets `401` with the confirm page's URL, which the script opens.
 *
 * Guarded: enabling and disabling two-factor authentication, making new
 * backup codes, adding a passkey; changing the email or password and
 * deleting the account use it too.
 *
 * @module
 */
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import {
  REAUTH_MAX_AGE_MS,
  requireReauth,
} from "@fetchkit/toolkit/reauth-middleware";
import { Session } from "./context.ts";

/** The confirm page's path. */
export const CONFIRM_PATH = "/auth/confirm";

/** How long a confirmation counts: 10 minutes. */
export const CONFIRM_MAX_AGE_MS = REAUTH_MAX_AGE_MS;

/**
 * `requireReauth()` for the app's session; `returnTo` is where to come
 * back to when it is not the request's own page (a JSON endpoint's page).
 */
export function confirmFirst(returnTo?: string): Middleware {
  return requireReauth({
    session: Session,
    confirmPath: CONFIRM_PATH,
    maxAgeMs: CONFIRM_MAX_AGE_MS,
    returnTo: returnTo === undefined ? undefined : () => returnTo,
  });
}
