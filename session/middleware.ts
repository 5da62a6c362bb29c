/**
 * The `session()` middleware: loads the request's session before the
 * handler, and saves it afterwards.
 *
 * Sessions by user: at sign-in a handler binds the session to the user
 * with `session.setUser(userId, { address, userAgent })` (after
 * `session.regenerateId(true)`); `session.userId` reads it back, and
 * `session.unsetUser()` unbinds a session signed out but kept (a
 * "You have been signed out" flash; `destroy()` unbinds too). The
 * memory, Deno KV and Redis storages (one node or a cluster) then keep
 * an index of each user's sessions and are a `UserSessionStorage`:
 * `storage.listUserSessions(userId)` gives
 * `[{ id, createdAt, lastSeenAt, expiresAt, address, userAgent }]` (the
 * most recently seen first; compare `id` with `session.id` for "this
 * device"), `storage.destroyUserSession(userId, id)` ends one (only if it
 * is that user's) and `storage.destroyUserSessions(userId, { except })`
 * ends all of them but `except`. An ended session is refused at once:
 * the next request with its cookie gets a new, empty session. At most
 * `maxSessionsPerUser` (100 by default) per user: signing in once more
 * ends the oldest. Cookie storage cannot list sessions; its docs say
 * what to do instead. Code that takes any storage can ask:
 * `"listUserSessions" in storage`.
 *
 * @module
 */

import type { AnyContextKey, ContextValue } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { type Session, SessionObject, stateOf } from "./session.ts";
import type { SessionStorage } from "./storage.ts";
import { NativeResponse } from "../response/native.ts";
import { editHeaders } from "../response/edit_headers.ts";
import { isStoreOutage, StoreUnavailableError } from "../store/errors.ts";
import { markCredential } from "../cache/credential.ts";

