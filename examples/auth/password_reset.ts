/**
 * Password reset tokens in Deno KV.
 *
 * - A token is 32 random bytes (base64url, 43 characters), sent only in
 *   the mail's link. KV holds its SHA-256, so a copy of the database
 *   cannot be turned into working links.
 * - It expires {@linkcode RESET_TTL_MS} (30 minutes) after it was made.
 *   The record stores its own expiry, checked on every read (KV's
 *   `expireIn`, also set, deletes lazily).
 * - It works once: using it deletes it in the same atomic commit that
 *   checks it is still there, so two uses racing each other cannot both
 *   succeed.
 * - One per user: asking again replaces the previous link, which stops
 *   working.
 *
 * @module
 */

import { LINK_TOKEN_SHAPE, newLinkToken, sha256Hex } from "./tokens.ts";

/** How long a reset link works: 30 minutes. */
export const RESET_TTL_MS = 30 * 60 * 1000;

interface ResetRecord {
  userId: number;
  /** Epoch ms. */
  expiresAt: number;
}

const byHash = (hash: string) => ["password_resets", hash];
const byUser = (userId: number) => ["password_reset_by_user", userId];

/** The reset tokens. */
export interface ResetTokens {
  /** Makes a token for `userId`, replacing any earlier one. */
  issue(userId: number): Promise<string>;
  /** The user a valid token is for, or `null` (unknown, used, expired). */
  check(token: string): Promise<number | null>;
  /** Like `check()`, and deletes it: the one use. */
  consume(token: string): Promise<number | null>;
  /** Deletes the user's link, if any (account deletion). */
  revoke(userId: number): Promise<void>;
}

/** Options of {@linkcode createResetTokens}. */
export interface ResetTokenOptions {
  /** How long a token works, in ms. Default {@linkcode RESET_TTL_MS}. */
  ttlMs?: number;
}

/** The reset tokens over an open KV database. */
export function createResetTokens(
  kv: Deno.Kv,
  options: ResetTokenOptions = {},
): ResetTokens {
  const ttl = options.ttlMs ?? RESET_TTL_MS;

  async function find(token: string) {
    if (!LINK_TOKEN_SHAPE.test(token)) return null;
    const entry = await kv.get<ResetRecord>(byHash(await sha256Hex(token)));
    if (entry.value === null || Date.now() >= entry.value.expiresAt) {
      return null;
    }
    return entry as Deno.KvEntry<ResetRecord>;
  }

  return {
    async issue(userId) {
      const token = newLinkToken();
      const hash = await sha256Hex(token);
      const record: ResetRecord = { userId, expiresAt: Date.now() + ttl };
      while (true) {
        const previous = await kv.get<string>(byUser(userId));
        const commit = kv.atomic().check(previous)
          .set(byHash(hash), record, { expireIn: ttl })
          .set(byUser(userId), hash, { expireIn: ttl });
        if (previous.value !== null) commit.delete(byHash(previous.value));
        if ((await commit.commit()).ok) return token;
      }
    },
    async check(token) {
      return (await find(token))?.value.userId ?? null;
    },
    async consume(token) {
      const entry = await find(token);
      if (!entry) return null;
      const { userId } = entry.value;
      const result = await kv.atomic().check(entry)
        .delete(entry.key)
        .delete(byUser(userId))
        .commit();
      return result.ok ? userId : null;
    },
    async revoke(userId) {
      const hash = (await kv.get<string>(byUser(userId))).value;
      const commit = kv.atomic().delete(byUser(userId));
      if (hash !== null) commit.delete(byHash(hash));
      await commit.commit();
    },
  };
}
