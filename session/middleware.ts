/**
 * The `session()` middleware: loads the request's session before the
 * handler, and saves it afterwards.
 *
 * @module
 */

import type { AnyContextKey, ContextValue } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import type { Session } from "./session.ts";
import type { SessionStorage } from "./storage.ts";

export type { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type { SessionCookieOptions, SessionStorage } from "./storage.ts";

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
 * @example The seed's setup
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
 *
 * const Session = createContextKey<Session<{ userId: number; error: string }>>();
 * const storage = createCookieSessionStorage({
 *   cookie: {
 *     name: "session",
 *     secrets: [crypto.randomUUID() + crypto.randomUUID()],
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
 * When the storage fails (Deno KV closed or failing, Redis down), the
 * request is answered `503 Service Unavailable` with a short text and
 * `Retry-After: 1`, the cause logged with `console.error`; the next request
 * tries the store again, so the app recovers on its own when the store is
 * back. A `TypeError` or `RangeError` (such as data too large for a cookie)
 * is the application's error and reaches the router's `onError` (a 500).
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
    let current: Session;
    try {
      current = await storage.read(context.request.headers.get("cookie"));
    } catch (error) {
      return unavailable(error);
    }
    context.set(key, current as ContextValue<K>);
    const response = await next();
    let setCookie: string | null;
    try {
      setCookie = await storage.save(current);
    } catch (error) {
      return unavailable(error);
    }
    return setCookie === null ? response : withCookie(response, setCookie);
  };
}

/**
 * The answer when the session store fails (Deno KV closed or failing, Redis
 * down): a 503 that says so, logged with its cause, and nothing cached, so
 * the next request tries the store again. `TypeError` and `RangeError` are
 * the application's mistakes (data too large for a cookie or a KV value),
 * not the store's, and go on to the router's error handling (a 500).
 */
function unavailable(error: unknown): Response {
  if (error instanceof TypeError || error instanceof RangeError) throw error;
  console.error("Session store failed:", error);
  return new Response(
    "Service Unavailable: the session store is not responding; try again shortly.",
    {
      status: 503,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Retry-After": "1",
        "Cache-Control": "no-store",
      },
    },
  );
}

/** Appends `Set-Cookie`, copying the response when its headers are immutable. */
function withCookie(response: Response, setCookie: string): Response {
  try {
    response.headers.append("Set-Cookie", setCookie);
    return response;
  } catch {
    // Responses from fetch() and Response.redirect() have immutable headers.
    const copy = new Response(response.body, response);
    copy.headers.append("Set-Cookie", setCookie);
    return copy;
  }
}
