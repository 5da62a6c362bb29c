/**
 * A browser's cookie store, by RFC 6265 (with the RFC 6265bis rules every
 * current browser follows): `Set-Cookie` parsed leniently as browsers do,
 * domain and path matching, `Expires` and `Max-Age` (which wins),
 * `Secure` cookies only from and to `https:` origins, the `__Secure-` and
 * `__Host-` prefixes; a `Domain` that is a public suffix (`com`, `co.uk`,
 * `github.io`, from a built-in list of the common ones) is refused. `HttpOnly` and `SameSite` are kept on the stored
 * cookie (a test client is no script, and its requests are same-site).
 *
 * @module
 */
import { parseCookieDate } from "./_date.ts";
import { isPublicSuffix } from "./_public_suffix.ts";

/** One cookie as the jar holds it. */
export interface StoredCookie {
  /** The cookie's name. */
  readonly name: string;
  /** Its value, as sent (quotes and all). */
  readonly value: string;
  /** The host it belongs to (lower case, no leading dot). */
  readonly domain: string;
  /** `true` without a `Domain` attribute: sent to exactly that host only. */
  readonly hostOnly: boolean;
  /** The path it is sent under. */
  readonly path: string;
  /** Sent only over `https:`. */
  readonly secure: boolean;
  /** Marked `HttpOnly` (hidden from scripts; a jar sends it anyway). */
  readonly httpOnly: boolean;
  /** The `SameSite` attribute as given (`Strict`, `Lax`, `None`), if any. */
  readonly sameSite: "Strict" | "Lax" | "None" | undefined;
  /** When it expires (milliseconds since the epoch); `undefined` for a session cookie. */
  readonly expires: number | undefined;
  /** When it was first stored (milliseconds): older cookies are sent first. */
  readonly creation: number;
}

/** Options of {@linkcode CookieJar}. */
export interface CookieJarOptions {
  /** The clock, in milliseconds since the epoch; default `Date.now`. Tests move it to expire cookies. */
  now?: () => number;
}

// RFC 6265bis 5.6: name plus value at most 4096 bytes, an attribute value at most 1024.
const MAX_NAME_VALUE = 4096;
const MAX_ATTRIBUTE_VALUE = 1024;
// Browsers cap Max-Age and Expires at 400 days (RFC 6265bis 5.6.1).
const MAX_AGE_CAP_MS = 400 * 24 * 60 * 60 * 1000;

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

function isIpAddress(host: string): boolean {
  return host.startsWith("[") || host.includes(":") || IPV4.test(host);
}

/**
 * RFC 6265 5.1.3: `host` domain-matches `domain` when they are equal, or
 * `host` is a host name (not an IP address) ending in `.` + `domain`.
 */
export function domainMatch(host: string, domain: string): boolean {
  host = host.toLowerCase();
  domain = domain.toLowerCase();
  if (host === domain) return true;
  return !isIpAddress(host) && host.endsWith("." + domain);
}

/** RFC 6265 5.1.4: the directory of a request path, the path a cookie gets without `Path`. */
export function defaultPath(requestPath: string): string {
  if (!requestPath.startsWith("/")) return "/";
  const last = requestPath.lastIndexOf("/");
  return last === 0 ? "/" : requestPath.slice(0, last);
}

/** RFC 6265 5.1.4: whether a cookie with `cookiePath` is sent for `requestPath`. */
export function pathMatch(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/";
}

function trimSpace(text: string): string {
  // WSP only (space and tab), as the RFC says; not all of String.trim's set.
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) {
    end--;
  }
  return text.slice(start, end);
}

interface Parsed {
  name: string;
  value: string;
  expires?: number;
  maxAge?: number;
  domain?: string;
  path?: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: "Strict" | "Lax" | "None";
}

