/**
 * `context.headers` for a router's own `fetch` under serve() on Node: the
 * request's headers read from `node:http`'s own record of them, where the
 * adapter's `request.headers` checks each name with a regular expression,
 * lowercases it, and for some names copies `rawHeaders` to scan it
 * (about 500 instructions a read). The values are the same as
 * `request.headers` gives, as the Fetch standard combines them: names
 * `node:http` joins with ", " (and `cookie` with "; ") are read from
 * `incoming.headers`; names it keeps once (`user-agent`, `authorization`,
 * `content-type`...) are joined from `rawHeaders`; anything unusual (a name
 * that is not a token, a value with NUL or surrounding whitespace) goes to
 * `request.headers` itself, which decides and throws as before. Every
 * other member (iteration, `getSetCookie`, and writing, which Fetch
 * forbids on a received request and Deno refuses) is the adapter's
 * `request.headers`, and once written to, `get` and `has` read it too.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import { forwardHeaders } from "../runtime/headers_forward.ts";

/** A name every runtime's Headers takes as it is (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A header name as read: lowercased, and where `node:http` keeps it. */
interface Name {
  lower: string;
  /** Kept once in `incoming.headers` (see `KEPT_ONCE`): read `rawHeaders`. */
  once: boolean;
}

/**
 * Names seen, each with its lowercase form and where to read it: one
 * lookup a read (bounded: names come from code).
 */
const NAMES = new Map<string, Name>();
const NAMES_MAX = 512;

function nameOf(name: string): Name | undefined {
  let found = NAMES.get(name);
  if (found !== undefined) return found;
  if (typeof name !== "string" || !TOKEN.test(name)) return undefined;
  const lower = name.toLowerCase();
  found = { lower, once: KEPT_ONCE.has(lower) };
  if (NAMES.size < NAMES_MAX) NAMES.set(name, found);
  return found;
}

/**
 * Names `node:http` keeps once in `incoming.headers` (the later ones
 * dropped), and `set-cookie` (an array there): read from `rawHeaders`.
 */
const KEPT_ONCE = new Set([
  "age",
  "authorization",
  "content-length",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
  "set-cookie",
]);

/** Whether `value` is returned as it is: no NUL, CR, LF, nothing to trim. */
function isPlain(value: string): boolean {
  const length = value.length;
  if (length === 0) return true;
  let code = value.charCodeAt(0);
  if (code === 32 || code === 9) return false;
  code = value.charCodeAt(length - 1);
  if (code === 32 || code === 9) return false;
  // node:http's parser refuses CR and LF in values; NUL only when strict.
  return value.indexOf("\0") === -1 && value.indexOf("\r") === -1 &&
    value.indexOf("\n") === -1;
}

/** Unknown: ask the adapter's headers. */
const ASK = Symbol("ask");

/**
 * The value of `lower` as Fetch combines it, `null` when absent, or `ASK`
 * when something about it is better left to the adapter.
 */
function lookup(
  incoming: IncomingMessage,
  { lower, once }: Name,
): string | null | typeof ASK {
  if (!once) {
    if (lower === "__proto__") return ASK;
    const value = (incoming.headers as Record<string, unknown>)[lower];
    if (value === undefined) return null;
    return typeof value === "string" && isPlain(value) ? value : ASK;
  }
  const raw = incoming.rawHeaders;
  let found: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== lower.length || name.toLowerCase() !== lower) {
      continue;
    }
    const value = raw[i + 1]!;
    if (!isPlain(value)) return ASK;
    found = found === null ? value : `${found}, ${value}`;
  }
  return found;
}

/** See the module docs. */
export class NodeRequestHeaders {
  #incoming: IncomingMessage;
  #request: Request;
  /** Written to: every read goes to the adapter's headers. */
  #written = false;

  constructor(incoming: IncomingMessage, request: Request) {
    this.#incoming = incoming;
    this.#request = request;
  }

  get(name: string): string | null {
    if (!this.#written) {
      const known = nameOf(name);
      if (known !== undefined) {
        const value = lookup(this.#incoming, known);
        if (value !== ASK) return value;
      }
    }
    return this.#request.headers.get(name);
  }

  has(name: string): boolean {
    if (!this.#written) {
      const known = nameOf(name);
      if (known !== undefined) {
        const value = lookup(this.#incoming, known);
        if (value !== ASK) return value !== null;
      }
    }
    return this.#request.headers.has(name);
  }

  set(name: string, value: string): void {
    this.#written = true;
    this.#request.headers.set(name, value);
  }

  append(name: string, value: string): void {
    this.#written = true;
    this.#request.headers.append(name, value);
  }

  delete(name: string): void {
    this.#written = true;
    this.#request.headers.delete(name);
  }

  static {
    // Every other member of Headers reads the adapter's request.headers.
    forwardHeaders(
      NodeRequestHeaders.prototype,
      (self) => self.#request.headers,
    );
  }
}
