/**
 * Turns an `application/x-www-form-urlencoded` body into `FormData`.
 *
 * @module
 */

import type { BodyReader } from "./body_reader.ts";
import { ByteCollector } from "./_bytes.ts";
import type { Limits } from "./limits.ts";
import { utf8Length } from "../response/body_size.ts";
import {
  FormDataParseError,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
} from "./errors.ts";

// A leading BOM is data (WHATWG: "UTF-8 decode without BOM"), as in Deno.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * A urlencoded form as names and values in turn (`[name0, value0, name1,
 * ...]`): one array per body, turned into a `FormData` or a record only
 * when a handler asks for one.
 */
export type FieldPairs = string[];

/** Reads the whole body (bounded by `maxTotalSize`) and checks field limits. */
export async function parseUrlEncodedBody(
  body: BodyReader,
  limits: Limits,
): Promise<FieldPairs> {
  // Packed as it comes, so that a body sent in tiny packets costs its size
  // rather than an array per packet.
  const collected = new ByteCollector();
  try {
    for (
      let chunk = await body.read();
      chunk !== null;
      chunk = await body.read()
    ) {
      collected.push(chunk);
    }
  } catch (error) {
    await body.cancel(error);
    throw error;
  }
  return parseUrlEncodedPairs(collected.bytes(), limits);
}

/** Parses a whole urlencoded body into a `FormData`, with the field limits. */
export function parseUrlEncodedBytes(
  bytes: Uint8Array,
  limits: Limits,
): FormData {
  return formFromPairs(parseUrlEncodedPairs(bytes, limits));
}

/** Parses a whole urlencoded body into pairs, with the field limits. */
export function parseUrlEncodedPairs(
  bytes: Uint8Array,
  limits: Limits,
): FieldPairs {
  // Browsers percent-encode every non-ASCII byte, so a body is nearly
  // always ASCII, and then decoding it whole first and cutting the text
  // gives the same pairs, faster. Raw non-ASCII bytes take the byte-level
  // path. Both come after the percent-encoding is checked.
  const ascii = asciiPairs(bytes);
  if (ascii !== null) return checkFields(ascii, limits);
  checkBytes(bytes);
  // Checked as they come: a huge body of tiny fields stops at maxFields.
  const pairs: FieldPairs = [];
  for (const part of parsePairs(bytes)) {
    pairs.push(part);
    if (pairs.length % 2 === 0) checkField(pairs, pairs.length - 2, limits);
  }
  return pairs;
}

/** Checks every field of `pairs` against the field limits, in order. */
function checkFields(pairs: FieldPairs, limits: Limits): FieldPairs {
  for (let i = 0; i < pairs.length; i += 2) checkField(pairs, i, limits);
  return pairs;
}

/** Checks the field whose name is at `pairs[i]`. */
function checkField(pairs: FieldPairs, i: number, limits: Limits): void {
  if (i >= limits.maxFields * 2) {
    throw new MaxFieldsExceededError(limits.maxFields, {
      fieldName: pairs[i],
    });
  }
  const value = pairs[i + 1]!;
  // A UTF-8 size counted only when the value could pass the limit.
  const max = limits.maxFieldSize;
  if (
    value.length > max || (value.length * 3 > max && utf8Length(value) > max)
  ) {
    throw new MaxFieldSizeExceededError(max, { fieldName: pairs[i] });
  }
}

/** A `FormData` holding `pairs`, in order. */
export function formFromPairs(pairs: FieldPairs): FormData {
  const form = new FormData();
  for (let i = 0; i < pairs.length; i += 2) {
    form.append(pairs[i]!, pairs[i + 1]!);
  }
  return form;
}

/**
 * The WHATWG urlencoded parser on bytes: split on `&` and the first `=`,
 * `+` to space, percent-decode, then UTF-8 decode each name and value.
 * Decoding the whole body first (as `new URLSearchParams(text)` needs)
 * would turn a raw non-ASCII byte next to a percent escape (`\xc7%80`)
 * into two U+FFFD instead of the one character the bytes spell.
 */
function* parsePairs(bytes: Uint8Array): Generator<string> {
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x26, /* & */ start);
    if (end === -1) end = bytes.length;
    if (end > start) {
      let eq = bytes.indexOf(0x3d, /* = */ start);
      if (eq === -1 || eq > end) eq = end;
      yield decodeComponent(bytes, start, eq);
      yield decodeComponent(bytes, Math.min(eq + 1, end), end);
    }
    start = end + 1;
  }
}

/**
 * The pairs of an all-ASCII body, cut in one pass over its text (on every
 * runtime cheaper than `URLSearchParams`; bench/runtimes/, "urlencoded
 * POST"), or `null` at the first character that is not ASCII: raw
 * non-ASCII bytes take the byte-level path. Throws a `FormDataParseError`
 * (400) at the first `%` not followed by two hexadecimal digits (see
 * `checkBytes`). A part without `%` needs no decoding; one whose escapes
 * are not UTF-8 (`%C3` alone) takes the byte-level decoder, which replaces
 * them with U+FFFD as the WHATWG parser does (ASCII: character index =
 * byte index).
 */
function asciiPairs(bytes: Uint8Array): FieldPairs | null {
  // Any byte over 0x7f decodes to a character over 0x7f (U+FFFD when it
  // is not UTF-8), so the text tells an ASCII body as the bytes would.
  const text = decoder.decode(bytes);
  const pairs: FieldPairs = [];
  const length = text.length;
  let start = 0;
  let eq = -1;
  // Bits: 1 a "+" in the name, 2 a "%" in the name, 4 and 8 in the value.
  let flags = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    // Letters and the punctuation past "=": nothing to note (one test for
    // most characters of a form, where the four below took four).
    if (code > 0x3d /* = */) {
      if (code > 0x7f) return null;
      continue;
    }
    if (code === 0x26 /* & */) {
      if (i > start) addPair(pairs, text, bytes, start, eq, i, flags);
      start = i + 1;
      eq = -1;
      flags = 0;
    } else if (code === 0x3d /* = */) {
      if (eq === -1) eq = i;
    } else if (code === 0x2b /* + */) {
      flags |= eq === -1 ? 1 : 4;
    } else if (code === 0x25 /* % */) {
      if (
        i + 2 >= length || hexValue(text.charCodeAt(i + 1)) === -1 ||
        hexValue(text.charCodeAt(i + 2)) === -1
      ) {
        // Not ASCII further on? The byte-level check finds this first.
        throw malformedPercent(bytes, i);
      }
      flags |= eq === -1 ? 2 : 8;
    }
  }
  // The end of the body ends the last pair, as an "&" would.
  if (length > start) addPair(pairs, text, bytes, start, eq, length, flags);
  return pairs;
}

/**
 * Adds the pair of `text[start, end)` (its first "=" at `eq`, -1 for
 * none; `flags` as in `asciiPairs`).
 */
function addPair(
  pairs: FieldPairs,
  text: string,
  bytes: Uint8Array,
  start: number,
  eq: number,
  end: number,
  flags: number,
): void {
  pairs.push(
    decodeAscii(text, bytes, start, eq === -1 ? end : eq, flags & 3),
    eq === -1 ? "" : decodeAscii(text, bytes, eq + 1, end, flags >> 2),
  );
}

/** A part of an ASCII body: `+` (flag 1) to space, `%` (flag 2) escapes. */
function decodeAscii(
  text: string,
  bytes: Uint8Array,
  start: number,
  end: number,
  flags: number,
): string {
  let part = text.slice(start, end);
  if ((flags & 1) !== 0) part = part.replaceAll("+", " ");
  if ((flags & 2) === 0) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    return decodeComponent(bytes, start, end);
  }
}

/**
 * Whether the body is all ASCII; throws a `FormDataParseError` (400) at the
 * first `%` not followed by two hexadecimal digits. Browsers send a literal
 * `%` as `%25`, so such a body comes from a broken or hostile client; the
 * WHATWG parser would keep the `%` as data, and Go's `url.ParseQuery`
 * refuses it, as we do, so that a handler never sees text the client did
 * not mean.
 */
function checkBytes(bytes: Uint8Array): boolean {
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte > 0x7f) ascii = false;
    else if (
      byte === 0x25 /* % */ &&
      (i + 2 >= bytes.length || hexValue(bytes[i + 1]) === -1 ||
        hexValue(bytes[i + 2]) === -1)
    ) {
      throw malformedPercent(bytes, i);
    }
  }
  return ascii;
}

/** Longest part of a malformed field name quoted in an error message. */
const NAME_PREVIEW = 40;

/** The error for a bad `%` at `at`, naming the field it is in. */
function malformedPercent(bytes: Uint8Array, at: number): FormDataParseError {
  const start = bytes.lastIndexOf(0x26, /* & */ at) + 1;
  let end = bytes.indexOf(0x26, /* & */ at);
  if (end === -1) end = bytes.length;
  let eq = bytes.indexOf(0x3d, /* = */ start);
  if (eq === -1 || eq > end) eq = end;
  const problem = `"%" at byte ${at} is not followed by two hexadecimal ` +
    `digits (a literal "%" is sent as "%25")`;
  if (at > eq) {
    // The name before it is well formed: the scan stops at the first error.
    const fieldName = decodeComponent(bytes, start, eq);
    return new FormDataParseError(
      `Malformed percent-encoding in the value of field ${
        JSON.stringify(fieldName)
      }: ${problem}`,
      { fieldName },
    );
  }
  const raw = new TextDecoder("latin1").decode(
    bytes.subarray(start, Math.min(eq, start + NAME_PREVIEW)),
  );
  const preview = JSON.stringify(raw) +
    (eq - start > NAME_PREVIEW
      ? ` (first ${NAME_PREVIEW} of ${eq - start} bytes)`
      : "");
  return new FormDataParseError(
    `Malformed percent-encoding in a field name ${preview}: ${problem}`,
  );
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function decodeComponent(
  bytes: Uint8Array,
  start: number,
  end: number,
): string {
  const out = new Uint8Array(end - start);
  let n = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte === 0x2b /* + */) out[n++] = 0x20;
    else if (byte === 0x25 /* % */ && i + 2 < end) {
      // checkBytes() has refused bad escapes; kept as sent, to be safe.
      const high = hexValue(bytes[i + 1]);
      const low = hexValue(bytes[i + 2]);
      if (high === -1 || low === -1) out[n++] = byte;
      else {
        out[n++] = high * 16 + low;
        i += 2;
      }
    } else out[n++] = byte;
  }
  return decoder.decode(out.subarray(0, n));
}
