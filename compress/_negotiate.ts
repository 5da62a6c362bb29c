/**
 * `Accept-Encoding` negotiation (RFC 9110 §12.5.3).
 *
 * Each coding gets the q-value the header gives it by name, else the one
 * `*` gives, else 0 (not acceptable). The best coding with q > 0 wins; among
 * equal q-values the earlier one in `available` (br, zstd, gzip, deflate).
 * `identity` only competes when the header names it: `gzip;q=0.5,
 * identity` keeps the body as it is. When nothing is acceptable the body is
 * sent as it is, even with `identity;q=0`: never `406`.
 */

/** A content coding this middleware can produce. */
export type ContentCoding = "br" | "zstd" | "gzip" | "deflate";

/** Longest `Accept-Encoding` read; the rest is ignored (real ones are < 100 bytes). */
const MAX_HEADER = 1024;

/**
 * The coding to answer with, or `undefined` for the body as it is.
 *
 * @param header The request's `Accept-Encoding`, or `null`.
 * @param available The codings on offer, most preferred first.
 */
export function negotiate(
  header: string | null,
  available: readonly ContentCoding[],
): ContentCoding | undefined {
  // No header: the client said nothing, so send the body as it is.
  if (header === null || header === "") return undefined;
  // The common browser headers, answered without parsing.
  if (!header.includes(";") && !header.includes("*")) {
    const names =
      (header.length > MAX_HEADER ? header.slice(0, MAX_HEADER) : header)
        .toLowerCase();
    for (const coding of available) {
      if (listed(names, coding)) return coding;
    }
    return undefined;
  }
  const q = qualities(header);
  const star = q.get("*");
  let best: ContentCoding | undefined;
  let bestQ = 0;
  for (const coding of available) {
    const value = q.get(coding) ?? star ?? 0;
    if (value > bestQ) {
      best = coding;
      bestQ = value;
    }
  }
  const identity = q.get("identity");
  if (best !== undefined && identity !== undefined && identity > bestQ) {
    return undefined;
  }
  return best;
}

/** Whether the comma-separated `names` holds `coding` (no parameters). */
function listed(names: string, coding: string): boolean {
  let from = 0;
  for (;;) {
    const at = names.indexOf(coding, from);
    if (at === -1) return false;
    const end = at + coding.length;
    if (
      boundary(names, at - 1) && (end === names.length || boundary(names, end))
    ) {
      return true;
    }
    from = end;
  }
}

function boundary(text: string, index: number): boolean {
  if (index < 0) return true;
  const char = text.charCodeAt(index);
  return char === 0x2c /* , */ || char === 0x20 || char === 0x09;
}

/** ContentCoding name (lowercase) to q-value; the highest when a name repeats. */
function qualities(header: string): Map<string, number> {
  const result = new Map<string, number>();
  const text = header.length > MAX_HEADER
    ? header.slice(0, MAX_HEADER)
    : header;
  for (const item of text.split(",")) {
    const parts = item.split(";");
    const name = parts[0].trim().toLowerCase();
    if (name === "") continue;
    let q = 1;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i].trim();
      if (param.length < 2 || (param[0] !== "q" && param[0] !== "Q")) continue;
      if (param[1] !== "=") continue;
      q = parseQ(param.slice(2).trim());
    }
    const previous = result.get(name);
    if (previous === undefined || q > previous) result.set(name, q);
  }
  return result;
}

/** A qvalue (`0`, `0.5`, `1.000`); anything malformed counts as 0. */
function parseQ(text: string): number {
  if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text)) return 0;
  return Number(text);
}
