/**
 * Users in Deno KV. Each user is one entry under `["users", id]`; a second
 * entry under `["users_by_email", normalized email]` holds the id, so an
 * email is unique whatever its case. Both are written in one atomic commit
 * that checks the email entry is still absent, so two registrations of one
 * email racing each other cannot both succeed.
 *
 * Every look-up by email (login, reset, passkey sign-in, linking a
 * provider's verified email) goes through {@linkcode normalizeEmail}: the
 * ASCII letters lower-cased, nothing else touched. `toLowerCase()` or
 * Unicode normalization (NFC, NFKC) would map distinct addresses onto one:
 * `"\u212Aate@example.com"` (a Kelvin sign) would become
 * `kate@example.com`, and a provider that verifies the first would open
 * Kate's account. Mail servers compare the domain without case and
 * nearly all treat the local part so; no real address differs from
 * another only by the case of a non-ASCII letter it might be confused with.
 *
 * @module
 */

/** What a user may do. */
export type Role = "user" | "moderator" | "admin";

/** Every role, least privileged first. */
export const ROLES: readonly Role[] = ["user", "moderator", "admin"];

/** A user record, as stored. */
export interface User {
  /** Sequential, from an atomic counter. */
  id: number;
  /** As typed at registration; looked up by {@linkcode normalizeEmail}. */
  email: string;
  /** A bcrypt hash: the plain password is never stored. */
  password: string;
  /** Display name. */
  name: string;
  /** `user` unless made otherwise. */
  role: Role;
  /** When the user registered. */
  createdAt: Date;
  /**
   * Bumped when every session of the user must end (a password reset):
   * a session made before carries an older one and is signed out (see
   * `sign_in.ts`). Absent means 0.
   */
  generation?: number;
  /**
   * `true` when no password signs in: an account made by a provider
   * sign-in. Cleared when a reset sets a password. Absent means the
   * password was set by whoever registered or reset it.
   */
  passwordUnusable?: boolean;
  /**
   * `true` once the owner opened a link mailed to `email` (see
   * `email_verification.ts`), or a provider vouched for it. Absent means
   * not verified.
   */
  emailVerified?: boolean;
}

/** What a new user needs; `password` must already be a hash. */
export type NewUser = Omit<User, "id" | "createdAt" | "role" | "generation"> & {
  role?: Role;
};

/** Thrown by {@linkcode UserStore.create} when the email is taken. */
export class EmailInUseError extends Error {
  constructor(email: string) {
    super(`Email already in use: ${email}`);
    this.name = "EmailInUseError";
  }
}

/** Users on Deno KV. */
export interface UserStore {
  /** Creates a user; throws {@linkcode EmailInUseError} when the email is taken. */
  create(user: NewUser): Promise<User>;
  findById(id: number): Promise<User | null>;
  findByEmail(email: string): Promise<User | null>;
  /** Every user, by id. */
  list(): Promise<User[]>;
  /** Changes a user's role; `null` when there is no such user. */
  setRole(id: number, role: Role): Promise<User | null>;
  /**
   * Stores a new password hash and bumps `generation`, which ends every
   * session of the user; `null` when there is no such user.
   */
  setPassword(id: number, hash: string): Promise<User | null>;
  /**
   * Marks the email verified, if the user's email is still `email` (a
   * link for an address the user has since left verifies nothing);
   * `null` otherwise.
   */
  markEmailVerified(id: number, email: string): Promise<User | null>;
  /**
   * Moves the user to `email`, verified (the link was opened there), in
   * one atomic commit that checks the new address is free; throws
   * {@linkcode EmailInUseError} when it is taken, `null` when there is
   * no such user.
   */
  changeEmail(id: number, email: string): Promise<User | null>;
  /** Deletes the user and their email entry; `false` when absent. */
  remove(id: number): Promise<boolean>;
  /**
   * Bumps `generation`, which ends every session of the user (turning
   * two-factor authentication off); `null` when there is no such user.
   */
  bumpGeneration(id: number): Promise<User | null>;
}

