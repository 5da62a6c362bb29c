/**
 * The values middleware hands to handlers, each under its own typed key:
 * the session and the signed-in user. (The parsed form is read with the
 * `FormData` class itself as key, which `formData()` sets.)
 *
 * @module
 */
import { createContextKey } from "@fetchkit/toolkit/fetch-router";
import type { Session as SessionOf } from "@fetchkit/toolkit/session-middleware";
import type { ReauthMark } from "@fetchkit/toolkit/reauth-middleware";
import type { User } from "./users.ts";

/**
 * What the app keeps in a session. Flash values live for one request.
 * (A type alias, not an interface: sessions need an index signature.)
 */
export type SessionData = {
  /** The signed-in user's id. */
  userId: number;
  /** The user's session generation at sign-in (see `sign_in.ts`). */
  generation: number;
  /** Flash: an error to show on the next page. */
  error: string;
  /** Flash: a confirmation to show on the next page. */
  notice: string;
  /** Flash: the email typed into a form that failed, to fill it again. */
  email: string;
  /** Flash: the name typed into the register form that failed. */
  name: string;
  /** When and how the user last confirmed who they are (`reauth.ts`). */
  reauth: ReauthMark;
  /** A sign-in waiting for its second factor (`two_factor.ts`). */
  twoFactorPending: { userId: number; at: number; returnTo?: string };
  /** The TOTP secret being set up on `/profile/two-factor`. */
  totpSetup: string;
};

/** The session of this request (set by `session(Session, storage)`). */
export const Session = createContextKey<SessionOf<SessionData>>();

/** The signed-in user, when there is one (set by `loadUser()`). */
export const CurrentUser = createContextKey<User>();
