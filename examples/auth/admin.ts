/**
 * Makes sure the admin named by `ADMIN_EMAIL` exists. An existing user
 * with that email is left as it is (its password is not changed).
 *
 * @module
 */
import type { Passwords } from "./passwords.ts";
import { EmailInUseError, type UserStore } from "./users.ts";

/** Creates the admin when no user has that email; says what it did. */
export async function ensureAdmin(
  users: UserStore,
  passwords: Passwords,
  admin: { email: string; password: string },
): Promise<"created" | "exists"> {
  if (await users.findByEmail(admin.email)) return "exists";
  try {
    await users.create({
      email: admin.email,
      name: "Admin",
      role: "admin",
      password: await passwords.hash(admin.password),
    });
    return "created";
  } catch (error) {
    if (error instanceof EmailInUseError) return "exists";
    throw error;
  }
}
