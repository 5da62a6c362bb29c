/**
 * The HTTP benchmark app of `_http_servers.ts` (static, params, three
 * middlewares, miss, POST) on Node and Bun, for `bench/runtimes_load.ts`.
 * Bundled with `deno bundle`, then run as
 * `node runtime_servers.mjs <server> <port>`
 * or `bun runtime_servers.mjs <server> <port>`.
 *
 * Node serves through `@hono/node-server` (the adapter from `node:http` to
 * Fetch that the Node tests use); Bun through `Bun.serve`.
 * `bare` answers every request with one constant text: the runtime's and
 * adapter's own limit. `fetchkit` answers JSON with `createJsonResponse()`,
 * as Hono's handlers do with `c.json()`; `fetchkit-response-json` is the
 * same app with the global `Response.json()` (which builds the runtime's
 * native class on Node, not the adapter's lighter one).
 *
 * @module
 */
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";
import { Hono, type MiddlewareHandler } from "hono";

type Handler = (request: Request) => Response | Promise<Response>;

function fetchkit(json: (data: unknown) => Response): Handler {
  const router = createRouter();
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
  return router.fetch;
}

function hono(): Handler {
  const app = new Hono();
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
  return app.fetch;
}

function bare(): Handler {
  return () => new Response("home");
}

interface BunServe {
  serve(options: {
    fetch: Handler;
    port: number;
    hostname: string;
  }): unknown;
}

const process = (globalThis as unknown as {
  process: { argv: string[] };
}).process;
const [name, portText] = process.argv.slice(2);
const servers: Record<string, () => Handler> = {
  bare,
  fetchkit: () => fetchkit((data) => createJsonResponse(data)),
  "fetchkit-response-json": () => fetchkit((data) => Response.json(data)),
  hono,
};
const fetch = servers[name]?.();
if (fetch === undefined) throw new TypeError(`unknown server ${name}`);
const port = Number(portText);
const bun = (globalThis as { Bun?: BunServe }).Bun;
if (bun !== undefined) {
  bun.serve({ fetch, port, hostname: "127.0.0.1" });
  console.log("ready");
} else {
  const { serve } = await import("@hono/node-server");
  serve({ fetch, port, hostname: "127.0.0.1" }, () => console.log("ready"));
}
