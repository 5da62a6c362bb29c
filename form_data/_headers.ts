/**
 * Header parsing for form bodies: the request's `Content-Type` and the
 * headers of each multipart part.
 *
 * @module
 */

/** The parts of a multipart part's headers that a form needs. */
export interface PartHead {
  /** `name=` of `Content-Disposition`. */
  name: string;
  /** `filename*=` or `filename=`; `undefined` for a text field. */
  filename: string | undefined;
  /** `Content-Type` of the part, or `""` when it has none. */
  type: string;
  /**
   * `true` for a part without a (non-empty) `Content-Disposition`: it names
   * no field, so it is skipped, as browsers' and busboy's parsers do.
   */
  skip?: boolean;
}

/** The two body kinds `formData()` parses, with the multipart boundary. */
export type FormBodyKind =
  | { kind: "urlencoded" }
  | { kind: "multipart"; boundary: string | undefined };

const URLENCODED: FormBodyKind = Object.freeze({ kind: "urlencoded" });

/** Tells which form body `contentType` announces, or `null` for others. */
export function formBodyKind(contentType: string | null): FormBodyKind | null {
  if (contentType === null) return null;
  // What browsers send, as they send it: no slicing or lowering needed.
  if (contentType === "application/x-www-form-urlencoded") return URLENCODED;
  const semicolon = contentType.indexOf(";");
  const essence =
    (semicolon === -1 ? contentType : contentType.slice(0, semicolon))
      .trim().toLowerCase();
  if (essence === "application/x-www-form-urlencoded") return URLENCODED;
  if (essence !== "multipart/form-data") return null;
  const params = semicolon === -1
    ? new Map<string, string>()
    : parseParams(contentType, semicolon);
  return { kind: "multipart", boundary: params.get("boundary") };
}

// Header values are UTF-8 (browsers send raw UTF-8 names); the decoder is
// lenient, as browsers' own parsers are.
const decoder = new TextDecoder();

/**
 * Parses the raw header block of a part (without the final blank line).
 * Returns a string describing the problem when the headers are unusable.
 */
export function parsePartHead(raw: Uint8Array): PartHead | string {
  let disposition: string | undefined;
  let type = "";
  // Continuation lines (obsolete folding) join the previous header.
  const lines = decoder.decode(raw).split("\r\n");
  let lastName = "";
  for (const line of lines) {
    if (line === "") continue;
    if (line[0] === " " || line[0] === "\t") {
      // Joined with one space, and trimmed: a folded value that starts on
      // the continuation line must not keep a leading space.
      if (lastName === "content-disposition") {
        disposition = `${disposition ?? ""} ${line.trim()}`.trim();
      } else if (lastName === "content-type") {
        type = `${type} ${line.trim()}`.trim();
      }
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) return `a header line has no name: ${JSON.stringify(line)}`;
    lastName = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (lastName === "content-disposition") disposition = value;
    else if (lastName === "content-type") type = value;
  }
  // No Content-Disposition (or an empty one): the part names no field.
  // Browsers and busboy skip such a part and keep the rest of the body.
  if (disposition === undefined || disposition === "") {
    return { name: "", filename: undefined, type, skip: true };
  }
  const semicolon = disposition.indexOf(";");
  const dispositionType =
    (semicolon === -1 ? disposition : disposition.slice(0, semicolon)).trim()
      .toLowerCase();
  if (dispositionType !== "form-data") {
    return `a part's Content-Disposition is ${
      JSON.stringify(dispositionType)
    }, not form-data`;
  }
  const params = semicolon === -1
    ? new Map<string, string>()
    : parseParams(disposition, semicolon);
  const name = params.get("name");
  if (name === undefined) return "a part's Content-Disposition has no name";
  const extended = params.get("filename*");
  // A part with `filename*` is a file even when its value cannot be
  // decoded: then the plain `filename`, else the value as sent (after the
  // charset and language, when they are there).
  const filename = extended === undefined
    ? params.get("filename")
    : decodeExtendedValue(extended) ?? params.get("filename") ??
      undecodedExtendedValue(extended);
  return { name, filename, type };
}

/**
 * Reads `; key=value` parameters from `header`, starting at the first `;`.
 * Keys are lower-cased; values are tokens or quoted strings. Quoted strings
 * follow the Fetch standard's multipart/form-data parser: no backslash
 * escapes (browsers do not send them), and `%22`, `%0D`, `%0A` decoded back
 * to the bytes browsers escape that way.
 */
function parseParams(header: string, from: number): Map<string, string> {
  const params = new Map<string, string>();
  const length = header.length;
  let i = from;
  while (i < length) {
    // Skip the separator and white space before the key.
    while (
      i < length &&
      (header[i] === ";" || header[i] === " " || header[i] === "\t")
    ) i++;
    const keyStart = i;
    while (i < length && header[i] !== "=" && header[i] !== ";") i++;
    const key = header.slice(keyStart, i).trim().toLowerCase();
    if (i >= length || header[i] === ";") continue;
    i++; // "="
    while (i < length && (header[i] === " " || header[i] === "\t")) i++;
    let value: string;
    // An unterminated quote is no quoted string: the value is taken as
    // sent, quote included, as Deno's own parser does.
    const close = header[i] === '"' ? header.indexOf('"', i + 1) : -1;
    if (close !== -1) {
      value = unescapeQuoted(header.slice(i + 1, close));
      i = close + 1;
    } else {
      const semicolon = header.indexOf(";", i);
      const end = semicolon === -1 ? length : semicolon;
      value = header.slice(i, end).trim();
      i = end;
    }
    // The first occurrence wins, as in browsers.
    if (key !== "" && !params.has(key)) params.set(key, value);
  }
  return params;
}

function unescapeQuoted(value: string): string {
  if (!value.includes("%")) return value;
  return value.replace(/%(?:22|0d|0a)/gi, (escape) => {
    const code = escape.slice(1).toLowerCase();
    return code === "22" ? '"' : code === "0d" ? "\r" : "\n";
  });
}

/**
 * An extended value that cannot be decoded, as sent: the part after the
 * charset and language (`abc.txt` of `windows-1252''abc.txt`), or the
 * whole value when it lacks them.
 */
function undecodedExtendedValue(value: string): string {
  const first = value.indexOf("'");
  const second = first === -1 ? -1 : value.indexOf("'", first + 1);
  return second === -1 ? value : value.slice(second + 1);
}

/**
 * Decodes an RFC 8187 (formerly 5987) extended value such as
 * `UTF-8''na%C3%AFve.txt`; `undefined` when it cannot be decoded, so that
 * the plain `filename=` is used instead.
 */
function decodeExtendedValue(value: string): string | undefined {
  const first = value.indexOf("'");
  const second = first === -1 ? -1 : value.indexOf("'", first + 1);
  if (second === -1) return undefined;
  const charset = value.slice(0, first).trim().toLowerCase();
  const encoded = value.slice(second + 1);
  if (charset === "utf-8") {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
  }
  if (charset === "iso-8859-1" || charset === "latin1") {
    return encoded.replace(
      /%([0-9a-f]{2})/gi,
      (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
    );
  }
  return undefined;
}
