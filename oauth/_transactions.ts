/**
 * Sign-ins under way, in the session: one entry per `state`, holding the
 * PKCE verifier, the nonce, `returnTo`, which client started it and when
 * it expires. Taking an entry removes it (single use); at most
 * `MAX_PENDING` are kept (the oldest go first), so tabs left open cannot
 * grow a cookie session without bound.
 */

/**
 * Whether `given` equals `ours`, one of our 43-character random tokens,
 * reading every character. A length differing is told at once: the length
 * of our tokens is no secret. (`secretsEqual` from `crypto/compare.ts`
 * hashes both sides first, for secrets of any length: 40-130 µs a call
 * measured here, a tenth of a callback's own CPU for its two compares.)
 */
export function tokensEqual(given: string, ours: string): boolean {
  if (given.length !== ours.length) return false;
  let difference = 0;
  for (let i = 0; i < ours.length; i++) {
    difference |= given.charCodeAt(i) ^ ours.charCodeAt(i);
  }
  return difference === 0;
}

/** The session field the entries live under. */
export const FIELD = "_oauth";
/** Sign-ins kept at once per session. */
export const MAX_PENDING = 5;

/** One sign-in under way. */
export interface Pending {
  /** The PKCE `code_verifier`. */
  verifier: string;
  /** The nonce sent, expected back in the ID token. */
  nonce: string;
  /** Which client started it (issuer or endpoint, and client id). */
  client: string;
  /** A local path, or absent. */
  returnTo?: string;
  /** Expiry, ms since the epoch. */
  expires: number;
  /** The `max_age` sent, in seconds, when one was. */
  maxAge?: number;
  /** The oldest `auth_time` accepted, in seconds, with `maxAge`. */
  maxAuthAge?: number;
}

/** The part of a session this module uses. */
export interface SessionLike {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  unset(name: string): void;
}

type Entries = Record<string, Pending>;

function entriesOf(session: SessionLike): Entries {
  const value = session.get(FIELD);
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Entries
    : {};
}

/** Keeps `pending` under `state`, dropping expired and the oldest past the cap. */
export function putPending(
  session: SessionLike,
  state: string,
  pending: Pending,
  now: number,
): void {
  const kept = Object.entries(entriesOf(session))
    .filter(([, entry]) => entry.expires > now)
    .sort(([, a], [, b]) => a.expires - b.expires)
    .slice(-(MAX_PENDING - 1));
  session.set(FIELD, Object.fromEntries([...kept, [state, pending]]));
}

/**
 * Removes and returns the entry whose state equals `state` (compared in
 * constant time), or `undefined`; an expired entry is removed and
 * reported as `"expired"`.
 */
export function takePending(
  session: SessionLike,
  state: string,
  now: number,
): Pending | "expired" | undefined {
  const entries = entriesOf(session);
  let found: string | undefined;
  for (const key of Object.keys(entries)) {
    if (tokensEqual(state, key)) found = key;
  }
  if (found === undefined) return undefined;
  const entry = entries[found];
  delete entries[found];
  if (Object.keys(entries).length === 0) session.unset(FIELD);
  else session.set(FIELD, entries);
  return entry.expires > now ? entry : "expired";
}
