/**
 * Signing a user in, and ending every session of a user at once.
 *
 * Every sign-in (password, passkey, a provider) goes through
 * {@linkcode signIn}: a new session id (against session fixation), the
 * user's id, and the user's session `generation`. A password reset bumps
 * the user's `generation` (`users.setPassword()`), and so does turning
 * two-factor authentication off (`users.bumpGeneration()`); `loadUser()` asks
 * {@linkcode sessionIsCurrent} on every request, and a session that
 * carries an older generation is signed out there.
 *
 * Why a generation number and not a per-user index of session ids: it
 * works the same on every session storage, including signed cookies,
 * which keep no server-side record to delete; it costs nothing extra per
 * request (the user record is read anyway); and it cannot miss a session
 * (an index must be kept right on every save, expiry and regeneration,
 * across servers). What it does not do is delete the old sessions' data
 * at once: they are refused on their next request and expire as usual.
 *
 * A session signed in without a generation (a sign-in path that did not
 * call `signIn()`) is given the user's current one on its first load, so
 * such a path works, and the next reset still ends it.
 *
 * @module
 */
import type { Session as SessionOf } from "@fetchkit/toolkit/session-middleware";
import { clearReauthentication } from "@fetchkit/toolkit/reauth-middleware";
import type { SessionData } from "./context.ts";
import type { User } from "./users.ts";

type AppSession = SessionOf<SessionData>;

/** Signs `user` in on `session`: new id, the user and their generation. */
export function signIn(session: AppSession, user: User): void {
  session.regenerateId(true);
  // A new sign-in starts unconfirmed (see reauth.ts): a confirmation never
  // passes from one user to the next on a shared browser.
  clearReauthentication(session);
  session.set("userId", user.id);
  session.set("generation", user.generation ?? 0);
}

/**
 * Whether `session`, signed in as `user`, was made since the user's last
 * password reset. A session without a generation is stamped with the
 * current one (see the module docs).
 */
export function sessionIsCurrent(session: AppSession, user: User): boolean {
  const current = user.generation ?? 0;
  const held = session.get("generation");
  if (held === undefined) {
    session.set("generation", current);
    return true;
  }
  return held === current;
}

/** Signs a session out whose user's sessions were all ended. */
export function endSession(session: AppSession): void {
  session.regenerateId(true);
  session.unset("userId");
  session.unset("generation");
}
