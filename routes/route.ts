/**
 * `Route`: a named pattern with its methods and schemas, and `href()` to
 * build its URL from parameters.
 *
 * @module
 */

import type { HrefArgs, HrefOptions, ParamValue } from "./params.ts";
import { pickSchemas, type RouteSchemas } from "./schemas.ts";
import {
  encodePathText,
  parsePattern,
  type PatternToken,
  tokensStartWithSlash,
} from "../matcher/pattern.ts";

/**
 * One route: an HTTP method and a URL pattern. `ANY` matches every method.
 *
 * @example Build a URL
 * ```ts
 * import { Route } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const show = new Route("GET", "/posts/:id");
 * show.href({ id: 42 }); // "/posts/42"
 * show.href({ id: "a b" }, { search: { tab: "comments" } }); // "/posts/a%20b?tab=comments"
 * ```
 *
 * @example A route with schemas: the router validates its input
 * ```ts
 * import { Route } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const create = new Route("POST", "/notes", { body: z.object({ title: z.string() }) });
 * create.schemas?.body; // the body schema
 * ```
 */
export class Route<
  M extends string = string,
  P extends string = string,
  S extends RouteSchemas = RouteSchemas,
> {
  /** The HTTP method in upper case, or `ANY`. */
  readonly method: M;
  /** The URL pattern, always with a leading slash. */
  readonly pattern: P;
  /**
   * The route's schemas (`params`, `query`, `body`, `response`), or
   * `undefined` for a route without any.
   */
  readonly schemas: S | undefined;
  // Parsed once; parsing also validates the pattern when the route is made.
  readonly #tokens: readonly PatternToken[];
  readonly #delimiters: RegExp | undefined;

  /**
   * Makes a route; the pattern is parsed and checked here, once.
   *
   * @param method An HTTP method, or `ANY`.
   * @param pattern A URL pattern (see the package README for its syntax).
   * @param schemas Standard Schemas of what the route takes and gives.
   *
   * @example
   * ```ts
   * import { Route } from "@fetchkit/toolkit/fetch-router/routes";
   *
   * const feed = new Route("GET", "/feed(.:format)");
   * ```
   */
  constructor(method: M, pattern: P, schemas?: S) {
    this.#tokens = parsePattern(pattern);
    if (!tokensStartWithSlash(this.#tokens)) {
      throw new TypeError(
        `Invalid route pattern "${pattern}": it must start with "/" (route helpers add it for you)`,
      );
    }
    this.method = method.toUpperCase() as M;
    this.pattern = pattern;
    this.#delimiters = delimitersOf(this.#tokens);
    this.schemas = schemas === undefined
      ? undefined
      : pickSchemas(schemas) as S | undefined;
  }

  /**
   * Builds the URL path of this route. Values are percent-encoded (a
   * wildcard keeps its slashes); an optional group is kept when all its
   * parameters are given. A missing required parameter is a `TypeError`
   * naming it, as is a value that would make a path segment `.` or `..`
   * (URLs remove such segments, escaped or not, so no request could
   * carry it back).
   *
   * @param args The parameters, then options such as `search`.
   * @returns The path, with the query string when `search` was given.
   */
  href(...args: HrefArgs<P>): string {
    const [params, options] = args as [
      Record<string, ParamValue | null | undefined> | undefined,
      HrefOptions | undefined,
    ];
    const path = build(
      this.#tokens,
      params ?? {},
      this.pattern,
      true,
      this.#delimiters,
    )!;
    checkDotSegments(path, this.pattern);
    // Every group of `(/:lang)(/page/:n)` left out: the path "/".
    return (path || "/") + searchOf(options?.search);
  }

  /** The method and pattern, as `GET /posts/:id`. */
  toString(): string {
    return `${this.method} ${this.pattern}`;
  }
}

/**
 * The characters to percent-encode in parameter values beyond
 * `encodeURIComponent`'s: the first character of each static text that
 * follows a variable (`.` in `/:name.:ext`). A value holding one could end
 * the variable early when the path is matched back, so `href()` then match
 * gives back the same params.
 */
function delimitersOf(tokens: readonly PatternToken[]): RegExp | undefined {
  const chars = new Set<string>();
  let afterVariable = false;
  const walk = (list: readonly PatternToken[]) => {
    for (const token of list) {
      if (token.type === "optional") walk(token.tokens);
      else if (token.type === "text") {
        const char = token.value[0];
        if (
          afterVariable && char !== "/" && /[-_.!~*'()A-Za-z0-9]/.test(char)
        ) {
          chars.add(char);
        }
        afterVariable = false;
      } else afterVariable = true;
    }
  };
  walk(tokens);
  if (chars.size === 0) return undefined;
  const escaped = [...chars].map((c) => c.replace(/[-\]\\^]/g, "\\$&"));
  return new RegExp(`[${escaped.join("")}]`, "g");
}

function percent(char: string): string {
  return "%" + char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0");
}

/** Whether a group holds a named variable (else `href()` leaves it out). */
function hasValue(tokens: readonly PatternToken[]): boolean {
  return tokens.some((t) =>
    t.type === "optional"
      ? hasValue(t.tokens)
      : t.type !== "text" && t.name !== undefined
  );
}

// "." and "..", plain or percent-encoded in any case: the URL parser
// resolves these segments away (WHATWG URL "single-dot path segment").
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Refuses a built path that the URL parser would change. */
function checkDotSegments(path: string, pattern: string): void {
  for (const segment of path.split("/")) {
    if (DOT_SEGMENT.test(segment)) {
      throw new TypeError(
        `href() for route pattern "${pattern}" would make the path segment "${segment}", which URLs remove as a dot segment; a parameter value cannot be "." or ".." (nor hold one between slashes)`,
      );
    }
  }
}

/** Builds a path from tokens; `undefined` when an optional group lacks a value. */
function build(
  tokens: readonly PatternToken[],
  params: Record<string, ParamValue | null | undefined>,
  pattern: string,
  required: boolean,
  delimiters: RegExp | undefined,
): string | undefined {
  let out = "";
  for (const token of tokens) {
    if (token.type === "text") {
      out += encodePathText(token.value);
    } else if (token.type === "optional") {
      // Groups without a value to put in (like "(.html)" or "(/*)") are left
      // out: the shorter URL.
      if (!hasValue(token.tokens)) continue;
      out += build(token.tokens, params, pattern, false, delimiters) ?? "";
    } else if (token.name === undefined) {
      continue; // a bare "*" has no value to put back
    } else {
      const value = params[token.name];
      const text = value === undefined || value === null ? "" : String(value);
      // A parameter is never empty (the matcher would not match it back);
      // a wildcard may be.
      if (
        value === undefined || value === null ||
        (text === "" && token.type === "param")
      ) {
        if (!required) return undefined;
        throw new TypeError(
          value === undefined || value === null
            ? `Missing parameter "${token.name}" for route pattern "${pattern}"`
            : `Empty parameter "${token.name}" for route pattern "${pattern}": a parameter matches one or more characters`,
        );
      }
      if (!text.isWellFormed()) {
        throw new TypeError(
          `Parameter "${token.name}" for route pattern "${pattern}" holds a lone surrogate (not valid Unicode)`,
        );
      }
      const encode = (part: string) => {
        const encoded = encodeURIComponent(part);
        return delimiters === undefined
          ? encoded
          : encoded.replace(delimiters, percent);
      };
      out += token.type === "wildcard"
        ? text.split("/").map(encode).join("/")
        : encode(text);
    }
  }
  return out;
}

function searchOf(search: HrefOptions["search"]): string {
  if (search === undefined) return "";
  let query: string;
  if (typeof search === "string") {
    query = search.startsWith("?") ? search.slice(1) : search;
  } else if (search instanceof URLSearchParams) {
    query = search.toString();
  } else {
    const pairs = new URLSearchParams();
    for (const [key, value] of Object.entries(search)) {
      if (Array.isArray(value)) {
        for (const item of value) pairs.append(key, String(item));
      } else pairs.append(key, String(value));
    }
    query = pairs.toString();
  }
  return query === "" ? "" : "?" + query;
}
