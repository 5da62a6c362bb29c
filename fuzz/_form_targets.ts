// Fuzz targets for form parsing: random and mutated multipart and urlencoded
// bodies, fed in random chunkings. Properties: only the documented error
// classes, limits hold on what is accepted, and the same fields as Deno's own
// `Request.formData()` wherever both accept (a differential oracle).

import assert from "node:assert/strict";
import {
  FormDataParseError,
  parseFormData,
  type ParseFormDataOptions,
} from "@fetchkit/toolkit/form-data-middleware";
import { chunkings, NASTY, type Rng, streamOf } from "./_prng.ts";
import type { Target } from "./_run.ts";

const encoder = new TextEncoder();
const BCHARS = [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=?",
];

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Part content that tends to contain near-boundaries. */
function content(rng: Rng, boundary: string): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (let n = rng.int(5); n > 0; n--) {
    const kind = rng.int(5);
    if (kind === 0) pieces.push(rng.bytes(rng.int(40)));
    else if (kind === 1) {
      pieces.push(encoder.encode(rng.text(20, NASTY)));
    } else if (kind === 2) {
      // A prefix of the delimiter, never the whole one.
      const delimiter = "\r\n--" + boundary;
      pieces.push(
        encoder.encode(delimiter.slice(0, rng.int(delimiter.length))),
      );
    } else if (kind === 3) pieces.push(encoder.encode("\r\n"));
    else pieces.push(encoder.encode("-".repeat(rng.int(4))));
  }
  return concat(pieces);
}