const COUNTER = ["counters", "users"];
const byId = (id: number) => ["users", id];
/**
 * The key an email is found by: its ASCII letters lower-cased, every
 * other character as it is (see the module docs).
 */
export function normalizeEmail(email: string): string {
  return email.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

const byEmail = (email: string) => ["users_by_email", normalizeEmail(email)];

/** Creates the user store over an open KV database. */
export function createUserStore(kv: Deno.Kv): UserStore {
  async function findById(id: number): Promise<User | null> {
    return (await kv.get<User>(byId(id))).value;
  }

  async function create(user: NewUser): Promise<User> {
    const emailKey = byEmail(user.email);
    // Optimistic: retry when another registration took the next id first.
    while (true) {
      const [counter, existing] = await kv.getMany<[number, number]>([
        COUNTER,
        emailKey,
      ]);
      if (existing.value !== null) throw new EmailInUseError(user.email);
      const record: User = {
        role: "user",
        ...user,
        id: (counter.value ?? 0) + 1,
        createdAt: new Date(),
      };
      const result = await kv.atomic()
        .check(counter, { key: emailKey, versionstamp: null })
        .set(COUNTER, record.id)
        .set(byId(record.id), record)
        .set(emailKey, record.id)
        .commit();
      if (result.ok) return record;
    }
  }

  /** Compare-and-set of one user record; `null` when it is absent. */
  async function update(
    id: number,
    change: (user: User) => User,
  ): Promise<User | null> {
    while (true) {
      const entry = await kv.get<User>(byId(id));
      if (entry.value === null) return null;
      const updated = change(entry.value);
      const result = await kv.atomic().check(entry).set(byId(id), updated)
        .commit();
      if (result.ok) return updated;
    }
  }

  return {
    create,
    findById,
    async findByEmail(email) {
      const id = (await kv.get<number>(byEmail(email))).value;
      return id === null ? null : await findById(id);
    },
    async list() {
      const users: User[] = [];
      for await (const entry of kv.list<User>({ prefix: ["users"] })) {
        users.push(entry.value);
      }
      return users;
    },
    setRole: (id, role) => update(id, (user) => ({ ...user, role })),
    setPassword: (id, password) =>
      update(id, ({ passwordUnusable: _, ...user }) => ({
        ...user,
        password,
        generation: (user.generation ?? 0) + 1,
      })),
    async markEmailVerified(id, email) {
      const same = (user: User) =>
        normalizeEmail(user.email) === normalizeEmail(email);
      const user = await findById(id);
      if (!user || !same(user)) return null;
      const updated = await update(
        id,
        (user) => same(user) ? { ...user, emailVerified: true } : user,
      );
      return updated && same(updated) ? updated : null;
    },
    async changeEmail(id, email) {
      while (true) {
        const entry = await kv.get<User>(byId(id));
        if (entry.value === null) return null;
        const user = entry.value;
        const oldKey = byEmail(user.email);
        const newKey = byEmail(email);
        const updated: User = { ...user, email, emailVerified: true };
        const commit = kv.atomic().check(entry).set(byId(id), updated);
        if (oldKey[1] !== newKey[1]) {
          const taken = await kv.get<number>(newKey);
          if (taken.value !== null) throw new EmailInUseError(email);
          commit.check(taken).delete(oldKey).set(newKey, id);
        }
        if ((await commit.commit()).ok) return updated;
      }
    },
    async remove(id) {
      while (true) {
        const entry = await kv.get<User>(byId(id));
        if (entry.value === null) return false;
        const result = await kv.atomic().check(entry).delete(byId(id))
          .delete(byEmail(entry.value.email)).commit();
        if (result.ok) return true;
      }
    },
    bumpGeneration: (id) =>
      update(id, (user) => ({
        ...user,
        generation: (user.generation ?? 0) + 1,
      })),
  };
}
