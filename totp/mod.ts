/**
 * Time-based one-time passwords (TOTP, RFC 6238 on HOTP, RFC 4226) for a
 * second factor with an authenticator app, and the backup codes that go
 * with it.
 *
 * - {@linkcode createTotpSecret} makes a random secret (base32, 20 bytes
 *   by default); {@linkcode totpUri} and {@linkcode totpQrSvg} hand it to
 *   an app (the `otpauth://` link and its QR code as inline SVG).
 * - {@linkcode verifyTotp} checks a code typed by the user: in constant
 *   time, one step (30 s) either side by default, and never a step at or
 *   before `afterStep`. Store the step it returns and give it back as
 *   `afterStep` next time: a code then works once (a code seen over a
 *   shoulder, or replayed from a log, is refused). Bad input (a code of
 *   the wrong length or with non-digits, a secret that is not base32)
 *   is `null`, never an exception; options out of range are a
 *   `TypeError` (a programming error, not input).
 * - {@linkcode createBackupCodes} makes the one-time codes a user keeps in
 *   case the phone is lost (`xxxx-xxxx`, 40 random bits each), and
 *   {@linkcode hashBackupCode} what to store of them (compare hashes;
 *   delete one when it is used).
 *
 * The HMACs are `@noble/hashes`' (synchronous; Web Crypto costs a promise
 * and a key import per call), the QR code's matrix `uqr`'s. The functions
 * that return promises do so to leave room for Web Crypto keys held
 * outside the process.
 *
 * @example
 * ```ts
 * import {
 *   createTotpSecret,
 *   totpCode,
 *   totpUri,
 *   verifyTotp,
 * } from "@fetchkit/toolkit/totp";
 *
 * const secret = createTotpSecret();
 * const uri = totpUri({ secret, issuer: "Example", account: "ada@example.com" });
 * // Show `uri` (and totpQrSvg(uri)); the user types the app's code:
 * const code = await totpCode(secret);
 * const accepted = await verifyTotp(secret, code);
 * if (accepted === null) throw new Error("wrong code");
 * // Keep accepted.step: the same code is refused from now on.
 * const again = await verifyTotp(secret, code, { afterStep: accepted.step });
 * if (again !== null) throw new Error("a code must work once");
 * ```
 *
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { encode as encodeQr } from "uqr";
import { decodeBase32, encodeBase32 } from "./_base32.ts";

/** The HMAC hash of a TOTP code. Authenticator apps all support `SHA-1`. */
export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";

/** How codes are made; the defaults are what every authenticator app uses. */
export interface TotpOptions {
  /** The time, in milliseconds since the epoch. Default `Date.now()`. */
  time?: number;
  /** Digits of a code. Default 6. */
  digits?: 6 | 8;
  /** Seconds per code. Default 30. */
  period?: number;
  /** The HMAC hash. Default `"SHA-1"`. */
  algorithm?: TotpAlgorithm;
}

/** Options of {@linkcode verifyTotp}. */
export interface VerifyTotpOptions extends TotpOptions {
  /**
   * Steps accepted either side of the current one, for clocks that drift
   * and codes typed as they change. Default 1 (±30 s); at most 10.
   */
  window?: number;
  /**
   * The step of the last code accepted for this secret: a code of this
   * step or an earlier one is refused (one code, one use).
   */
  afterStep?: number;
}

/** A code {@linkcode verifyTotp} accepted: store `step` as `afterStep`. */
export interface TotpMatch {
  /** The time step of the code (Unix time / period). */
  step: number;
}

/** Options of {@linkcode totpUri}. */
export interface TotpUriOptions {
  /** The base32 secret ({@linkcode createTotpSecret}). */
  secret: string;
  /** Who the account is with: the app's or site's name. No `:`. */
  issuer: string;
  /** Which account: an email or user name. No `:`. */
  account: string;
  /** Digits, when not 6. */
  digits?: 6 | 8;
  /** Seconds per code, when not 30. */
  period?: number;
  /** The hash, when not SHA-1. */
  algorithm?: TotpAlgorithm;
}

const HASHES = { "SHA-1": sha1, "SHA-256": sha256, "SHA-512": sha512 };
const MAX_WINDOW = 10;

interface Settings {
  digits: 6 | 8;
  period: number;
  hash: typeof sha1;
  time: number;
}

