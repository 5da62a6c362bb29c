/**
 * Password hashing with bcrypt (`npm:bcrypt`, cost 12 by default).
 *
 * Checking an unknown email compares against a real hash of the same cost,
 * so a wrong email takes as long as a wrong password and response times do
 * not tell which emails have accounts.
 *
 * @module
 */
import bcrypt from "bcrypt";

/** bcrypt reads at most 72 bytes of a password and ignores the rest. */
export const MAX_PASSWORD_BYTES = 72;

/** The shortest password accepted, at registration and for the admin. */
export const MIN_PASSWORD_LENGTH = 8;

/** Hashes and checks passwords. */
export interface Passwords {
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `hash`. Without a hash (unknown user) it
   * still spends one comparison, then answers `false`.
   */
  verify(password: string, hash: string | undefined): Promise<boolean>;
}

/** Options of {@linkcode createPasswords}. */
export interface PasswordOptions {
  /** bcrypt cost factor (log2 of the rounds). Default 12. */
  cost?: number;
}

const encoder = new TextEncoder();

/**
 * Whether bcrypt reads all of `password`: at most 72 bytes of UTF-8 and no
 * NUL (bcrypt stops at the first one, so `"\0x"` would equal `""`).
 */
export function fitsBcrypt(password: string): boolean {
  return !password.includes("\0") &&
    encoder.encode(password).length <= MAX_PASSWORD_BYTES;
}

/** Creates the hasher; it computes its dummy hash once, here. */
export async function createPasswords(
  options: PasswordOptions = {},
): Promise<Passwords> {
  const cost = options.cost ?? 12;
  const dummy: string = await bcrypt.hash(crypto.randomUUID(), cost);
  return {
    async hash(password) {
      // The forms refuse such passwords first; this keeps any other caller
      // from storing a hash that a different password would also match.
      if (!fitsBcrypt(password)) {
        throw new TypeError(
          `A password must be at most ${MAX_PASSWORD_BYTES} bytes of UTF-8 without NUL`,
        );
      }
      return await bcrypt.hash(password, cost);
    },
    async verify(password, hash) {
      // Over 72 bytes or past a NUL bcrypt would compare a prefix: never a
      // match here.
      const match: boolean = await bcrypt.compare(password, hash ?? dummy);
      return match && fitsBcrypt(password) && hash !== undefined;
    },
  };
}
