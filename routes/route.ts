import type { HrefArgs, HrefOptions, ParamValue } from "./params.ts";
import { encodePathText, parsePattern, type PatternToken } from "./pattern.ts";

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
 */
export class Route<M extends string = string, P extends string = string> {
  /** The HTTP method in upper case, or `ANY`. */
  readonly method: M;
  /** The URL pattern, always with a leading slash. */
  readonly pattern: P;
  // Parsed once; parsing also validates the pattern when the route is made.
  readonly #tokens: readonly PatternToken[];

  /**
   * Makes a route; the pattern is parsed and checked here, once.
   *
   * @param method An HTTP method, or `ANY`.
   * @param pattern A URL pattern (see the package README for its syntax).
   *
   * @example
   * ```ts
   * import { Route } from "@fetchkit/toolkit/fetch-router/routes";
   *
   * const feed = new Route("GET", "/feed(.:format)");
   * ```
   */
  constructor(method: M, pattern: P) {
    if (pattern[0] !== "/") {
      throw new TypeError(
        `Invalid route pattern "${pattern}": it must start with "/" (route helpers add it for you)`,
      );
    }
    this.method = method.toUpperCase() as M;
    this.pattern = pattern;
    this.#tokens = parsePattern(pattern);
  }

  /**
   * Builds the URL path of this route. Values are percent-encoded (a
   * wildcard keeps its slashes); an optional group is kept when all its
   * parameters are given. A missing required parameter is a `TypeError`
   * naming it.
   *
   * @param args The parameters, then options such as `search`.
   * @returns The path, with the query string when `search` was given.
   */
  href(...args: HrefArgs<P>): string {
    const [params, options] = args as [
      Record<string, ParamValue | null | undefined> | undefined,
      HrefOptions | undefined,
    ];
    const path = build(this.#tokens, params ?? {}, this.pattern, true)!;
    return path + searchOf(options?.search);
  }

  /** The method and pattern, as `GET /posts/:id`. */
  toString(): string {
    return `${this.method} ${this.pattern}`;
  }
}

/** Builds a path from tokens; `undefined` when an optional group lacks a value. */
function build(
  tokens: readonly PatternToken[],
  params: Record<string, ParamValue | null | undefined>,
  pattern: string,
  required: boolean,
): string | undefined {
  let out = "";
  for (const token of tokens) {
    if (token.type === "text") {
      out += encodePathText(token.value);
    } else if (token.type === "optional") {
      // Static-only groups (like "(.html)") are left out: the shorter URL.
      if (!token.tokens.some((t) => t.type !== "text")) continue;
      out += build(token.tokens, params, pattern, false) ?? "";
    } else if (token.name === undefined) {
      continue; // a bare "*" has no value to put back
    } else {
      const value = params[token.name];
      if (value === undefined || value === null) {
        if (!required) return undefined;
        throw new TypeError(
          `Missing parameter "${token.name}" for route pattern "${pattern}"`,
        );
      }
      const text = String(value);
      out += token.type === "wildcard"
        ? text.split("/").map(encodeURIComponent).join("/")
        : encodeURIComponent(text);
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
