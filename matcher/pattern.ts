/**
 * Route pattern syntax, shared by `href()` (routes/) and the matcher
 * (router/). Not a public export of the package.
 *
 * - static text: `/posts/new`
 * - `:name`: one path segment or part of one (`/@:user`, `/:file.:ext`)
 * - `*name` or bare `*`: any text, slashes included (zero or more characters)
 * - `( )`: an optional group, which may nest: `/posts(/page/:page)`
 *
 * Names are `[A-Za-z_$][A-Za-z0-9_$]*`.
 *
 * Refused with a `TypeError` naming the pattern: `?` or `#`, unbalanced or
 * empty groups (`/users()`), a lone surrogate, two variables with no text
 * between them in any form of the pattern (`/*left*right`, `/:a:b`,
 * `/*left(/middle)*right`: where one ends and the next begins is a guess),
 * and more than {@link MAX_FORMS} forms once optional groups are expanded.
 *
 * @module
 */

/**
 * The most concrete forms a pattern may expand to: each optional group
 * doubles them, so 10 independent groups. Expanding is eager (one trie
 * branch per form), so without a bound 20 groups cost seconds and gigabytes.
 */
export const MAX_FORMS = 1024;

/** A piece of a parsed pattern. */
export type PatternToken =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "param"; readonly name: string }
  | { readonly type: "wildcard"; readonly name: string | undefined }
  | { readonly type: "optional"; readonly tokens: readonly PatternToken[] };

const NAME = /^[A-Za-z_$][\w$]*/;

/**
 * Parses a pattern into tokens; throws a `TypeError` on unbalanced groups,
 * a `:` without a name, or a `?`/`#` (patterns match the pathname only).
 */
export function parsePattern(pattern: string): PatternToken[] {
  if (!pattern.isWellFormed()) {
    throw new TypeError(
      `Invalid route pattern ${
        JSON.stringify(pattern)
      }: it holds a lone surrogate (not valid Unicode)`,
    );
  }
  if (/[?#]/.test(pattern)) {
    throw new TypeError(
      `Invalid route pattern "${pattern}": patterns match the pathname only; remove the "?" or "#" part`,
    );
  }
  const stack: PatternToken[][] = [[]];
  let text = "";
  const flush = () => {
    if (text !== "") {
      stack[stack.length - 1].push({ type: "text", value: text });
    }
    text = "";
  };
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === ":" || char === "*") {
      const name = NAME.exec(pattern.slice(i + 1))?.[0];
      if (char === ":" && name === undefined) {
        throw new TypeError(
          `Invalid route pattern "${pattern}": ":" at ${i} needs a parameter name`,
        );
      }
      flush();
      stack[stack.length - 1].push(
        char === ":"
          ? { type: "param", name: name! }
          : { type: "wildcard", name },
      );
      i += name?.length ?? 0;
    } else if (char === "(") {
      flush();
      stack.push([]);
    } else if (char === ")") {
      flush();
      if (stack.length === 1) {
        throw new TypeError(
          `Invalid route pattern "${pattern}": unmatched ")" at ${i}`,
        );
      }
      const tokens = stack.pop()!;
      if (tokens.length === 0) {
        throw new TypeError(
          `Invalid route pattern "${pattern}": empty optional group "()" at ${
            i - 1
          }`,
        );
      }
      stack[stack.length - 1].push({ type: "optional", tokens });
    } else {
      text += char;
    }
  }
  flush();
  if (stack.length !== 1) {
    throw new TypeError(`Invalid route pattern "${pattern}": unclosed "("`);
  }
  const forms = countForms(stack[0]);
  if (forms > MAX_FORMS) {
    throw new TypeError(
      `Invalid route pattern "${pattern}": it expands to more than ${MAX_FORMS} combinations of optional groups (each group doubles them); split it into several routes`,
    );
  }
  checkAdjacent(stack[0], pattern);
  return stack[0];
}

/** How many forms `expandOptionals` would make, without making them. */
function countForms(tokens: readonly PatternToken[]): number {
  let count = 1;
  for (const token of tokens) {
    if (token.type === "optional") count *= countForms(token.tokens) + 1;
    if (count > 1e9) return count;
  }
  return count;
}

/**
 * Refuses two variables that can meet with no text between them. Walks the
 * tokens tracking whether the text so far may end in a variable (groups can
 * be taken or skipped).
 */
function checkAdjacent(tokens: readonly PatternToken[], pattern: string): void {
  const walk = (list: readonly PatternToken[], after: boolean): boolean => {
    // `after`: some form so far ends with a variable.
    for (const token of list) {
      if (token.type === "text") after = false;
      else if (token.type === "optional") {
        after = walk(token.tokens, after) || after;
      } else {
        if (after) {
          throw new TypeError(
            `Invalid route pattern "${pattern}": ${
              token.type === "param" ? ":" : "*"
            }${
              token.name ?? ""
            } can follow another parameter or wildcard with no text between them, so where one ends is ambiguous`,
          );
        }
        after = true;
      }
    }
    return after;
  };
  walk(tokens, false);
}