export type { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type {
  DestroyUserSessionsOptions,
  SessionCookieOptions,
  SessionStorage,
  SetUserOptions,
  UserSession,
  UserSessionStorage,
} from "./storage.ts";

/**
 * A context key that can hold a {@linkcode Session}: a `symbol`, or a key
 * from `createContextKey<Session>()` (which also types `context.get`).
 */
export type SessionKey =
  & AnyContextKey
  & (
    | symbol
    | { readonly valueType?: Session | undefined }
  );

/**
 * Creates the session middleware. Before the rest of the chain runs, it
 * reads the session named by the request's cookie from `storage` (a new,
 * empty one when there is none or it is invalid) and stores it in the
 * context under `key`; handlers read it with `context.get(key)`.
 *
 * After the handler, it saves the session and appends one `Set-Cookie`
 * header, only when the session changed, got a new id, was destroyed (the
 * cookie is then expired with `Max-Age=0`), or its cookie must be signed
 * again with the first secret. Other `Set-Cookie` headers are kept. A
 * request that only reads its session gets no `Set-Cookie`. When the handler
 * throws, nothing is saved.
 *
 * An answer that depends on the session is kept out of caches: when the
 * handler (or any middleware after this one) read or wrote the session
 * (`get`, `has`, `id`, `set`, and the rest), or a `Set-Cookie` is sent,
 * the response gets `Cache-Control: no-store`, so after logout the
 * browser's Back button cannot show a signed-in page from its cache, and
 * no shared cache hands one user's page to another. A response whose own
 * `Cache-Control` already says `no-store` or `private` keeps it; any other
 * (`public, max-age=...`) is replaced. Answers that never touch the session
 * are left alone, so mount static files before `session()` or leave the
 * session unread there. The same holds for `cache()` whichever side of
 * `session()` it sits: inside, it stores no answer the handler built after
 * reading the session (unless the answer says `Cache-Control: public`);
 * outside, it sees the `no-store`.
 *
 * One `session()` per context key: a second `session()` on a key that
 * already holds a session, or a handler that replaces the session in the
 * context (`context.set(key, ...)`), is refused with an `Error` saying so
 * (the router's 500), rather than silently dropping one side's changes.
 *
 * @example One session per request, on a typed context key
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
 *
 * const Session = createContextKey<Session<{ userId: number; error: string }>>();
 * const storage = createCookieSessionStorage({
 *   cookie: {
 *     name: "session",
 *     secrets: [Deno.env.get("SESSION_SECRET") ?? crypto.randomUUID() + crypto.randomUUID()],
 *     secure: true,
 *     httpOnly: true,
 *     sameSite: "lax",
 *     maxAge: 604800,
 *   },
 * });
 *
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * router.get("/", (context) => {
 *   const userId = context.get(Session)?.get("userId");
 *   return new Response(userId === undefined ? "Hello, guest" : `Hello, user ${userId}`);
 * });
 * router.post("/logout", (context) => {
 *   context.get(Session)?.destroy();
 *   return new Response(null, { status: 303, headers: { Location: "/" } });
 * });
 * ```
 *
 * Concurrent requests on one session are all answered; their changes to
 * different names merge, and for one name the last save wins (see each
 * storage). When the storage fails (Deno KV closed, Redis unreachable, or
 * other servers kept changing the session for the whole 2 s retry budget),
 * the request gets a `503 Service Unavailable` with a short text and
 * `Retry-After: 5`, the error goes to `console.error`, and the next request
 * tries again: no restart is needed once the store is back. Store errors
 * are told apart by what they say, not their class (see `isStoreOutage()`
 * in `@fetchkit/toolkit/store`): Deno KV's `database or disk is full`, a
 * `TypeError`, is an outage and answers 503. An error thrown by the
 * handler itself, and a session too large to save (any other `RangeError`
 * or `TypeError`), are not caught here; the router's `onError` sees them
 * (a 500).
 *
 * @param key The context key the session is stored under.
 * @param storage Where sessions live: cookie, memory, Deno KV or Redis.
 * @returns The middleware.
 */
export function session<K extends SessionKey>(
  key: K,
  storage: SessionStorage,
): Middleware {
  if (
    storage === null || typeof storage !== "object" ||
    typeof storage.read !== "function" || typeof storage.save !== "function"
  ) {
    throw new TypeError("session() needs a session storage as second argument");
  }
  return async (context, next) => {
    if (context.get(key) instanceof SessionObject) {
      throw new Error(
        "session(): a session is already loaded under this context key by another session() middleware; " +
          "the second would replace it and one of them would lose its changes. Give each session() its own key",
      );
    }
    let current: Session;
    try {
      current = await storage.read(context.request.headers.get("cookie"));
    } catch (error) {
      return unavailable("read", error);
    }
    context.set(key, current as ContextValue<K>);
    // cache() inside this middleware stores nothing the handler built from
    // the session; outside it, the no-store below keeps it out.
    markCredential(
      context,
      current instanceof SessionObject
        ? () => stateOf(current).used
        : undefined,
    );
    const response = await next();
    if (context.get(key) !== current) {
      await response.body?.cancel();
      throw new Error(
        "session(): the session under this context key was replaced during the request (context.set); " +
          "changes made through the replaced session would be lost, so nothing was saved. " +
          "Change the session through its methods (set, unset, flash, regenerateId, destroy) instead",
      );
    }
    // Read before saving: storages read the id while saving.
    // A session of a storage's own making cannot tell: assume it was used.
    const used = current instanceof SessionObject
      ? stateOf(current).used
      : true;
    let setCookie: string | null;
    try {
      setCookie = await storage.save(current);
    } catch (error) {
      // A session too large for its cookie or store (RangeError,
      // TypeError) is the application's bug: the router's 500, not a 503.
      // Classified by what it says, not its class: Deno KV reports a full
      // disk as a TypeError ("database or disk is full"), an outage.
      if (
        (error instanceof RangeError || error instanceof TypeError) &&
        !isStoreOutage(error)
      ) {
        throw error;
      }
      // The response is dropped: a page that says "saved" while its
      // session change was lost would mislead the user.
      await response.body?.cancel();
      return unavailable("save", error);
    }
    return finish(response, setCookie, used || setCookie !== null);
  };
}

/**
 * The answer when the session store fails (Deno KV closed, Redis down): a
 * `503` with a short text and `Retry-After`, the error logged server-side
 * only. The server keeps serving; the next request tries the store again.
 */
function unavailable(operation: string, error: unknown): Response {
  console.error(`session(): the session store failed to ${operation}:`, error);
  const retryAfter = error instanceof StoreUnavailableError
    ? error.retryAfterSeconds
    : 5;
  return new NativeResponse(
    "Service Unavailable: the session store is not responding; try again shortly.",
    {
      status: 503,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Retry-After": String(retryAfter),
        "Cache-Control": "no-store",
      },
    },
  );
}

/**
 * Whether a `Cache-Control` value already keeps the answer out of shared
 * caches (`no-store` or `private`): the application's choice then stands.
 */
function keepsPrivate(value: string | null): boolean {
  return value !== null && /(?:^|,)\s*(?:no-store|private)\b/i.test(value);
}

function apply(headers: Headers, setCookie: string | null, noStore: boolean) {
  if (setCookie !== null) headers.append("Set-Cookie", setCookie);
  if (noStore && !keepsPrivate(headers.get("Cache-Control"))) {
    headers.set("Cache-Control", "no-store");
  }
}

/**
 * Appends `Set-Cookie` and marks a session-dependent answer `no-store`,
 * copying the response when its headers are immutable.
 */
function finish(
  response: Response,
  setCookie: string | null,
  noStore: boolean,
): Response {
  if (setCookie === null && !noStore) return response;
  return editHeaders(
    response,
    (headers, cookie) => apply(headers, cookie, noStore),
    setCookie,
  );
}
