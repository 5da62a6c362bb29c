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
 */

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
      stack[stack.length - 1].push({ type: "optional", tokens });
    } else {
      text += char;
    }
  }
  flush();
  if (stack.length !== 1) {
    throw new TypeError(`Invalid route pattern "${pattern}": unclosed "("`);
  }
  return stack[0];
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
 * Joins a base and a pattern with exactly one slash between them; the
 * result always starts with a slash. `join("blog", "/")` is `/blog`.
 */
export function joinPatterns(base: string, pattern: string): string {
  const head = base.replace(/^\/+/, "").replace(/\/+$/, "");
  const tail = pattern.replace(/^\/+/, "");
  if (head === "") return "/" + tail;
  if (tail === "") return "/" + head;
  // An optional group right after the base brings its own slash: "(/:page)".
  return tail[0] === "(" ? `/${head}${tail}` : `/${head}/${tail}`;
}