// Names without `"`, CR and LF: browsers send those as %22, %0D and %0A,
// which we decode (as the HTML standard says) and Deno's parser does not, so
// they would only show that known difference. `parse_test.ts` covers them.
const NAME_CHARS = NASTY.filter((c) => !/["\r\n]/.test(c));

/** What a string becomes through UTF-8 (a lone surrogate becomes U+FFFD). */
function wellFormed(text: string): string {
  // Also no text that reads as %0A, %0D or %22 (see NAME_CHARS).
  return text.toWellFormed().replace(/%(?=0[adAD]|22)/g, "");
}

/** A valid multipart body, as a browser would send it, and its entries. */
function multipart(
  rng: Rng,
): { body: Uint8Array; boundary: string; expected: Entry[] } {
  const boundary = rng.text(69, BCHARS).replace(/ $/, "") + "B";
  const chunks: Uint8Array[] = [];
  const expected: Entry[] = [];
  for (let n = rng.int(6); n > 0; n--) {
    const name = wellFormed(rng.text(12, NAME_CHARS));
    let head =
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"`;
    const bytes = content(rng, boundary);
    if (rng.chance(0.4)) {
      const filename = wellFormed(rng.text(12, NAME_CHARS));
      head += `; filename="${filename}"`;
      let type = "application/octet-stream";
      if (rng.chance(0.8)) {
        type = rng.pick([
          "text/plain",
          "application/octet-stream",
          "image/png",
        ]);
        head += `\r\nContent-Type: ${type}`;
      }
      expected.push([name, { name: filename, type, bytes: [...bytes] }]);
    } else {
      expected.push([name, new TextDecoder().decode(bytes)]);
    }
    chunks.push(encoder.encode(head + "\r\n\r\n"));
    chunks.push(bytes);
    chunks.push(encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: concat(chunks), boundary, expected };
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}

/** The mutations the issue names; returns the body and the mutation's name. */
function mutate(
  rng: Rng,
  body: Uint8Array,
  boundary: string,
): { body: Uint8Array; mutation: string } {
  const line = encoder.encode(`--${boundary}\r\n`);
  const at = rng.int(body.length + 1);
  switch (rng.int(9)) {
    case 0:
      return { body, mutation: "none" };
    case 1: {
      const out = body.slice();
      for (let n = 1 + rng.int(3); n > 0 && out.length > 0; n--) {
        out[rng.int(out.length)] ^= 1 << rng.int(8);
      }
      return { body: out, mutation: "flipped bits" };
    }
    case 2:
      return { body: body.slice(0, at), mutation: "truncated" };
    case 3:
      return {
        body: concat([body.slice(0, at), line, body.slice(at)]),
        mutation: "duplicated boundary",
      };
    case 4: {
      const found = indexOf(body, line, rng.int(body.length + 1));
      const i = found === -1 ? indexOf(body, line) : found;
      if (i === -1) return { body, mutation: "none" };
      return {
        body: concat([body.slice(0, i), body.slice(i + line.length)]),
        mutation: "missing boundary",
      };
    }
    case 5: {
      const text = Array.from(body, (b) => String.fromCharCode(b)).join("");
      const lf = rng.chance(0.5)
        ? text.replaceAll("\r\n", "\n")
        : text.replace("\r\n", "\n");
      return {
        body: Uint8Array.from(lf, (c) => c.charCodeAt(0)),
        mutation: "LF for CRLF",
      };
    }
    case 6: {
      const i = indexOf(body, line);
      const cut = i === -1 ? at : i + line.length;
      const huge = encoder.encode(
        `X-Long: ${"a".repeat(100 + rng.int(20_000))}\r\n`,
      );
      return {
        body: concat([body.slice(0, cut), huge, body.slice(cut)]),
        mutation: "huge header line",
      };
    }
    case 7:
      return {
        body: concat([
          body.slice(0, at),
          rng.bytes(1 + rng.int(20)),
          body.slice(at),
        ]),
        mutation: "inserted bytes",
      };
    default:
      return { body: rng.bytes(rng.int(300)), mutation: "random bytes" };
  }
}

/** Random limits: mostly loose, sometimes tight enough to trigger. */
function limits(rng: Rng): ParseFormDataOptions {
  if (rng.chance(0.5)) return {};
  return {
    maxFileSize: rng.int(200),
    maxFiles: rng.int(4),
    maxFieldSize: rng.int(100),
    maxFields: rng.int(6),
    maxHeaderSize: 20 + rng.int(400),
    maxTotalSize: rng.int(3000),
  };
}

type Entry = [string, string | { name: string; type: string; bytes: number[] }];

async function entries(form: FormData): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const [name, value] of form) {
    out.push([
      name,
      typeof value === "string" ? value : {
        name: value.name,
        type: value.type,
        bytes: [...new Uint8Array(await value.arrayBuffer())],
      },
    ]);
  }
  return out;
}

/** Parses with our parser; checks the error class and the limits. */
async function ours(
  body: Uint8Array,
  contentType: string,
  options: ParseFormDataOptions,
  rng: Rng,
): Promise<FormData | null> {
  const request = new Request("http://fuzz/", {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: streamOf(chunkings(rng, body)),
  });
  let form: FormData;
  try {
    form = await parseFormData(request, options);
  } catch (error) {
    if (error instanceof FormDataParseError) return null;
    throw new Error(`undocumented error: ${error}`, { cause: error });
  }
  const max = {
    maxFileSize: 10 * 2 ** 20,
    maxFiles: 20,
    maxFieldSize: 2 ** 20,
    maxFields: 1000,
    maxTotalSize: 64 * 2 ** 20,
    ...options,
  };
  assert.ok(body.length <= max.maxTotalSize, "maxTotalSize");
  let files = 0;
  let fields = 0;
  for (const [, value] of form) {
    if (typeof value === "string") {
      fields++;
      // Each UTF-16 unit came from at least one byte (an invalid byte becomes
      // one U+FFFD), so the length bounds the bytes from below.
      assert.ok(
        value.length <= max.maxFieldSize,
        `maxFieldSize ${max.maxFieldSize}: ${show(body)}`,
      );
    } else if (value.size === 0 && value.name === "") fields++;
    else {
      files++;
      assert.ok(value.size <= max.maxFileSize, "maxFileSize");
    }
  }
  assert.ok(files <= max.maxFiles, `maxFiles: ${files}`);
  assert.ok(fields <= max.maxFields + max.maxFiles, `maxFields: ${fields}`);
  return form;
}

/** Deno's own parser, or null where it rejects the body. */
async function deno(
  body: Uint8Array,
  contentType: string,
): Promise<FormData | null> {
  try {
    return await new Request("http://fuzz/", {
      method: "POST",
      headers: { "Content-Type": contentType },
      body: body.slice(),
    }).formData();
  } catch {
    return null;
  }
}

/** A body for a failure message, bytes as Latin-1, cut at 600 characters. */
function show(body: Uint8Array): string {
  return JSON.stringify(String.fromCharCode(...body.subarray(0, 600)));
}

// The part headers a browser writes. Where a mutation made them anything
// else, the two parsers may read them differently (Deno keeps the opening
// quote of an unterminated `filename="...`, reads only lower-case parameter
// names, drops a part with a long unknown header line or a bare CR or LF,
// and returns an empty form for several of these), so the oracle compares
// only bodies whose part headers are well formed; the other properties
// (error classes, limits, no hang) hold on every body.
const WELL_FORMED_HEADER =
  // deno-lint-ignore no-control-regex
  /^(Content-Disposition: form-data; name="[^"\x00-\x1f]*"(; filename="[^"\x00-\x1f]*")?|Content-Type: [a-z]+\/[a-z-]+)$/;

