/** Turns an `application/x-www-form-urlencoded` body into `FormData`. */

import type { BodyReader } from "./_body.ts";
import { ByteCollector } from "./_bytes.ts";
import type { Limits } from "./_limits.ts";
import { utf8Length } from "../response/body_size.ts";
import { MaxFieldsExceededError, MaxFieldSizeExceededError } from "./errors.ts";

// A leading BOM is data (WHATWG: "UTF-8 decode without BOM"), as in Deno.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Reads the whole body (bounded by `maxTotalSize`) and checks field limits. */
export async function parseUrlEncodedBody(
  body: BodyReader,
  limits: Limits,
): Promise<FormData> {
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
  return parseUrlEncodedBytes(collected.bytes(), limits);
}

/** Parses a whole urlencoded body, with the field limits. */
export function parseUrlEncodedBytes(
  bytes: Uint8Array,
  limits: Limits,
): FormData {
  const form = new FormData();
  let fields = 0;
  // Browsers percent-encode every non-ASCII byte, so a body is nearly
  // always ASCII, and then decoding it whole first (URLSearchParams, about
  // twice as fast) gives the same pairs. Raw non-ASCII bytes take the
  // byte-level path.
  const pairs = isAscii(bytes) ? asciiPairs(bytes) : parsePairs(bytes);
  for (const [name, value] of pairs) {
    if (++fields > limits.maxFields) {
      throw new MaxFieldsExceededError(limits.maxFields, { fieldName: name });
    }
    if (fieldSize(value, limits.maxFieldSize) > limits.maxFieldSize) {
      throw new MaxFieldSizeExceededError(limits.maxFieldSize, {
        fieldName: name,
      });
    }
    form.append(name, value);
  }
  return form;
}

/** A value's UTF-8 size, counted only when it could pass `max`. */
function fieldSize(text: string, max: number): number {
  return text.length * 3 <= max ? text.length : utf8Length(text);
}

/**
 * The WHATWG urlencoded parser on bytes: split on `&` and the first `=`,
 * `+` to space, percent-decode, then UTF-8 decode each name and value.
 * Decoding the whole body first (as `new URLSearchParams(text)` needs)
 * would turn a raw non-ASCII byte next to a percent escape (`\xc7%80`)
 * into two U+FFFD instead of the one character the bytes spell.
 */
function* parsePairs(bytes: Uint8Array): Generator<[string, string]> {
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x26, /* & */ start);
    if (end === -1) end = bytes.length;
    if (end > start) {
      let eq = bytes.indexOf(0x3d, /* = */ start);
      if (eq === -1 || eq > end) eq = end;
      yield [
        decodeComponent(bytes, start, eq),
        decodeComponent(bytes, Math.min(eq + 1, end), end),
      ];
    }
    start = end + 1;
  }
}

function asciiPairs(bytes: Uint8Array): URLSearchParams {
  const text = decoder.decode(bytes);
  // URLSearchParams drops a leading "?" of a string (it is for query
  // strings); a form body keeps it, as the URL standard's form parser does.
  return new URLSearchParams(
    text.charCodeAt(0) === 63 /* ? */ ? "&" + text : text,
  );
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
  return true;
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