// Control characters other than tab make browsers drop the whole cookie (6265bis 5.6).
// deno-lint-ignore no-control-regex -- refusing control characters is the point
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** RFC 6265 5.2: a `Set-Cookie` value, or `undefined` when it is ignored. */
function parseSetCookie(header: string): Parsed | undefined {
  if (CONTROL.test(header)) return undefined;
  const semicolon = header.indexOf(";");
  const pair = semicolon === -1 ? header : header.slice(0, semicolon);
  const equals = pair.indexOf("=");
  if (equals === -1) return undefined;
  const name = trimSpace(pair.slice(0, equals));
  const value = trimSpace(pair.slice(equals + 1));
  if (name === "" || name.length + value.length > MAX_NAME_VALUE) {
    return undefined;
  }
  const cookie: Parsed = { name, value, secure: false, httpOnly: false };
  if (semicolon === -1) return cookie;
  // Each attribute overrides an earlier one of the same name.
  for (const part of header.slice(semicolon + 1).split(";")) {
    const at = part.indexOf("=");
    const key = trimSpace(at === -1 ? part : part.slice(0, at)).toLowerCase();
    const text = at === -1 ? "" : trimSpace(part.slice(at + 1));
    if (text.length > MAX_ATTRIBUTE_VALUE) continue;
    switch (key) {
      case "expires": {
        const date = parseCookieDate(text);
        if (date !== undefined) cookie.expires = date.getTime();
        break;
      }
      case "max-age":
        // 1*DIGIT, or "-" then digits; anything else is ignored.
        if (/^-?\d+$/.test(text)) cookie.maxAge = Number(text);
        break;
      case "domain":
        if (text !== "") {
          cookie.domain = (text.startsWith(".") ? text.slice(1) : text)
            .toLowerCase();
        }
        break;
      case "path":
        cookie.path = text;
        break;
      case "secure":
        cookie.secure = true;
        break;
      case "httponly":
        cookie.httpOnly = true;
        break;
      case "samesite": {
        const lower = text.toLowerCase();
        cookie.sameSite = lower === "strict"
          ? "Strict"
          : lower === "lax"
          ? "Lax"
          : lower === "none"
          ? "None"
          : undefined;
        break;
      }
    }
  }
  return cookie;
}

function isSecureScheme(url: URL): boolean {
  return url.protocol === "https:" || url.protocol === "wss:";
}

function toUrl(url: string | URL): URL {
  return typeof url === "string" ? new URL(url) : url;
}

/**
 * A cookie store that behaves as a browser's: give it each response's
 * `Set-Cookie` headers with the URL they came from, ask it for the
 * `Cookie` header of the next request.
 *
 * @example
 * ```ts
 * import { CookieJar } from "@fetchkit/toolkit/testing";
 *
 * const jar = new CookieJar();
 * jar.setCookie("sid=abc; Path=/; HttpOnly", "http://localhost/login");
 * jar.setCookie("theme=dark; Path=/settings", "http://localhost/settings");
 * jar.cookieHeader("http://localhost/settings/colors"); // "theme=dark; sid=abc"
 * jar.cookieHeader("http://localhost/"); // "sid=abc"
 * jar.get("sid"); // "abc"
 * ```
 */
export class CookieJar {
  #cookies: StoredCookie[] = [];
  readonly #now: () => number;

