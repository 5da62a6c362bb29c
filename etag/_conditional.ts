/**
 * The preconditions of a `GET` or `HEAD` (RFC 9110 §13.2.2), in their
 * order: `If-Match` (strong comparison), else `If-Unmodified-Since`; then
 * `If-None-Match` (weak comparison), else `If-Modified-Since`. Dates are
 * compared only when the answer has `Last-Modified`; an unparsable date is
 * ignored (§13.1.3, §13.1.4).
 */

/** What the preconditions say to answer. */
export type Outcome = "send" | "not-modified" | "precondition-failed";

/** The quoted opaque tags of a list, each with whether `W/` preceded it. */
function* tags(header: string): Generator<{ opaque: string; weak: boolean }> {
  // Entity tags may hold commas, so the list is read quote by quote.
  let at = header.indexOf('"');
  while (at !== -1) {
    const end = header.indexOf('"', at + 1);
    if (end === -1) return;
    yield {
      opaque: header.slice(at, end + 1),
      weak: at >= 2 && header[at - 1] === "/" &&
        (header[at - 2] === "W" || header[at - 2] === "w"),
    };
    at = header.indexOf('"', end + 1);
  }
}

/**
 * Whether `If-None-Match` matches `tag` by the weak comparison: the
 * opaque parts are compared, `W/` ignored on both sides; `*` matches.
 */
export function ifNoneMatchMatches(header: string, tag: string): boolean {
  if (header.trim() === "*") return true;
  const opaque = tag.startsWith("W/") ? tag.slice(2) : tag;
  for (const item of tags(header)) {
    if (item.opaque === opaque) return true;
  }
  return false;
}

/**
 * Whether `If-Match` matches `tag` by the strong comparison: neither side
 * weak, the same opaque part; `*` matches any tagged answer.
 */
export function ifMatchMatches(header: string, tag: string): boolean {
  if (header.trim() === "*") return true;
  if (tag.startsWith("W/")) return false;
  for (const item of tags(header)) {
    if (!item.weak && item.opaque === tag) return true;
  }
  return false;
}

/** An HTTP date in ms, or `NaN`. */
function date(value: string | null): number {
  return value === null ? NaN : Date.parse(value);
}

/** What to answer a `GET` or `HEAD` whose `200` has `tag` and `lastModified`. */
export function evaluate(
  request: Headers,
  tag: string,
  lastModified: string | null,
): Outcome {
  const modified = date(lastModified);
  const ifMatch = request.get("if-match");
  if (ifMatch !== null && ifMatch.trim() !== "") {
    if (!ifMatchMatches(ifMatch, tag)) return "precondition-failed";
  } else {
    const since = date(request.get("if-unmodified-since"));
    if (modified > since) return "precondition-failed";
  }
  const ifNoneMatch = request.get("if-none-match");
  if (ifNoneMatch !== null) {
    return ifNoneMatchMatches(ifNoneMatch, tag) ? "not-modified" : "send";
  }
  const since = date(request.get("if-modified-since"));
  return modified <= since ? "not-modified" : "send";
}
