/**
 * Unpadded base64url, as session ids and cookie signatures use it.
 *
 * `Uint8Array.prototype.toBase64` and `Uint8Array.fromBase64` (Deno, Bun,
 * Node 25) are used where they exist; Node 20 and 22 lack them and use
 * `Buffer`; a runtime with neither (workerd without `nodejs_compat`) goes
 * through `btoa` / `atob`.
 *
 * @module
 */

interface NativeBase64 {
  toBase64(options: { alphabet: "base64url"; omitPadding: boolean }): string;
}

interface NativeFromBase64 {
  fromBase64(
    text: string,
    options: { alphabet: "base64url"; lastChunkHandling: "loose" },
  ): Uint8Array<ArrayBuffer>;
}

interface BufferLike {
  from(bytes: ArrayBufferLike, offset: number, length: number): {
    toString(encoding: "base64url"): string;
  };
  from(text: string, encoding: "base64url"): Uint8Array;
}

const native = typeof (Uint8Array.prototype as Partial<NativeBase64>)
      .toBase64 === "function" &&
  typeof (Uint8Array as unknown as Partial<NativeFromBase64>).fromBase64 ===
    "function";
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Encodes `bytes` as base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  if (native) {
    return (bytes as unknown as NativeBase64).toBase64({
      alphabet: "base64url",
      omitPadding: true,
    });
  }
  if (NodeBuffer !== undefined) {
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString("base64url");
  }
  let binary = "";
  for (let index = 0; index < bytes.length; index++) {
    binary += String.fromCharCode(bytes[index]);
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/**
 * Decodes unpadded base64url; the spare bits of a last partial chunk are
 * ignored ("loose"), so callers that need one canonical text re-encode and
 * compare.
 *
 * @throws {SyntaxError} When `text` has a character outside base64url
 * (white space and padding included), or a length no encoding gives.
 */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  // The same text is refused everywhere: the native decoder skips white
  // space, and Buffer and atob skip characters they do not know.
  if (!BASE64URL.test(text) || text.length % 4 === 1) {
    throw new SyntaxError("Invalid base64url text");
  }
  if (native) {
    return (Uint8Array as unknown as NativeFromBase64).fromBase64(text, {
      alphabet: "base64url",
      lastChunkHandling: "loose",
    });
  }
  if (NodeBuffer !== undefined) {
    const decoded = NodeBuffer.from(text, "base64url");
    return new Uint8Array(decoded) as Uint8Array<ArrayBuffer>;
  }
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) {
    bytes[index] = binary.charCodeAt(index);
  }
  return bytes;
}