function settingsOf(options: TotpOptions = {}): Settings {
  const {
    digits = 6,
    period = 30,
    algorithm = "SHA-1",
    time = Date.now(),
  } = options;
  if (digits !== 6 && digits !== 8) {
    throw new TypeError(`TOTP digits must be 6 or 8, got ${digits}`);
  }
  if (!Number.isInteger(period) || period < 1 || period > 3600) {
    throw new TypeError(
      `TOTP period must be a whole number of seconds from 1 to 3600, got ${period}`,
    );
  }
  const hash = HASHES[algorithm];
  if (hash === undefined) {
    throw new TypeError(
      `TOTP algorithm must be "SHA-1", "SHA-256" or "SHA-512", got ${
        JSON.stringify(algorithm)
      }`,
    );
  }
  if (!Number.isFinite(time) || time < 0) {
    throw new TypeError(
      `TOTP time must be milliseconds since the epoch, got ${time}`,
    );
  }
  return { digits, period, hash, time };
}

const POWERS = { 6: 1_000_000, 8: 100_000_000 };

/** An HMAC keyed once: each candidate step starts from a copy of it. */
type KeyedHmac = ReturnType<typeof hmac.create>;

/** The HOTP code (RFC 4226) at counter `step`, from an HMAC keyed with the secret. */
function hotp(keyed: KeyedHmac, step: number, digits: 6 | 8): string {
  const counter = new Uint8Array(8);
  const view = new DataView(counter.buffer);
  // Steps fit in 53 bits: the high 32 bits and the low 32 bits.
  view.setUint32(0, Math.floor(step / 0x1_0000_0000));
  view.setUint32(4, step >>> 0);
  const mac = keyed.clone().update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) |
    (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % POWERS[digits]).padStart(digits, "0");
}

/**
 * A random TOTP secret of `bytes` bytes (default 20, 160 bits, as RFC 4226
 * recommends; from 16 to 64), in base32 without padding.
 *
 * @example
 * ```ts
 * import { createTotpSecret } from "@fetchkit/toolkit/totp";
 *
 * const secret = createTotpSecret();
 * if (secret.length !== 32) throw new Error("20 bytes are 32 characters");
 * ```
 */
