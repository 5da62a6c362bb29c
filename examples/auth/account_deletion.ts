/**
 * What deleting an account removes besides the user record: see
 * `controllers/delete_account.ts` for the order and why the record goes
 * first.
 *
 * @module
 */
import type { EmailLinks } from "./email_verification.ts";
import type { IdentityStore } from "./oauth.ts";
import type { PasskeyStore } from "./passkeys.ts";
import type { ResetTokens } from "./password_reset.ts";
import type { TwoFactorStore } from "./two_factor.ts";
import type { User } from "./users.ts";

/** The stores an account's data lives in. */
export interface AccountData {
  passkeys: PasskeyStore;
  identities: IdentityStore;
  resetTokens: ResetTokens;
  emailLinks: EmailLinks;
  /**
   * Ends (deletes the stored data of) every session of the user but
   * `except` (the deleting browser's, which signs itself out).
   */
  endSessions?: (userId: number, except?: string) => Promise<void>;
  /** Removes the user's mail not yet sent. */
  removeJobs?: (user: User) => Promise<void>;
  /** The two-factor records (the TOTP secret and backup code hashes). */
  twoFactor?: Pick<TwoFactorStore, "disable">;
}

/**
 * `purge(user, { except })`: removes everything of `user` in `data`; the
 * session `except` is left to the caller to sign out.
 */
export function createAccountPurge(
  data: AccountData,
): (user: User, options?: { except?: string }) => Promise<void> {
  return async (user, options = {}) => {
    await data.endSessions?.(user.id, options.except);
    for (const passkey of await data.passkeys.listByUser(user.id)) {
      await data.passkeys.remove(user.id, passkey.id);
    }
    await data.identities.unlinkUser(user.id);
    await data.resetTokens.revoke(user.id);
    await data.emailLinks.revoke(user.id);
    await data.removeJobs?.(user);
    await data.twoFactor?.disable(user.id);
  };
}

/**
 * The mail jobs sent for each user, so deleting the account can remove
 * those still waiting: `["mail_jobs_by_user", userId, jobId]` in KV,
 * kept a day (a mail job is done, sent or dead, within about 40 minutes).
 */
export interface UserMailJobs {
  /** Remembers that job `id` mails `userId`. */
  record(userId: number, id: string): Promise<void>;
  /** Removes the user's jobs not yet running (`remove(id)`); forgets them. */
  removeAll(
    userId: number,
    remove: (id: string) => Promise<boolean>,
  ): Promise<number>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** {@linkcode UserMailJobs} on the app's KV database. */
export function createUserMailJobs(kv: Deno.Kv): UserMailJobs {
  return {
    async record(userId, id) {
      await kv.set(["mail_jobs_by_user", userId, id], true, {
        expireIn: DAY_MS,
      });
    },
    async removeAll(userId, remove) {
      let removed = 0;
      for await (
        const { key } of kv.list({ prefix: ["mail_jobs_by_user", userId] })
      ) {
        if (await remove(key[2] as string)) removed++;
        await kv.delete(key);
      }
      return removed;
    },
  };
}