  /**
   * Makes an empty jar.
   *
   * @param options The clock.
   */
  constructor(options: CookieJarOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Stores one `Set-Cookie` value received from `url`, by RFC 6265's rules.
   * A cookie that expires now removes the stored one of the same name,
   * domain and path.
   *
   * @param header One `Set-Cookie` header value.
   * @param url The URL of the response that set it.
   * @returns The stored cookie, or `undefined` when it was ignored or deleted.
   */
  setCookie(header: string, url: string | URL): StoredCookie | undefined {
    const from = toUrl(url);
    const parsed = parseSetCookie(header);
    if (parsed === undefined) return undefined;
    const now = this.#now();
    const host = from.hostname.toLowerCase();
    let domain = host;
    let hostOnly = true;
    if (parsed.domain !== undefined) {
      // A Domain the request's host is not within: ignored, as browsers do.
      if (!domainMatch(host, parsed.domain)) return undefined;
      // An IP address is only ever its own domain.
      if (isIpAddress(host) && parsed.domain !== host) return undefined;
      // A public suffix ("com", "co.uk", "github.io") would reach every
      // site under it: refused, or host-only on that very host (RFC 6265
      // 5.3 step 5).
      if (isPublicSuffix(parsed.domain)) {
        if (parsed.domain !== host) return undefined;
      } else {
        domain = parsed.domain;
        hostOnly = false;
      }
    }
    const path = parsed.path !== undefined && parsed.path.startsWith("/")
      ? parsed.path
      : defaultPath(from.pathname);
    const secureOrigin = isSecureScheme(from);
    // 6265bis: only a secure origin may set a Secure cookie...
    if (parsed.secure && !secureOrigin) return undefined;
    // ... and the prefixes promise what they say.
    const lowerName = parsed.name.toLowerCase();
    if (lowerName.startsWith("__secure-") && !parsed.secure) return undefined;
    if (
      lowerName.startsWith("__host-") &&
      // An explicit "Path=/", not one defaulted from a request path.
      (!parsed.secure || !hostOnly || parsed.path !== "/")
    ) return undefined;
    let expires: number | undefined;
    if (parsed.maxAge !== undefined) {
      expires = parsed.maxAge <= 0
        ? -Infinity
        : now + Math.min(parsed.maxAge * 1000, MAX_AGE_CAP_MS);
    } else if (parsed.expires !== undefined) {
      expires = Math.min(parsed.expires, now + MAX_AGE_CAP_MS);
    }
    // 6265bis 5.7 step 16: an insecure origin cannot shadow a Secure cookie.
    if (!secureOrigin) {
      const shadows = this.#cookies.some((old) =>
        old.secure && old.name === parsed.name &&
        (domainMatch(old.domain, domain) || domainMatch(domain, old.domain)) &&
        pathMatch(old.path, path)
      );
      if (shadows) return undefined;
    }
    const index = this.#cookies.findIndex((old) =>
      old.name === parsed.name && old.domain === domain && old.path === path
    );
    const creation = index === -1 ? now : this.#cookies[index].creation;
    if (index !== -1) this.#cookies.splice(index, 1);
    if (expires !== undefined && expires <= now) return undefined;
    const cookie: StoredCookie = {
      name: parsed.name,
      value: parsed.value,
      domain,
      hostOnly,
      path,
      secure: parsed.secure,
      httpOnly: parsed.httpOnly,
      sameSite: parsed.sameSite,
      expires,
      creation,
    };
    this.#cookies.push(cookie);
    return cookie;
  }

  /**
   * Stores every `Set-Cookie` of a response received from `url`.
   *
   * @param response The response.
   * @param url The URL it answered.
   */
  storeResponse(response: Response, url: string | URL): void {
    for (const header of response.headers.getSetCookie()) {
      this.setCookie(header, url);
    }
  }

  /**
   * The cookies a browser would send to `url`, longest path first, then
   * oldest first (RFC 6265 5.4); every unexpired cookie without a URL.
   *
   * @param url The URL of the request, or none for every cookie.
   * @returns The cookies.
   */
  cookies(url?: string | URL): StoredCookie[] {
    const now = this.#now();
    this.#cookies = this.#cookies.filter((cookie) =>
      cookie.expires === undefined || cookie.expires > now
    );
    if (url === undefined) return [...this.#cookies];
    const to = toUrl(url);
    const host = to.hostname.toLowerCase();
    const secure = isSecureScheme(to);
    return this.#cookies
      .filter((cookie) =>
        (cookie.hostOnly
          ? host === cookie.domain
          : domainMatch(host, cookie.domain)) &&
        pathMatch(to.pathname, cookie.path) &&
        (!cookie.secure || secure)
      )
      .sort((a, b) => b.path.length - a.path.length || a.creation - b.creation);
  }

  /**
   * The `Cookie` header for a request to `url`: `""` when no cookie applies.
   *
   * @param url The URL of the request.
   * @returns The header value.
   */
  cookieHeader(url: string | URL): string {
    return this.cookies(url).map((c) => `${c.name}=${c.value}`).join("; ");
  }

  /**
   * The value of the cookie `name` that would be sent to `url` (the first
   * one, by the sending order), or of any unexpired cookie of that name
   * without a URL.
   *
   * @param name The cookie's name.
   * @param url The URL of a request.
   * @returns Its value, or `undefined`.
   */
  get(name: string, url?: string | URL): string | undefined {
    return this.cookies(url).find((cookie) => cookie.name === name)?.value;
  }

  /**
   * Removes cookies: those named `name` (every one without a name).
   *
   * @param name The cookie's name.
   */
  clear(name?: string): void {
    this.#cookies = name === undefined
      ? []
      : this.#cookies.filter((cookie) => cookie.name !== name);
  }
}