export function createTotpSecret(bytes = 20): string {
  if (!Number.isInteger(bytes) || bytes < 16 || bytes > 64) {
    throw new TypeError(
      `A TOTP secret must be 16 to 64 bytes (128 to 512 bits), got ${bytes}`,
    );
  }
  return encodeBase32(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * The code of `secret` at `options.time` (default now). Throws a
 * `TypeError` when the secret is not base32.
 *
 * @example
 * ```ts
 * import { totpCode } from "@fetchkit/toolkit/totp";
 *
 * // RFC 6238, Appendix B: the ASCII secret "12345678901234567890".
 * const code = await totpCode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", {
 *   time: 59_000,
 *   digits: 8,
 * });
 * if (code !== "94287082") throw new Error(code);
 * ```
 */
export function totpCode(
  secret: string,
  options?: TotpOptions,
): Promise<string> {
  try {
    const settings = settingsOf(options);
    const key = decodeBase32(secret);
    if (key === null) {
      throw new TypeError(
        "A TOTP secret must be base32 (A-Z, 2-7), as createTotpSecret() makes",
      );
    }
    const step = Math.floor(settings.time / 1000 / settings.period);
    const keyed = hmac.create(settings.hash, key);
    return Promise.resolve(hotp(keyed, step, settings.digits));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Checks `code` against `secret`: the step of the code when it is one of
 * the `window` steps either side of now and after `afterStep`, else
 * `null`. Each candidate is compared in full (no early exit inside a
 * code), so the time taken says nothing about how close a guess was; the
 * current step is tried first, so a right code usually costs one HMAC.
 * A code of the wrong length or with anything but digits, and a secret
 * that is not base32, are `null`. Strip spaces users type inside codes
 * before.
 *
 * @example
 * ```ts
 * import { totpCode, verifyTotp } from "@fetchkit/toolkit/totp";
 *
 * const secret = "JBSWY3DPEHPK3PXP";
 * const thirtySecondsAgo = Date.now() - 30_000;
 * const code = await totpCode(secret, { time: thirtySecondsAgo });
 * if (!await verifyTotp(secret, code)) throw new Error("within the window");
 * if (await verifyTotp(secret, code, { window: 0 })) throw new Error("too old");
 * if (await verifyTotp(secret, "12a456") !== null) throw new Error("digits");
 * ```
 */
export function verifyTotp(
  secret: string,
  code: string,
  options: VerifyTotpOptions = {},
): Promise<TotpMatch | null> {
  try {
    return Promise.resolve(verifyNow(secret, code, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

function verifyNow(
  secret: string,
  code: string,
  options: VerifyTotpOptions,
): TotpMatch | null {
  const settings = settingsOf(options);
  const { window = 1, afterStep } = options;
  if (!Number.isInteger(window) || window < 0 || window > MAX_WINDOW) {
    throw new TypeError(
      `TOTP window must be a whole number of steps from 0 to ${MAX_WINDOW}, got ${window}`,
    );
  }
  if (afterStep !== undefined && !Number.isFinite(afterStep)) {
    throw new TypeError(
      `TOTP afterStep must be a step number, got ${afterStep}`,
    );
  }
  if (typeof code !== "string" || code.length !== settings.digits) return null;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return null;
  }
  const key = typeof secret === "string" ? decodeBase32(secret) : null;
  if (key === null) return null;

  const now = Math.floor(settings.time / 1000 / settings.period);
  // The key's pads are hashed once, not once per candidate.
  const keyed = hmac.create(settings.hash, key);
  // Now first, then one step back and one ahead, and so on: the usual
  // code costs one HMAC. A wrong code costs every candidate; each is
  // compared whole, so the time says nothing about how close a guess was
  // (only that it matched, which the answer says anyway).
  for (let distance = 0; distance <= window; distance++) {
    for (
      const step of distance === 0 ? [now] : [now - distance, now + distance]
    ) {
      if (step < 0 || (afterStep !== undefined && step <= afterStep)) continue;
      const expected = hotp(keyed, step, settings.digits);
      let difference = 0;
      for (let i = 0; i < expected.length; i++) {
        difference |= expected.charCodeAt(i) ^ code.charCodeAt(i);
      }
      if (difference === 0) return { step };
    }
  }
  return null;
}

function label(value: string, what: string): string {
  if (typeof value !== "string" || value === "" || value.includes(":")) {
    throw new TypeError(
      `The TOTP ${what} must be a non-empty string without ":", got ${
        JSON.stringify(value)
      }`,
    );
  }
  return encodeURIComponent(value);
}

/**
 * The `otpauth://totp/Issuer:account?secret=...&issuer=...` URI that
 * authenticator apps add an account from (as a link on a phone, or as a
 * QR code: {@linkcode totpQrSvg}). Issuer and account are
 * percent-encoded; neither may hold `:` (apps split the label there).
 *
 * @example
 * ```ts
 * import { totpUri } from "@fetchkit/toolkit/totp";
 *
 * const uri = totpUri({
 *   secret: "JBSWY3DPEHPK3PXP",
 *   issuer: "Acme Co",
 *   account: "ada@example.com",
 * });
 * const expected =
 *   "otpauth://totp/Acme%20Co:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20Co";
 * if (uri !== expected) throw new Error(uri);
 * ```
 */
export function totpUri(options: TotpUriOptions): string {
  const { secret, digits, period, algorithm } = options;
  const issuer = label(options.issuer, "issuer");
  const account = label(options.account, "account");
  if (decodeBase32(secret) === null) {
    throw new TypeError("The TOTP secret must be base32 (A-Z, 2-7)");
  }
  // Checks the optional parts with the same rules as the codes.
  settingsOf({ digits, period, algorithm, time: 0 });
  let uri = `otpauth://totp/${issuer}:${account}?secret=${
    secret.replace(/[\s=-]/g, "").toUpperCase()
  }&issuer=${issuer}`;
  if (algorithm !== undefined && algorithm !== "SHA-1") {
    uri += `&algorithm=${algorithm.replace("-", "")}`;
  }
  if (digits !== undefined && digits !== 6) uri += `&digits=${digits}`;
  if (period !== undefined && period !== 30) uri += `&period=${period}`;
  return uri;
}

/**
 * `uri` as a QR code in SVG, to put inline in a page: error correction
 * level M, a quiet zone of 4 modules, black on white, one `<path>` of
 * horizontal runs (about 6 KB for a 32-character secret and an email), scaling
 * to its box (`width`/`height` 100%, with a `viewBox`), with
 * `role="img"` and a label for screen readers. Throws a `RangeError`
 * for text longer than a QR code holds.
 *
 * @example
 * ```ts
 * import { totpQrSvg } from "@fetchkit/toolkit/totp";
 *
 * const svg = totpQrSvg("otpauth://totp/Acme:ada?secret=JBSWY3DPEHPK3PXP&issuer=Acme");
 * if (!svg.startsWith("<svg")) throw new Error(svg);
 * ```
 */
export function totpQrSvg(uri: string): string {
  if (typeof uri !== "string" || uri.length > 2048) {
    throw new RangeError(
      "A QR code for an authenticator app holds at most 2048 characters",
    );
  }
  const { data, size } = encodeQr(uri, { ecc: "M", border: 4 });
  let path = "";
  for (let y = 0; y < size; y++) {
    const row = data[y];
    let x = 0;
    while (x < size) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < size && row[x]) x++;
      path += `M${start} ${y}h${x - start}v1h${start - x}z`;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="100%" height="100%" shape-rendering="crispEdges" role="img" aria-label="QR code for an authenticator app"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`;
}

/**
 * `count` (default 10, at most 100) random backup codes, `xxxx-xxxx` in
 * lower-case base32: 40 random bits each. Show them once; store only
 * {@linkcode hashBackupCode}'s hashes.
 *
 * @example
 * ```ts
 * import { createBackupCodes } from "@fetchkit/toolkit/totp";
 *
 * const codes = createBackupCodes();
 * if (codes.length !== 10) throw new Error("ten");
 * if (!/^[a-z2-7]{4}-[a-z2-7]{4}$/.test(codes[0])) throw new Error(codes[0]);
 * ```
 */
export function createBackupCodes(count = 10): string[] {
  if (!Number.isInteger(count) || count < 1 || count > 100) {
    throw new TypeError(`Backup codes: count must be 1 to 100, got ${count}`);
  }
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    const text = encodeBase32(crypto.getRandomValues(new Uint8Array(5)))
      .toLowerCase();
    codes.push(`${text.slice(0, 4)}-${text.slice(4)}`);
  }
  return codes;
}

/**
 * A backup code as {@linkcode createBackupCodes} writes it, from what a
 * user typed (any case, with or without the hyphen or spaces), or `null`
 * when it cannot be one.
 *
 * @example
 * ```ts
 * import { normalizeBackupCode } from "@fetchkit/toolkit/totp";
 *
 * if (normalizeBackupCode(" ABCD EFGH ") !== "abcd-efgh") throw new Error();
 * if (normalizeBackupCode("123456") !== null) throw new Error();
 * ```
 */
export function normalizeBackupCode(code: string): string | null {
  if (typeof code !== "string" || code.length > 32) return null;
  const text = code.replace(/[\s-]/g, "").toLowerCase();
  return /^[a-z2-7]{8}$/.test(text)
    ? `${text.slice(0, 4)}-${text.slice(4)}`
    : null;
}

/** PBKDF2 iterations of a backup code's hash (see hashBackupCode). */
const BACKUP_ITERATIONS = 100_000;
const BACKUP_SALT = new TextEncoder().encode("fetchkit backup code v1");

/**
 * What to store of a backup code: `pbkdf2-sha256$100000$<hex>`, the same
 * for the same code (so a typed code is found by its hash). 40 random
 * bits would fall to a plain hash on a GPU in minutes; 100,000 PBKDF2
 * iterations (about 20-50 ms, once per code typed) make that centuries.
 * Accepts the forms {@linkcode normalizeBackupCode} does; throws a
 * `TypeError` for anything else.
 *
 * @example
 * ```ts
 * import { hashBackupCode } from "@fetchkit/toolkit/totp";
 *
 * const stored = await hashBackupCode("abcd-efgh");
 * if (stored !== await hashBackupCode("ABCDEFGH")) throw new Error();
 * ```
 */
export async function hashBackupCode(code: string): Promise<string> {
  const normal = normalizeBackupCode(code);
  if (normal === null) {
    throw new TypeError(
      "A backup code is 8 letters and digits (a-z, 2-7), as xxxx-xxxx",
    );
  }
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(normal),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    {
      name: "PBKDF2",
      hash: "SHA-256",
      salt: BACKUP_SALT,
      iterations: BACKUP_ITERATIONS,
    },
    key,
    256,
  );
  const hex = Array.from(
    new Uint8Array(bits),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
  return `pbkdf2-sha256$${BACKUP_ITERATIONS}$${hex}`;
}
