/**
 * The four authentication middlewares. `loadUser()` runs on every
 * request, after `session()`; the other three guard single routes.
 *
 * @module
 */
import type {
  Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { StoreUnavailableError, toStoreError } from "@fetchkit/toolkit/store";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { RequestId } from "@fetchkit/toolkit/request-id-middleware";
import { CurrentUser, Session } from "./context.ts";
import type { Role, User, UserStore } from "./users.ts";
import { loginHref, routes } from "./routes.ts";
import { endSession, sessionIsCurrent } from "./sign_in.ts";
import {
  forbiddenPage,
  methodNotAllowedPage,
  serverErrorPage,
} from "./views/errors.ts";

/**
 * Puts the session's user, when it exists, under `CurrentUser`. A session
 * from before the user's last password reset, or of a deleted account, is
 * signed out here (see `sign_in.ts`).
 */
export function loadUser(users: UserStore): Middleware {
  return async (context, next) => {
    const session = context.get(Session);
    const userId = session?.get("userId");
    if (session && userId !== undefined) {
      const user = await users.findById(userId);
      if (user && sessionIsCurrent(session, user)) {
        context.set(CurrentUser, user);
      } else endSession(session); // an older generation, or a deleted user
    }
    return next();
  };
}

/** Sends guests to the login page, which brings them back here after. */
export function requireAuth(): Middleware {
  return (context, next) => {
    if (context.get(CurrentUser)) return next();
    return redirect(loginHref(context.url.pathname + context.url.search));
  };
}

/** Sends signed-in users to their dashboard (login and register pages). */
export function requireGuest(): Middleware {
  return (context, next) =>
    context.get(CurrentUser) ? redirect(routes.dashboard.href()) : next();
}

/**
 * Lets only users with one of `roles` through; other signed-in users get
 * `403 Forbidden`, guests the login page (without `returnTo`).
 */
export function requireRole(...roles: Role[]): Middleware {
  return (context, next) => {
    const user = context.get(CurrentUser);
    if (!user) return redirect(routes.auth.login.index.href());
    if (!roles.includes(user.role)) return forbidden(context.request, user);
    return next();
  };
}

/** Whether the client is a browser asking for a page. */
function wantsPage(request: Request): boolean {
  return request.headers.get("Accept")?.includes("text/html") ?? false;
}

/**
 * Router middleware: a browser that gets the router's plain `405 Method
 * Not Allowed` (`GET /auth/logout`) or the session's plain `503` (store
 * unreachable) gets a page with the navigation and a way back instead,
 * with the same status and `Allow` or `Retry-After` header. Other clients
 * keep the plain answer. An error thrown below it is answered here with
 * {@linkcode serverError}, so the `500` still passes through the request
 * id, the logger and the security headers.
 */
export function errorPages(): Middleware {
  return async (context, next) => {
    let response: Response;
    try {
      response = await next();
    } catch (error) {
      return serverError(error, context);
    }
    const { status, headers } = response;
    if ((status !== 405 && status !== 503) || !wantsPage(context.request)) {
      return response;
    }
    await response.body?.cancel();
    const user = context.get(CurrentUser);
    if (status === 405) {
      return methodNotAllowedPage(user, context.method, headers.get("Allow"));
    }
    const retryAfter = headers.get("Retry-After");
    return serverErrorPage(user, {
      status: 503,
      headers: retryAfter === null ? undefined : { "Retry-After": retryAfter },
    });
  };
}

/**
 * The router's `onError`: answers a thrown `HttpError` with its status
 * and message (text, or JSON for clients that ask for it); logs any other
 * error and answers `500` with a page
 * (for browsers) or the plain text, never the error's text. A store that
 * is down (a `StoreUnavailableError`: KV full or closed, Redis down or
 * slow, wherever it was met, the session or the login limiter) is a
 * `503` with `Retry-After` instead, and so is an outage of the app's own
 * store calls (the user store's KV on a full disk), classified by
 * `toStoreError()`.
 */
export function serverError(
  thrown: unknown,
  context: RequestContext,
): Response {
  // A refusal a handler threw on purpose (a passkey response that does not
  // verify: 400 naming why) is answered as it says, and is not a failure.
  if (
    thrown instanceof HttpError && !(thrown instanceof StoreUnavailableError)
  ) {
    return thrown.toResponse(context.request);
  }
  const error = toStoreError(thrown, "store");
  // The request id ties this to the log line and to what the user saw.
  console.error(`Request ${context.get(RequestId) ?? "-"} failed:`, error);
  if (error instanceof StoreUnavailableError) {
    if (!wantsPage(context.request)) return error.toResponse(context.request);
    return serverErrorPage(context.get(CurrentUser), {
      status: 503,
      headers: { "Retry-After": String(error.retryAfterSeconds) },
    });
  }
  if (wantsPage(context.request)) {
    return serverErrorPage(context.get(CurrentUser));
  }
  return new Response("Internal Server Error", {
    status: 500,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/**
 * A `403` with the plain-text body `Forbidden`; a browser (which asks for
 * `text/html`) gets the same status as a page with the site's navigation,
 * so the user is not stranded on a bare word.
 */
function forbidden(request: Request, user: User): Response {
  if (wantsPage(request)) {
    return forbiddenPage(user);
  }
  return new Response("Forbidden", {
    status: 403,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}
