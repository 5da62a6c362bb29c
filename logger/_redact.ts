/**
 * Path parameters of chosen routes kept out of log lines: a pathname
 * that matches one of the patterns has those segments replaced by the
 * parameter's name (`/password/reset/:token`).
 *
 * Matching is looser than the router's, since logging a secret is the
 * worse mistake: static segments are compared after decoding and in
 * any letter case, and empty segments (`//`, a trailing `/`) are skipped.
 *
 * @module
 */

import { pathStart } from "../url_path/url_path.ts";

/** The pathname with the chosen routes' parameters replaced. */
export type Redactor = (pathname: string) => string;

interface Pattern {
  /** Per segment: the static text (decoded, lower case), or null for a parameter. */
  statics: (string | null)[];
  /** Per segment: what a parameter is shown as (`:token`). */
  shown: string[];
}

const PARAM = /^:[A-Za-z_][A-Za-z0-9_]*$/;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

function compile(pattern: string): Pattern {
  const fail = (why: string) =>
    new TypeError(
      `logger(): redactPathParams "${pattern}" ${why}; write a route pattern such as "/password/reset/:token"`,
    );
  if (typeof pattern !== "string" || !pattern.startsWith("/")) {
    throw fail("does not start with /");
  }
  const segments = pattern.split("/").filter((segment) => segment !== "");
  const statics: (string | null)[] = [];
  const shown: string[] = [];
  for (const segment of segments) {
    if (segment.startsWith(":")) {
      if (!PARAM.test(segment)) throw fail(`has a bad parameter "${segment}"`);
      statics.push(null);
    } else statics.push(decoded(segment));
    shown.push(segment);
  }
  if (!statics.includes(null)) throw fail("has no :parameter");
  return { statics, shown };
}

/** A redactor for `patterns`, or undefined when there are none. */
export function compileRedactor(
  patterns: readonly string[] | undefined,
): Redactor | undefined {
  if (patterns === undefined) return undefined;
  if (!Array.isArray(patterns)) {
    throw new TypeError(
      "logger(): redactPathParams must be a list of route patterns",
    );
  }
  if (patterns.length === 0) return undefined;
  const compiled = patterns.map(compile);
  return (pathname) => {
    const parts = pathname.split("/");
    const filled: number[] = [];
    for (let i = 0; i < parts.length; i++) if (parts[i] !== "") filled.push(i);
    for (const { statics, shown } of compiled) {
      if (statics.length !== filled.length) continue;
      let matches = true;
      for (let s = 0; s < statics.length && matches; s++) {
        const text = statics[s];
        matches = text === null || decoded(parts[filled[s]]) === text;
      }
      if (!matches) continue;
      for (let s = 0; s < statics.length; s++) {
        if (statics[s] === null) parts[filled[s]] = shown[s];
      }
      return parts.join("/");
    }
    return pathname;
  };
}

/** `path` (a pathname with its search) with the pathname redacted. */
export function redactPath(redact: Redactor, path: string): string {
  const end = path.search(/[?#]/);
  return end === -1
    ? redact(path)
    : redact(path.slice(0, end)) + path.slice(end);
}

/** An absolute URL (a request's, a Referer) with its pathname redacted. */
export function redactUrl(redact: Redactor, url: string): string {
  const start = pathStart(url);
  if (start !== -1) {
    return url.slice(0, start) + redactPath(redact, url.slice(start));
  }
  // Other schemes, credentials, or not a URL: the parser decides.
  try {
    const parsed = new URL(url);
    const pathname = redact(parsed.pathname);
    if (pathname === parsed.pathname) return url;
    parsed.pathname = pathname;
    return parsed.href;
  } catch {
    // Not a URL at all (a Referer can be anything): treat it as a path.
    return redactPath(redact, url);
  }
}
