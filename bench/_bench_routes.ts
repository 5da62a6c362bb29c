/**
 * The routes every HTTP benchmark app serves, for fetchkit and for Hono:
 * static, one and two params, three middlewares, a urlencoded POST. The
 * Deno apps (`_http_servers.ts`) add KV sessions and the `html` table.
 *
 * @module
 */
import type { Middleware, Router } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import type { Hono, MiddlewareHandler } from "hono";

/** Adds the shared routes to a fetchkit router; `json` answers the params. */
export function addFetchkitRoutes(
  router: Router,
  json: (data: unknown) => Response,
): void {
  router.get("/", () => new Response("home"));
  router.get("/users/:id", ({ params }) => json({ id: params.id }));
  router.get(
    "/users/:userId/posts/:postId",
    ({ params }) => json({ userId: params.userId, postId: params.postId }),
  );
  const readsAccept: Middleware = (context, next) => {
    context.headers.get("accept");
    return next();
  };
  const readsAgent: Middleware = (context, next) => {
    context.headers.get("user-agent");
    return next();
  };
  const setsHeader: Middleware = async (_context, next) => {
    const response = await next();
    response.headers.set("x-bench", "1");
    return response;
  };
  router.get(
    "/mw",
    readsAccept,
    readsAgent,
    setsHeader,
    () => new Response("mw"),
  );
  router.post(
    "/echo",
    formData(),
    (context) => new Response(String(context.get(FormData)?.get("text") ?? "")),
  );
}

/** Adds the same routes to a Hono app. */
export function addHonoRoutes(app: Hono): void {
  app.get("/", (c) => c.text("home"));
  app.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
  app.get(
    "/users/:userId/posts/:postId",
    (c) =>
      c.json({ userId: c.req.param("userId"), postId: c.req.param("postId") }),
  );
  const readsAccept: MiddlewareHandler = async (c, next) => {
    c.req.header("accept");
    await next();
  };
  const readsAgent: MiddlewareHandler = async (c, next) => {
    c.req.header("user-agent");
    await next();
  };
  const setsHeader: MiddlewareHandler = async (c, next) => {
    await next();
    c.header("x-bench", "1");
  };
  app.get("/mw", readsAccept, readsAgent, setsHeader, (c) => c.text("mw"));
  app.post(
    "/echo",
    async (c) => c.text(String((await c.req.parseBody())["text"] ?? "")),
  );
}
