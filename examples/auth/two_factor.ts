/**
 * Two-factor authentication with an authenticator app: what is stored
 * per user, and how a code typed at sign-in (or to turn it off) is
 * checked.
 *
 * | rule | how |
 * | ---- | --- |
 * | a code works once | the step of the last accepted code is stored (`lastStep`) and `verifyTotp()` refuses that step and earlier ones; the store's compare-and-set makes two requests with one code race to one winner |
 * | clock drift | codes one step (30 s) either side of now are accepted |
 * | backup codes | 10, shown once when 2FA is turned on; only their PBKDF2 hashes are stored (`hashBackupCode()`), and a used one is deleted (compare-and-set: used twice at once, one wins) |
 * | new backup codes | `replaceBackupCodes()` swaps all the hashes at once (compare-and-set: a code used meanwhile cannot come back); the new codes are shown once, the old ones stop working |
 * | wrong codes | 5 attempts per account in 15 minutes, then the step is locked (`429` with `Retry-After`), and failures count against the client address's login budget, as passwords do (`controllers/two_factor.ts`) |
 * | pending sign-in | a correct password leaves the session not signed in, holding only the user's id and the time; after 5 minutes it is refused and the user logs in again |
 * | passkeys | a passkey sign-in skips this step: the device and its fingerprint, face or PIN are already two factors |
 *
 * The secret is stored as is (an authenticator needs it back); who can
 * read the database can make codes, as with every TOTP server. Encrypt
 * the KV value with a key kept elsewhere where that matters.
 *
 * @module
 */
import type { RequestContext } from "@fetchkit/toolkit/fetch-router";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import {
  hashBackupCode,
  normalizeBackupCode,
  verifyTotp,
} from "@fetchkit/toolkit/totp";
import { Session } from "./context.ts";
import { routes } from "./routes.ts";
import type { User } from "./users.ts";

/** The sign-in step's limit: a pending sign-in older than this is refused. */
export const PENDING_SIGN_IN_MS = 5 * 60 * 1000;
/** Backup codes made when 2FA is turned on. */
export const BACKUP_CODE_COUNT = 10;
/** The issuer shown in authenticator apps. */
export const TOTP_ISSUER = "fetchkit auth example";

/** One user's two-factor record. */
export interface TwoFactorRecord {
  userId: number;
  /** The TOTP secret (base32). */
  secret: string;
  /** When it was turned on. */
  enabledAt: Date;
  /** The step of the last code accepted: no code of it or before works. */
  lastStep: number;
  /** Hashes of the backup codes not used yet. */
  backupCodes: string[];
}

/** What a typed code turned out to be. */
export type CodeCheck =
  | { ok: true; kind: "totp" | "backup"; backupCodesLeft: number }
  | { ok: false; reason: "wrong" | "reused" | "malformed" };

/** Where two-factor records live. */
export interface TwoFactorStore {
  get(userId: number): Promise<TwoFactorRecord | null>;
  /** Turns 2FA on (replacing any record) with the step of the first code. */
  enable(
    userId: number,
    change: { secret: string; lastStep: number; backupCodes: string[] },
  ): Promise<TwoFactorRecord>;
  /** Turns 2FA off; `false` when it was not on. */
  disable(userId: number): Promise<boolean>;
  /**
   * Replaces every backup code with `codes` (stored hashed): the old ones
   * stop working. `false` when 2FA is not on.
   */
  replaceBackupCodes(userId: number, codes: string[]): Promise<boolean>;
  /**
   * Checks a code typed by the user, a TOTP code or a backup code, and
   * uses it up when it is right.
   */
  check(userId: number, typed: string, now?: number): Promise<CodeCheck>;
}

const key = (userId: number) => ["two_factor", userId];

