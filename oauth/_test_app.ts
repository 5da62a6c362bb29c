// Test helper: a small app with a session and one OAuth client: /login
// starts a sign-in, /callback finishes it and answers the result as JSON.
import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import {
  createOAuthClient,
  type OAuthClient,
  type OAuthClientOptions,
  OAuthError,
} from "@fetchkit/toolkit/oauth";

import type { TestIssuer } from "./_test_issuer.ts";

export const APP_ORIGIN = "http://app.test";
export const REDIRECT_URI = `${APP_ORIGIN}/callback`;
export const Sessions = createContextKey<Session>();

/** The app, and its client. */
export function oauthApp(
  options: Omit<OAuthClientOptions, "session" | "redirectUri"> & {
    redirectUri?: string;
  },
): { app: Router; client: OAuthClient } {
  const client = createOAuthClient({
    redirectUri: REDIRECT_URI,
    ...options,
    session: Sessions,
  });
  const app = createRouter({
    middleware: [
      session(
        Sessions,
        createMemorySessionStorage({
          cookie: { secrets: ["oauth-test-secret-0123456789abcdef"] },
        }),
      ),
    ],
  });
  app.get("/login", (context) => {
    const query = context.url.searchParams;
    const seconds = (name: string) =>
      query.has(name) ? Number(query.get(name)) : undefined;
    return client.authorize(context, {
      returnTo: query.get("returnTo") ?? undefined,
      // Re-authentication: /login?maxAge=0&prompt=login
      maxAge: seconds("maxAge"),
      maxAuthAge: seconds("maxAuthAge"),
      params: query.has("prompt") ? { prompt: query.get("prompt")! } : {},
    });
  });
  // OAuthError caught and answered here, not thrown: session() saves
  // nothing for a handler that throws, and the used state must go.
  app.get("/callback", async (context) => {
    try {
      return Response.json(await client.callback(context));
    } catch (error) {
      if (error instanceof OAuthError) return error.toResponse();
      throw error;
    }
  });
  app.get("/callback-throws", async (context) => {
    return Response.json(await client.callback(context));
  });
  return { app, client };
}

/** The app signing in with `issuer`'s client, `extra` client options added. */
export function issuerApp(
  issuer: TestIssuer,
  extra: Record<string, unknown> = {},
): Router {
  return oauthApp({
    issuer: issuer.issuer,
    clientId: issuer.clientId,
    clientSecret: issuer.clientSecret,
    ...extra,
  }).app;
}
