/**
 * The byte size of a response body the toolkit made from a string, without
 * encoding it. Internal: shared by the response helpers, the router's own
 * answers, the `HEAD` handling and the logger's `%contentLength`.
 *
 * Why not a `Content-Length` header: `Deno.serve` sends a string body
 * without copying it through JavaScript and adds the length itself, while
 * encoding the body to bytes first (to know the length) cost a 50-row HTML
 * page about a third of its throughput, and an explicit `Content-Length`
 * header costs more than the server computing it (see BENCHMARKS.md, "HTTP
 * load"). So the helpers keep the string beside the response and the length
 * is counted only when something asks.
 *
 * @module
 */

// A symbol-keyed property, not a WeakMap: setting it measured ~4 ns a
// response against ~160 ns for a WeakMap entry (Deno 2.9).
const TEXT: unique symbol = Symbol("fetchkit.bodyText");

interface WithText {
  [TEXT]?: string;
}

/** Records that `response`'s body is `text` (made with that string body). */
export function rememberText(response: Response, text: string): void {
  (response as WithText)[TEXT] = text;
}

/**
 * The body size in bytes as a string: the `Content-Length` header, else the
 * UTF-8 length of a remembered string body, else `""` (unknown).
 */
export function bodySize(response: { readonly headers: Headers }): string {
  const header = response.headers.get("Content-Length");
  if (header !== null) return header;
  const length = rememberedLength(response);
  return length === undefined ? "" : String(length);
}

/**
 * The string a response's body was made from, if the toolkit made it from
 * one (`etag()` hashes it without reading the body stream).
 */
export function rememberedText(response: object): string | undefined {
  return (response as WithText)[TEXT];
}

/** The UTF-8 length of a remembered string body, if there is one. */
export function rememberedLength(response: object): number | undefined {
  const text = (response as WithText)[TEXT];
  return text === undefined ? undefined : utf8Length(text);
}

// The runtime's native count where there is one (`Buffer.byteLength` on
// Node, Bun and Deno 2): a 4 KB page took 6-9 µs through a regex scan for
// non-ASCII and 0.1-0.7 µs so (bench/page/utf8_length.ts). Short
// texts stay in JavaScript, where the call into the runtime costs more than
// the scan on Deno and Node.
const NativeBuffer = (globalThis as {
  Buffer?: { byteLength?: (text: string, encoding: "utf8") => number };
}).Buffer;
const nativeLength = typeof NativeBuffer?.byteLength === "function";
/** Texts longer than this are counted natively, where the runtime can. */
const NATIVE_FROM = 64;
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The number of bytes `TextEncoder` makes of `text`: a lone surrogate
 * becomes U+FFFD (3 bytes), a surrogate pair 4 bytes.
 */
export function utf8Length(text: string): number {
  if (nativeLength && text.length > NATIVE_FROM) {
    return NativeBuffer!.byteLength!(text, "utf8");
  }
  // Up to the first non-ASCII unit, one native scan (most texts are ASCII
  // to the end); each UTF-16 unit is one byte to start with; add what each
  // needs more.
  const first = text.search(NON_ASCII);
  if (first === -1) return text.length;
  let bytes = text.length;
  for (let i = first; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    bytes += code < 0x800 ? 1 : 2;
    // A surrogate pair: two units, four bytes in all.
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}
