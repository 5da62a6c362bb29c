/**
 * Email links in Deno KV: the link that verifies a new account's address,
 * and the link that moves an account to a new address.
 *
 * - A token is 32 random bytes (base64url, 43 characters), sent only in
 *   the mail's link (`GET /email/verify/:token`). KV holds its SHA-256,
 *   as for password reset links (`password_reset.ts`), so a copy of the
 *   database cannot be turned into working links.
 * - It expires {@linkcode EMAIL_LINK_TTL_MS} (24 hours) after it was
 *   made; the record stores its own expiry, checked on every read (KV's
 *   `expireIn`, also set, deletes lazily).
 * - It works once: using it deletes it in the same atomic commit that
 *   checks it is still there.
 * - One per user and purpose: asking again (the profile's "Send again",
 *   a second email change) replaces the earlier link, which stops working.
 * - A link names the address it was sent to: a verification link
 *   verifies only while the account still has that address, and a change
 *   link moves the account to exactly that address.
 *
 * @module
 */

import { LINK_TOKEN_SHAPE, newLinkToken, sha256Hex } from "./tokens.ts";

/** How long an email link works: 24 hours. */
export const EMAIL_LINK_TTL_MS = 24 * 60 * 60 * 1000;

/** What a link does: verify the account's address, or move it to another. */
export type EmailLinkPurpose = "verify" | "change";

/** What a token stands for. */
export interface EmailLink {
  userId: number;
  /** The address the link was sent to. */
  email: string;
  purpose: EmailLinkPurpose;
  /** Epoch ms. */
  expiresAt: number;
}

const byHash = (hash: string) => ["email_links", hash];
const byUser = (userId: number, purpose: EmailLinkPurpose) => [
  "email_link_by_user",
  userId,
  purpose,
];

/** The email links. */
export interface EmailLinks {
  /** Makes a link's token, replacing the user's earlier one of `purpose`. */
  issue(
    userId: number,
    email: string,
    purpose: EmailLinkPurpose,
  ): Promise<string>;
  /** What a valid token stands for, or `null` (unknown, used, expired). */
  check(token: string): Promise<EmailLink | null>;
  /** Like `check()`, and deletes it: the one use. */
  consume(token: string): Promise<EmailLink | null>;
  /** Deletes every link of the user (account deletion). */
  revoke(userId: number): Promise<void>;
}

/** Options of {@linkcode createEmailLinks}. */
export interface EmailLinkOptions {
  /** How long a link works, in ms. Default {@linkcode EMAIL_LINK_TTL_MS}. */
  ttlMs?: number;
}

/** The email links over an open KV database. */
export function createEmailLinks(
  kv: Deno.Kv,
  options: EmailLinkOptions = {},
): EmailLinks {
  const ttl = options.ttlMs ?? EMAIL_LINK_TTL_MS;

  async function find(token: string) {
    if (!LINK_TOKEN_SHAPE.test(token)) return null;
    const entry = await kv.get<EmailLink>(byHash(await sha256Hex(token)));
    if (entry.value === null || Date.now() >= entry.value.expiresAt) {
      return null;
    }
    return entry as Deno.KvEntry<EmailLink>;
  }

  return {
    async issue(userId, email, purpose) {
      const token = newLinkToken();
      const hash = await sha256Hex(token);
      const record: EmailLink = {
        userId,
        email,
        purpose,
        expiresAt: Date.now() + ttl,
      };
      while (true) {
        const previous = await kv.get<string>(byUser(userId, purpose));
        const commit = kv.atomic().check(previous)
          .set(byHash(hash), record, { expireIn: ttl })
          .set(byUser(userId, purpose), hash, { expireIn: ttl });
        if (previous.value !== null) commit.delete(byHash(previous.value));
        if ((await commit.commit()).ok) return token;
      }
    },
    async check(token) {
      return (await find(token))?.value ?? null;
    },
    async consume(token) {
      const entry = await find(token);
      if (!entry) return null;
      const { userId, purpose } = entry.value;
      const result = await kv.atomic().check(entry)
        .delete(entry.key)
        .delete(byUser(userId, purpose))
        .commit();
      return result.ok ? entry.value : null;
    },
    async revoke(userId) {
      for (const purpose of ["verify", "change"] as const) {
        const hash = (await kv.get<string>(byUser(userId, purpose))).value;
        const commit = kv.atomic().delete(byUser(userId, purpose));
        if (hash !== null) commit.delete(byHash(hash));
        await commit.commit();
      }
    },
  };
}

/** The verification mail's text. */
export function verificationMail(link: string): string {
  return [
    "Welcome! Please confirm that this address is yours by opening this link",
    "(it works once, for 24 hours):",
    "",
    link,
    "",
    "If you did not make an account, ignore this mail: nothing happens",
    "until the link is opened.",
  ].join("\n");
}

/** The mail to the new address of an email change. */
export function changeMail(link: string): string {
  return [
    "Someone (we hope you) asked to move an account to this address.",
    "Open this link, signed in to that account, to confirm it (it works",
    "once, for 24 hours):",
    "",
    link,
    "",
    "If you did not ask, ignore this mail: nothing changes.",
  ].join("\n");
}

/** The notice to the old address of an email change. */
export function changeNoticeMail(newEmail: string): string {
  return [
    `Someone signed in to your account asked to move it to ${newEmail}.`,
    "The address changes only when the link we sent there is opened.",
    "",
    "If this was not you, sign in, change your password (every other",
    "session ends), and check the devices signed in on the security page.",
  ].join("\n");
}
