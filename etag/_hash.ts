/**
 * SHA-1 of a body, incrementally: `node:crypto`'s `createHash` where the
 * runtime has it (Deno, Node, Bun: 5-10 µs for 10 KB), else Web Crypto on
 * the whole body at the end (async, 20-60 µs a call). SHA-1 here names
 * content, it guards no secret: a collision would need someone who
 * controls both bodies of one URL, who could serve what they like anyway.
 */

import type * as NodeCrypto from "node:crypto";

interface NodeProcess {
  getBuiltinModule?(name: string): unknown;
}

let cryptoModule: typeof NodeCrypto | null | undefined;

function nodeCrypto(): typeof NodeCrypto | null {
  if (cryptoModule !== undefined) return cryptoModule;
  const process = (globalThis as { process?: NodeProcess }).process;
  let module: typeof NodeCrypto | undefined;
  try {
    module = process?.getBuiltinModule?.("node:crypto") as
      | typeof NodeCrypto
      | undefined;
  } catch {
    module = undefined;
  }
  return cryptoModule = typeof module?.createHash === "function"
    ? module
    : null;
}

/** A running hash: feed it chunks, then ask for the tag's opaque part. */
export interface BodyHash {
  update(chunk: Uint8Array | string): void;
  /** Base64url of the digest: 27 characters. */
  digest(): Promise<string> | string;
}

const encoder = new TextEncoder();

/** A new running SHA-1. */
export function createBodyHash(): BodyHash {
  const node = nodeCrypto();
  if (node !== null) {
    const hash = node.createHash("sha1");
    return {
      update(chunk) {
        hash.update(chunk);
      },
      digest() {
        return hash.digest("base64url");
      },
    };
  }
  const parts: Uint8Array[] = [];
  return {
    update(chunk) {
      parts.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    },
    async digest() {
      let total = 0;
      for (const part of parts) total += part.byteLength;
      const all = new Uint8Array(total);
      let offset = 0;
      for (const part of parts) {
        all.set(part, offset);
        offset += part.byteLength;
      }
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-1", all),
      );
      return base64url(digest);
    },
  };
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}
