/** Turns an `application/x-www-form-urlencoded` body into `FormData`. */

import type { BodyReader } from "./_body.ts";
import { ByteCollector } from "./_bytes.ts";
import type { Limits } from "./_limits.ts";
import { MaxFieldsExceededError, MaxFieldSizeExceededError } from "./errors.ts";

const decoder = new TextDecoder();

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
  const bytes = collected.bytes();
  const form = new FormData();
  let fields = 0;
  const text = decoder.decode(bytes);
  // URLSearchParams drops a leading "?" of a string (it is for query
  // strings); a form body keeps it, as the URL standard's form parser does.
  const params = new URLSearchParams(
    text.charCodeAt(0) === 63 /* ? */ ? "&" + text : text,
  );
  for (const [name, value] of params) {
    if (++fields > limits.maxFields) {
      throw new MaxFieldsExceededError(limits.maxFields, { fieldName: name });
    }
    if (utf8Length(value, limits.maxFieldSize) > limits.maxFieldSize) {
      throw new MaxFieldSizeExceededError(limits.maxFieldSize, {
        fieldName: name,
      });
    }
    form.append(name, value);
  }
  return form;
}

/** UTF-8 length of `text`, counted exactly only when it may exceed `max`. */
function utf8Length(text: string, max: number): number {
  if (text.length * 3 <= max) return text.length;
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      length += 4; // a surrogate pair is one 4-byte character
      i++;
    } else length += 3;
  }
  return length;
}
