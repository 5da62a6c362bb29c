/**
 * Makes sure the admin named by `ADMIN_EMAIL` exists. An existing user
 * with that email is left as it is (its password is not changed).
 *
 * @module
 */
import type { Passwords } from "./passwords.ts";
import {
  EmailInUseError,
  type Role,
  type User,
  type UserStore,
} from "./users.ts";

/** What {@linkcode ensureAdmin} found or did. */
export interface AdminOutcome {
  /** `true` when the admin was made now. */
  created: boolean;
  /** The role of the user with that email (`admin` when created). */
  role: Role;
}

/** Creates the admin when no user has that email; says what it did. */
export async function ensureAdmin(
  users: UserStore,
  passwords: Passwords,
  admin: { email: string; password: string },
): Promise<AdminOutcome> {
  const existing = await users.findByEmail(admin.email);
  if (existing) return { created: false, role: existing.role };
  try {
    await users.create({
      email: admin.email,
      name: "Admin",
      role: "admin",
      password: await passwords.hash(admin.password),
    });
    return { created: true, role: "admin" };
  } catch (error) {
    if (!(error instanceof EmailInUseError)) throw error;
    // Made by another process starting at the same moment.
    const user = await users.findByEmail(admin.email);
    return { created: false, role: user?.role ?? "admin" };
  }
}

/** The start-up line about the admin. */
export function describeAdmin(email: string, outcome: AdminOutcome): string {
  if (outcome.created) return `Admin ${email} created.`;
  if (outcome.role === "admin") {
    return `Admin ${email} already there; its password was left as it is.`;
  }
  return `ADMIN_EMAIL ${email} exists with role ${outcome.role}, left unchanged.`;
}

/**
 * The start-up line without `ADMIN_EMAIL`: the admins there are (up to
 * three named), or how to make one when there is none.
 */
export function describeAdmins(users: readonly User[]): string {
  const admins = users.filter((user) => user.role === "admin")
    .map((user) => user.email);
  if (admins.length === 0) {
    return "No admin yet. To make one, start with ADMIN_EMAIL=admin@example.com " +
      "ADMIN_PASSWORD=<8+ characters> (a new email; existing users are left as they are).";
  }
  const more = admins.length > 3 ? ` and ${admins.length - 3} more` : "";
  return `${admins.length === 1 ? "Admin" : "Admins"}: ${
    admins.slice(0, 3).join(", ")
  }${more}.`;
}
