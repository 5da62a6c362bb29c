/**
 * The users' passkeys in Deno KV, and the app's `createPasskeys()`.
 *
 * Each passkey is one entry under `["passkeys", credential id]` (the id is
 * unique across the site) and a marker under `["passkeys_by_user", user
 * id, credential id]` for the profile's list; both are written in one
 * atomic commit that checks the id is still free. A sign-in stores the new
 * counter with a compare-and-set on the entry, so two uses of one counter
 * value racing each other cannot both succeed.
 *
 * The WebAuthn user handle is the user's id as a decimal string: opaque,
 * and not the email (which an authenticator would keep).
 *
 * @module
 */
import type { Passkey, UsedChallengeStore } from "@fetchkit/toolkit/passkeys";

/** A passkey as the app keeps it: the toolkit's fields and the user's. */
export interface StoredPasskey extends Passkey {
  /** The name the user gave it ("Laptop"), at most 64 characters. */
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
}

/** The longest passkey name. */
export const MAX_PASSKEY_NAME = 64;

/** Thrown when a credential id is already stored. */
export class PasskeyTakenError extends Error {
  constructor() {
    super("This passkey is already registered");
    this.name = "PasskeyTakenError";
  }
}

/** Passkeys on Deno KV. */
export interface PasskeyStore {
  /** Stores a new passkey; {@linkcode PasskeyTakenError} when its id is. */
  add(passkey: StoredPasskey): Promise<void>;
  get(id: string): Promise<StoredPasskey | null>;
  /** The user's passkeys, oldest first. */
  listByUser(userId: number): Promise<StoredPasskey[]>;
  /**
   * Stores the counter and backup state of a sign-in, if the entry is
   * still as `before` was read; `false` when another sign-in came first.
   */
  recordUse(before: StoredPasskey, after: Passkey): Promise<boolean>;
  /** Renames the user's passkey; `false` when they have no such one. */
  rename(userId: number, id: string, name: string): Promise<boolean>;
  /** Deletes the user's passkey; `false` when they have no such one. */
  remove(userId: number, id: string): Promise<boolean>;
}

const byId = (id: string) => ["passkeys", id];
const byUser = (userId: number, id: string) => [
  "passkeys_by_user",
  userId,
  id,
];

/** Creates the passkey store over an open KV database. */
export function createPasskeyStore(kv: Deno.Kv): PasskeyStore {
  async function mine(userId: number, id: string) {
    const entry = await kv.get<StoredPasskey>(byId(id));
    return entry.value?.userId === String(userId) ? entry : null;
  }

  return {
    async add(passkey) {
      const userId = Number(passkey.userId);
      const result = await kv.atomic()
        .check({ key: byId(passkey.id), versionstamp: null })
        .set(byId(passkey.id), passkey)
        .set(byUser(userId, passkey.id), true)
        .commit();
      if (!result.ok) throw new PasskeyTakenError();
    },
    async get(id) {
      return (await kv.get<StoredPasskey>(byId(id))).value;
    },
    async listByUser(userId) {
      const ids: string[] = [];
      for await (
        const entry of kv.list({ prefix: ["passkeys_by_user", userId] })
      ) {
        ids.push(entry.key[2] as string);
      }
      const found: StoredPasskey[] = [];
      // getMany reads at most 10 keys at a time.
      for (let i = 0; i < ids.length; i += 10) {
        const entries = await kv.getMany<StoredPasskey[]>(
          ids.slice(i, i + 10).map(byId),
        );
        for (const entry of entries) if (entry.value) found.push(entry.value);
      }
      return found.sort((a, b) =>
        a.createdAt.getTime() - b.createdAt.getTime()
      );
    },
    async recordUse(before, after) {
      const entry = await kv.get<StoredPasskey>(byId(before.id));
      if (
        entry.value === null || entry.value.counter !== before.counter
      ) return false;
      const updated: StoredPasskey = {
        ...entry.value,
        counter: after.counter,
        backedUp: after.backedUp,
        lastUsedAt: new Date(),
      };
      const result = await kv.atomic().check(entry).set(
        byId(before.id),
        updated,
      )
        .commit();
      return result.ok;
    },
    async rename(userId, id, name) {
      const entry = await mine(userId, id);
      if (!entry) return false;
      const result = await kv.atomic().check(entry)
        .set(byId(id), { ...entry.value!, name }).commit();
      return result.ok;
    },
    async remove(userId, id) {
      const entry = await mine(userId, id);
      if (!entry) return false;
      await kv.atomic().check(entry).delete(byId(id))
        .delete(byUser(userId, id)).commit();
      return true;
    },
  };
}

/**
 * The record of used passkey challenges on Deno KV, for `createPasskeys({
 * usedChallenges })` when several instances of the app share one
 * database: each challenge is taken once (an atomic insert that fails when
 * the key exists) and expires with it. One instance alone can keep the
 * default, its memory.
 */
export function createUsedChallengeStore(kv: Deno.Kv): UsedChallengeStore {
  return {
    async use(challenge, expiresAt) {
      const key = ["passkey_challenges", challenge];
      const result = await kv.atomic()
        .check({ key, versionstamp: null })
        .set(key, true, { expireIn: Math.max(1000, expiresAt - Date.now()) })
        .commit();
      return result.ok;
    },
  };
}
