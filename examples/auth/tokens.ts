/**
 * The app's random tokens and digests: the links mailed for a password
 * reset or an email address (32 random bytes, base64url), and the SHA-256
 * digests stored in their place (hex for link records, base64url for mail
 * keys and device handles).
 *
 * @module
 */

/** A link token's shape: 43 base64url characters (32 bytes). */
export const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** `bytes` as base64url without padding. */
export function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
}

/** A new link token: 32 random bytes, base64url. */
export function newLinkToken(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The SHA-256 digest of `text`'s UTF-8 bytes. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
}

/** The SHA-256 digest of `text`, in lower-case hex: what a link is stored as. */
export async function sha256Hex(text: string): Promise<string> {
  return Array.from(await sha256(text), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}
