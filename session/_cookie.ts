/**
 * Strict cookie parsing and serialization after RFC 6265 section 4.1.
 * Only the few shapes the session cookie needs, so every input is checked
 * against the grammar rather than escaped: nothing a caller passes can add an
 * attribute or a second cookie.
 *
 * @module
 */

/** RFC 7230 `token`: what a cookie name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 6265 `cookie-octet`s, without the optional surrounding quotes. */
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
/** `path-value`: any CHAR except CTLs and ";". */
const PATH_VALUE = /^[\x20-\x3A\x3C-\x7E]+$/;
/** A host name: letters, digits, hyphens and dots (RFC 1034 labels). */
const DOMAIN_VALUE =
  /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** Attributes of a `Set-Cookie` header, already validated. */
export interface CookieAttributes {
  domain?: string;
  path?: string;
  expires?: Date;
  maxAge?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Strict" | "Lax" | "None";
  partitioned?: boolean;
}

/** Tells whether `value` is made of RFC 6265 cookie-octets. */
export function isCookieValue(value: string): boolean {
  return COOKIE_VALUE.test(value);
}

/** Tells whether `name` is a valid cookie name. */
export function isCookieName(name: string): boolean {
  return TOKEN.test(name);
}

/** Tells whether `path` is a valid `Path` attribute value. */
export function isCookiePath(path: string): boolean {
  return PATH_VALUE.test(path);
}

/** Tells whether `domain` is a valid `Domain` attribute value. */
export function isCookieDomain(domain: string): boolean {
  return DOMAIN_VALUE.test(domain);
}

/**
 * The most values of one cookie name read from a `Cookie` header. Browsers
 * keep at most 180 cookies per site (Chrome and Firefox), so a sibling
 * subdomain cannot plant enough junk values ahead of the real one to push
 * it past this bound.
 */
export const MAX_COOKIE_VALUES = 180;

/**
 * Returns every value of the cookie `name` in a `Cookie` header, in header
 * order (at most `limit`). Browsers send several cookies of one name when
 * they differ in path or domain, and a sibling subdomain can plant some, so
 * the caller tries each rather than trusting the first.
 */
export function getCookieValues(
  header: string | null,
  name: string,
  limit: number = MAX_COOKIE_VALUES,
): string[] {
  const values: string[] = [];
  if (header === null || header === "") return values;
  // Fast path: most headers do not mention the name at all.
  if (!header.includes(name)) return values;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    if (pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value[0] === '"' && value.at(-1) === '"') {
      value = value.slice(1, -1);
    }
    if (!COOKIE_VALUE.test(value)) continue;
    values.push(value);
    if (values.length === limit) break;
  }
  return values;
}

/**
 * Serializes a `Set-Cookie` header value. The name, value and attributes
 * must already be valid; they are checked again here because a header is
 * the last place a stray `;` could still do harm.
 */
export function serializeCookie(
  name: string,
  value: string,
  attributes: CookieAttributes,
): string {
  if (!TOKEN.test(name)) throw new TypeError(`Invalid cookie name: ${name}`);
  if (!COOKIE_VALUE.test(value)) {
    throw new TypeError(`Invalid value for cookie ${name}`);
  }
  let header = `${name}=${value}`;
  if (attributes.maxAge !== undefined) {
    header += `; Max-Age=${Math.max(0, Math.floor(attributes.maxAge))}`;
  }
  if (attributes.domain !== undefined) {
    if (!DOMAIN_VALUE.test(attributes.domain)) {
      throw new TypeError(`Invalid cookie domain: ${attributes.domain}`);
    }
    header += `; Domain=${attributes.domain}`;
  }
  if (attributes.path !== undefined) {
    if (!PATH_VALUE.test(attributes.path)) {
      throw new TypeError(`Invalid cookie path: ${attributes.path}`);
    }
    header += `; Path=${attributes.path}`;
  }
  if (attributes.expires !== undefined) {
    header += `; Expires=${attributes.expires.toUTCString()}`;
  }
  if (attributes.httpOnly) header += "; HttpOnly";
  if (attributes.secure) header += "; Secure";
  if (attributes.sameSite !== undefined) {
    header += `; SameSite=${attributes.sameSite}`;
  }
  if (attributes.partitioned) header += "; Partitioned";
  return header;
}