/** The digits of a TOTP code as typed ("123 456" too), else `null`. */
export function totpDigits(typed: string): string | null {
  const digits = typed.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** The two-factor records in Deno KV. */
export function createTwoFactorStore(kv: Deno.Kv): TwoFactorStore {
  async function get(userId: number) {
    return (await kv.get<TwoFactorRecord>(key(userId))).value;
  }

  async function checkTotp(
    userId: number,
    digits: string,
    now: number,
  ): Promise<CodeCheck> {
    while (true) {
      const entry = await kv.get<TwoFactorRecord>(key(userId));
      const record = entry.value;
      if (record === null) return { ok: false, reason: "wrong" };
      const match = await verifyTotp(record.secret, digits, {
        time: now,
        afterStep: record.lastStep,
      });
      if (match === null) {
        // Right code, already used: said so, so the user waits for the next.
        const used = await verifyTotp(record.secret, digits, { time: now });
        return { ok: false, reason: used ? "reused" : "wrong" };
      }
      const result = await kv.atomic().check(entry).set(key(userId), {
        ...record,
        lastStep: match.step,
      }).commit();
      if (result.ok) {
        return {
          ok: true,
          kind: "totp",
          backupCodesLeft: record.backupCodes.length,
        };
      }
      // Changed meanwhile (the same code at once elsewhere): check again.
    }
  }

  async function checkBackup(
    userId: number,
    code: string,
  ): Promise<CodeCheck> {
    const hash = await hashBackupCode(code);
    while (true) {
      const entry = await kv.get<TwoFactorRecord>(key(userId));
      const record = entry.value;
      if (record === null) return { ok: false, reason: "wrong" };
      const left = record.backupCodes.filter((stored) => stored !== hash);
      if (left.length === record.backupCodes.length) {
        return { ok: false, reason: "wrong" };
      }
      const result = await kv.atomic().check(entry).set(key(userId), {
        ...record,
        backupCodes: left,
      }).commit();
      if (result.ok) {
        return { ok: true, kind: "backup", backupCodesLeft: left.length };
      }
    }
  }

  return {
    get,
    async enable(userId, change) {
      const record: TwoFactorRecord = {
        userId,
        secret: change.secret,
        enabledAt: new Date(),
        lastStep: change.lastStep,
        backupCodes: await Promise.all(change.backupCodes.map(hashBackupCode)),
      };
      await kv.set(key(userId), record);
      return record;
    },
    async replaceBackupCodes(userId, codes) {
      const hashes = await Promise.all(codes.map(hashBackupCode));
      while (true) {
        const entry = await kv.get<TwoFactorRecord>(key(userId));
        if (entry.value === null) return false;
        const result = await kv.atomic().check(entry).set(key(userId), {
          ...entry.value,
          backupCodes: hashes,
        }).commit();
        if (result.ok) return true;
        // Changed meanwhile (a code used, a sign-in step): again.
      }
    },
    async disable(userId) {
      const entry = await kv.get(key(userId));
      if (entry.value === null) return false;
      await kv.delete(key(userId));
      return true;
    },
    check(userId, typed, now = Date.now()) {
      if (typeof typed !== "string" || typed.length > 64) {
        return Promise.resolve({ ok: false, reason: "malformed" });
      }
      const digits = totpDigits(typed);
      if (digits !== null) return checkTotp(userId, digits, now);
      const backup = normalizeBackupCode(typed);
      if (backup !== null) return checkBackup(userId, backup);
      return Promise.resolve({ ok: false, reason: "malformed" });
    },
  };
}

/**
 * Starts the second step after a right password: the session gets a new
 * id (as at any sign-in) and holds only who is signing in, when, and
 * where to go after; it is not signed in. Returns the redirect.
 */
export function startTwoFactor(
  context: RequestContext,
  user: User,
  returnTo: string | undefined,
): Response {
  const session = context.get(Session)!;
  session.regenerateId(true);
  session.unset("userId");
  session.set("twoFactorPending", {
    userId: user.id,
    at: Date.now(),
    returnTo,
  });
  return redirect(routes.twoFactor.login.href(), 303);
}

/** The secret in groups of four, as people copy it by hand. */
export function groupsOfFour(secret: string): string {
  return secret.match(/.{1,4}/g)?.join(" ") ?? "";
}
