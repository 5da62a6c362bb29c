/**
 * HTTP Basic authentication (RFC 7617): requests must carry
 * `Authorization: Basic base64(username:password)` with a known user and
 * password, or ones your `verify` function accepts; others get `401` with
 * a `WWW-Authenticate: Basic realm="...", charset="UTF-8"` challenge, which
 * makes browsers ask for a login. Passwords are compared in constant time.
 *
 * Basic credentials travel in clear text: serve it over HTTPS only.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { BasicAuthUser, basicAuth } from "@fetchkit/toolkit/basic-auth-middleware";
 *
 * const router = createRouter();
 * router.mount("/admin", (admin) => {
 *   admin.use(basicAuth({ users: { ada: "correct horse battery" }, realm: "Admin" }));
 *   admin.get("/", ({ get }) => new Response(`Hello, ${get(BasicAuthUser)}`));
 * });
 * const response = await router.fetch(
 *   new Request("http://localhost/admin/", {
 *     headers: { Authorization: "Basic " + btoa("ada:correct horse battery") },
 *   }),
 * );
 * await response.text(); // "Hello, ada"
 * ```
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { HttpError } from "../http_error/mod.ts";
import { markCredential } from "../cache/credential.ts";
import { digestOf, digestsEqual, quoteParam } from "../crypto/compare.ts";

/** Options of {@linkcode basicAuth}: `users` or `verify`, and `realm`. */
export interface BasicAuthOptions {
  /** Accepted users: `{ [username]: password }`. */
  users?: Readonly<Record<string, string>>;
  /**
   * Decides whether a username and password are accepted (a database
   * lookup with a password hash, say); may be async.
   */
  verify?: (
    username: string,
    password: string,
    context: RequestContext,
  ) => boolean | Promise<boolean>;
  /** The realm shown by the browser's login prompt. */
  realm: string;
  /**
   * The longest `Authorization` header looked at; a longer one is refused
   * unread.
   *
   * @default {4096}
   */
  maxLength?: number;
}

/**
 * The context key of the authenticated username, set by `basicAuth()`.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { BasicAuthUser } from "@fetchkit/toolkit/basic-auth-middleware";
 *
 * const handler: Handler = ({ get }) => new Response(`Hello, ${get(BasicAuthUser)}`);
 * ```
 */
export const BasicAuthUser: ContextKey<string | undefined> = createContextKey<
  string
>();

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const decoder = new TextDecoder("utf-8", { fatal: true });

/** `[username, password]`, or `undefined` when the header is malformed. */
function credentialsOf(
  header: string,
  maxLength: number,
): [string, string] | undefined {
  if (header.length > maxLength) return undefined;
  if (header.length < 6 || header.slice(0, 6).toLowerCase() !== "basic ") {
    return undefined;
  }
  const encoded = header.slice(6).trim();
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
  let text: string;
  try {
    text = decoder.decode(
      Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
  const colon = text.indexOf(":");
  // RFC 7617: a user-id with a colon is invalid; control characters too.
  // deno-lint-ignore no-control-regex -- refusing control characters is the point
  if (colon === -1 || /[\x00-\x1f\x7f]/.test(text)) return undefined;
  return [text.slice(0, colon), text.slice(colon + 1)];
}

/**
 * Creates middleware that lets through requests with accepted Basic
 * credentials, and answers the others (no header, another scheme,
 * malformed base64 or UTF-8, no colon, a wrong user or password) with
 * `401` and the challenge. The username is then
 * `context.get(BasicAuthUser)`.
 *
 * With `users`, every user's name and password are compared, in constant
 * time, whatever the request sends, so the time taken tells neither
 * whether a username exists nor how much of a password was right.
 *
 * @example A lookup with password hashes
 * ```ts
 * import { basicAuth } from "@fetchkit/toolkit/basic-auth-middleware";
 *
 * const hashes = new Map<string, string>(); // username -> hash
 * async function checkHash(password: string, hash: string | undefined): Promise<boolean> {
 *   return hash !== undefined && password.length > 0; // bcrypt.compare(password, hash)
 * }
 * const auth = basicAuth({
 *   realm: "Reports",
 *   verify: (username, password) => checkHash(password, hashes.get(username)),
 * });
 * ```
 *
 * @param options `users` or `verify`, and `realm`.
 * @returns The middleware.
 * @throws {TypeError} When neither or both of `users` and `verify` are
 * given, `users` is empty or has a username with a colon, or `realm` is
 * missing or has control characters.
 */
export function basicAuth(options: BasicAuthOptions): Middleware {
  const { users, verify, realm, maxLength = 4096 } = options;
  if ((users === undefined) === (verify === undefined)) {
    throw new TypeError(
      "basicAuth() needs exactly one of `users` ({ username: password }) and `verify` (a function)",
    );
  }
  if (typeof realm !== "string" || realm === "") {
    throw new TypeError(
      "basicAuth() needs a `realm`, shown by the login prompt",
    );
  }
  const challenge = `Basic realm=${
    quoteParam(realm, "basicAuth() realm")
  }, charset="UTF-8"`;
  const entries: [Uint8Array, Uint8Array][] = [];
  if (users !== undefined) {
    for (const [username, password] of Object.entries(users)) {
      if (username.includes(":")) {
        throw new TypeError(
          `basicAuth(): the username ${
            JSON.stringify(username)
          } has a colon, which Basic credentials cannot carry`,
        );
      }
      if (typeof password !== "string") {
        throw new TypeError(
          `basicAuth(): the password of ${
            JSON.stringify(username)
          } must be a string`,
        );
      }
      entries.push([digestOf(username), digestOf(password)]);
    }
    if (entries.length === 0) {
      throw new TypeError("basicAuth(): `users` lists no user");
    }
  }

  async function accepted(
    username: string,
    password: string,
    context: RequestContext,
  ): Promise<boolean> {
    if (verify !== undefined) {
      return (await verify(username, password, context)) === true;
    }
    const user = digestOf(username);
    const pass = digestOf(password);
    let match = 0;
    for (const [name, secret] of entries) {
      // Both compared for every user: no early exit on a wrong name.
      match |= Number(digestsEqual(user, name)) &
        Number(digestsEqual(pass, secret));
    }
    return match === 1;
  }

  // Answered as the router answers an HttpError (JSON when preferred).
  function unauthorized(request: Request): Response {
    return new HttpError(401, "Authentication required", {
      headers: { "WWW-Authenticate": challenge },
    }).toResponse(request);
  }

  return async (context, next) => {
    const header = context.request.headers.get("Authorization");
    const { request } = context;
    if (header === null) return unauthorized(request);
    const credentials = credentialsOf(header, maxLength);
    if (credentials === undefined) return unauthorized(request);
    const [username, password] = credentials;
    if (!(await accepted(username, password, context))) {
      return unauthorized(request);
    }
    context.set(BasicAuthUser, username);
    // What comes next answers this user: cache() keeps it.
    markCredential(context);
    return next();
  };
}
