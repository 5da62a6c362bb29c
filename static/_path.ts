/**
 * From a request's encoded pathname to the decoded segments of a file path
 * below the mount prefix, refusing anything that could name a file outside
 * the root.
 *
 * @module
 */

/** What a request path means to `serveStatic`. */
export type PathLookup =
  /** Not below the prefix: not ours, pass it on. */
  | { readonly kind: "skip" }
  /** An attempt to leave the root (or a malformed path): answer 404. */
  | { readonly kind: "refuse" }
  /** Decoded segments below the root; `directory` when the path ends in `/`. */
  | {
    readonly kind: "file";
    readonly segments: readonly string[];
    readonly directory: boolean;
  };

const SKIP: PathLookup = { kind: "skip" };
const REFUSE: PathLookup = { kind: "refuse" };

/**
 * Normalizes a mount prefix: leading `/`, no trailing `/` ("" for the root).
 *
 * @throws {TypeError} When the prefix has no leading slash.
 */
export function normalizePrefix(prefix: string): string {
  if (!prefix.startsWith("/")) {
    throw new TypeError(
      `serveStatic(): prefix must start with "/", got "${prefix}"`,
    );
  }
  return prefix.replace(/\/+$/, "");
}

/**
 * Splits `pathname` (still percent-encoded) below `prefix` into decoded
 * segments. Refused: a raw or encoded backslash, an encoded slash, a NUL
 * byte, a `.` or `..` segment (raw or encoded), an empty segment (`//`) and a
 * malformed escape. `new URL()` already removes raw dot segments, but a
 * request target reaching `Deno.serve` or a hand-made URL string need not
 * have gone through it.
 */
export function lookupPath(pathname: string, prefix: string): PathLookup {
  if (!pathname.startsWith(prefix)) return SKIP;
  const rest = pathname.slice(prefix.length);
  if (rest === "") return { kind: "file", segments: [], directory: false };
  if (rest.charCodeAt(0) !== 47 /* / */) return SKIP; // "/static2" is not below "/static"
  if (rest.includes("\\")) return REFUSE;
  const raw = rest.slice(1).split("/");
  const directory = raw[raw.length - 1] === "";
  if (directory) raw.pop();
  const segments: string[] = [];
  for (const part of raw) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return REFUSE;
    }
    if (
      segment === "" || segment === "." || segment === ".." ||
      /[/\\\0]/.test(segment)
    ) {
      return REFUSE;
    }
    segments.push(segment);
  }
  return { kind: "file", segments, directory };
}