/**
 * Bodies where Deno's `formData()` is the one that is wrong, so the oracle
 * does not apply (found by this fuzzer; ours is checked against the
 * generated entries instead):
 * - a quoted `name` or `filename` holding `=` or `;` (`name="-=9"`): Deno
 *   cuts the value there (`"-`);
 * - a preamble before the first delimiter (RFC 2046 allows one): Deno
 *   returns an empty form, we (and busboy) skip the preamble;
 * - a close delimiter followed by anything but CRLF or the end: Deno
 *   returns an empty form, we stop at the close delimiter (RFC 2046's
 *   epilogue is ignored);
 * - a part whose content starts with `--boundary` (no CRLF before it, so
 *   no delimiter by RFC 2046): Deno ends the part there, we (and busboy)
 *   keep it as content;
 * - part headers not as a browser writes them (see WELL_FORMED_HEADER);
 * - a part named `""`: Deno drops it, we (and busboy) keep it, as a
 *   client that sends it (browsers never do) means something by it.
 */
function knownDenoDifference(
  body: Uint8Array,
  boundary: string,
  got: Entry[],
): boolean {
  const start = encoder.encode(`--${boundary}\r\n`);
  if (start.some((byte, i) => body[i] !== byte)) return true;
  if (String.fromCharCode(...body).includes(`\r\n\r\n--${boundary}`)) {
    return true;
  }
  const text = String.fromCharCode(...body);
  const close = text.indexOf(`\r\n--${boundary}--`);
  if (close !== -1) {
    const after = text.slice(
      close + boundary.length + 6,
      close + boundary.length + 8,
    );
    if (after !== "" && after !== "\r\n") return true;
  }
  for (const part of text.split(`--${boundary}\r\n`).slice(1)) {
    const end = part.indexOf("\r\n\r\n");
    if (end === -1) continue; // cut short: both must reject or agree
    const lines = part.slice(0, end).split("\r\n");
    if (!lines.every((line) => WELL_FORMED_HEADER.test(line))) return true;
  }
  return got.some(([name, value]) =>
    name === "" || /[=;]/.test(name) ||
    (typeof value !== "string" && /[=;]/.test(value.name))
  );
}

/** Counters a run reports: how often each side accepted. */
export const formStats = { accepted: 0, bothAccepted: 0, rejected: 0 };

export const multipartTarget: Target = {
  name: "multipart",
  async check(rng) {
    const valid = multipart(rng);
    const { body, mutation } = mutate(rng, valid.body, valid.boundary);
    const contentType = `multipart/form-data; boundary=${
      rng.chance(0.5) ? valid.boundary : `"${valid.boundary}"`
    }`;
    const options = limits(rng);
    const parsed = await ours(body, contentType, options, rng);
    if (parsed === null) {
      formStats.rejected++;
      // An intact body within loose limits must be accepted.
      if (mutation === "none" && Object.keys(options).length === 0) {
        throw new Error("rejected a valid body");
      }
      return;
    }
    formStats.accepted++;
    const got = await entries(parsed);
    if (mutation === "none" && Object.keys(options).length === 0) {
      assert.deepEqual(got, valid.expected, "an intact body");
    }
    if (knownDenoDifference(body, valid.boundary, got)) return;
    const theirs = await deno(body, contentType);
    if (theirs === null) return;
    formStats.bothAccepted++;
    assert.deepEqual(got, await entries(theirs), `${mutation}: ${show(body)}`);
  },
};

const URL_CHARS = [...NASTY, "&", "=", "+", "%", "%2", "%41", "&&", "=="];

export const urlencodedTarget: Target = {
  name: "urlencoded",
  async check(rng) {
    const body = rng.chance(0.2)
      ? rng.bytes(rng.int(200))
      : encoder.encode(rng.text(60, URL_CHARS));
    const contentType = rng.pick([
      "application/x-www-form-urlencoded",
      "application/x-www-form-urlencoded; charset=UTF-8",
    ]);
    const options = limits(rng);
    const parsed = await ours(body, contentType, options, rng);
    if (parsed === null) {
      formStats.rejected++;
      if (Object.keys(options).length === 0) {
        throw new Error("rejected an urlencoded body within loose limits");
      }
      return;
    }
    formStats.accepted++;
    const theirs = await deno(body, contentType);
    if (theirs === null) return;
    formStats.bothAccepted++;
    assert.deepEqual(await entries(parsed), await entries(theirs));
  },
};