/** A pattern with its optional groups resolved: only text, params and wildcards. */
export type FlatToken = Exclude<PatternToken, { type: "optional" }>;

/**
 * Every concrete form of a pattern, optional groups taken and left out.
 * The longest form comes first.
 */
export function expandOptionals(
  tokens: readonly PatternToken[],
): FlatToken[][] {
  let variants: FlatToken[][] = [[]];
  for (const token of tokens) {
    if (token.type === "optional") {
      const inner = expandOptionals(token.tokens);
      const next: FlatToken[][] = [];
      for (const variant of variants) {
        for (const choice of inner) next.push([...variant, ...choice]);
        next.push(variant);
      }
      variants = next;
    } else {
      for (const variant of variants) variant.push(token);
    }
  }
  return variants.map(mergeText);
}

function mergeText(tokens: FlatToken[]): FlatToken[] {
  const out: FlatToken[] = [];
  for (const token of tokens) {
    const last = out[out.length - 1];
    if (token.type === "text" && last?.type === "text") {
      out[out.length - 1] = { type: "text", value: last.value + token.value };
    } else {
      out.push(token);
    }
  }
  return out;
}

/**
 * Percent-encodes what a URL pathname would carry encoded (spaces,
 * non-ASCII, ...) so that static pattern text compares with `URL.pathname`.
 */
export function encodePathText(text: string): string {
  // The WHATWG path percent-encode set: C0 controls, space, " # < > ? ` { },
  // DEL and non-ASCII. "|" and "^" stay raw in URL pathnames.
  return PATH_ENCODE.test(text)
    ? text.replace(PATH_ENCODE_ALL, encodeURIComponent)
    : text;
}

// deno-lint-ignore no-control-regex -- C0 controls are part of the set
const PATH_ENCODE = /[\x00-\x20"#<>?`{}\x7f-\uffff]/;
// deno-lint-ignore no-control-regex -- as above
const PATH_ENCODE_ALL = /[\x00-\x20"#<>?`{}\x7f-\uffff]+/g;

/**
 * Joins a base and a pattern with exactly one slash between them; every
 * form of the result starts with a slash. `join("blog", "/")` is `/blog`.
 * Groups are understood (as Remix's `join`):
 *
 * - a group that brings its own slash follows the base directly:
 *   `join("posts", "(/:page)")` is `/posts(/:page)`, and with no base
 *   `join("", "(/:lang)/promo")` stays `(/:lang)/promo`;
 * - a group without one is its own segment: `join("posts", "(:page)")` is
 *   `/posts/(:page)`;
 * - a slash that ends the base inside its last group is dropped, as the
 *   base's own trailing slash is: `join("(a/)", "(b)")` is `/(a)/(b)`;
 * - a base ending in `/(group)` takes the slash into the group, so leaving
 *   the group out leaves no empty segment: `join("a/(:id)", "c")` is
 *   `/a(/:id)/c`.
 */
export function joinPatterns(base: string, pattern: string): string {
  let head = trimEnd(base.replace(/^\/+/, ""));
  const tail = pattern.replace(/^\/+/, "");
  const open = trailingGroup(head);
  if (open > 0 && head[open - 1] === "/" && head[open + 1] !== "/") {
    head = `${head.slice(0, open - 1)}(/${head.slice(open + 1)}`;
  }
  // A group (or nested groups) opening with a slash brings its own.
  const groupSlash = /^\(+\//.test(tail);
  if (head === "") {
    return groupSlash && tokensStartWithSlash(parsePattern(tail))
      ? tail
      : "/" + tail;
  }
  if (tail === "") return "/" + head;
  return groupSlash ? `/${head}${tail}` : `/${head}/${tail}`;
}

/**
 * `base` without the slashes it ends with, inside its closing groups too
 * (Remix strips the base's last separator even in a group): `(a/)` is
 * `(a)`, so `(a/)` joined with `(b)` is `(a)/(b)`, not `(a/)/(b)` (which
 * would need `/a//b`). A group left empty goes: `a(/)` is `a`.
 */
function trimEnd(base: string): string {
  let previous: string;
  do {
    previous = base;
    base = base.replace(/\/+$/, "").replace(/\/+(\)+)$/, "$1").replace(
      /\(\)(\)*)$/,
      "$1",
    );
  } while (base !== previous);
  return base;
}

/** Where the group that ends `text` opens, or -1 when it does not end with one. */
function trailingGroup(text: string): number {
  if (!text.endsWith(")")) return -1;
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ")") depth++;
    else if (text[i] === "(" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Whether every form of the tokens starts with "/", but the form that
 * leaves every group out when the pattern is only groups: that form is
 * the path "/" (`(/:lang)(/page/:n)` serves `/`, as in Remix).
 */
export function tokensStartWithSlash(tokens: readonly PatternToken[]): boolean {
  return tokens.length > 0 && startsWithSlash(tokens);
}

function startsWithSlash(tokens: readonly PatternToken[]): boolean {
  const first = tokens[0];
  if (first === undefined) return true;
  if (first.type === "text") return first.value[0] === "/";
  if (first.type !== "optional") return false;
  return tokensStartWithSlash(first.tokens) && startsWithSlash(tokens.slice(1));
}
