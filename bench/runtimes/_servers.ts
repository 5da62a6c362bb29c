/**
 * The apps of the runtime benchmark, one per framework, on Deno, Node and
 * Bun (bundled for the latter two): `fetchkit` (our router under
 * `serve()`), `hono`, `elysia` (Bun), `fastify` (Node) and `bare` (the
 * runtime's own server: `Deno.serve`, `Bun.serve`, `node:http`, answering
 * every request with one constant text); on Node also `adapter`, the same
 * constant answer through `@hono/node-server` (what serve() uses there).
 * Each serves the five scenarios:
 *
 * - `GET /`: a static route answering `home`;
 * - `GET /users/42/posts/7`: two parameters, answered as JSON;
 * - `GET /mw`: three middlewares (two read a request header, one sets a
 *   response header) around a text answer;
 * - `GET /no/such/page`: no route, the framework's own 404;
 * - `POST /echo`: a urlencoded body, answering its `text` field.
 *
 * With the group `app` (a third argument), the server serves the "real
 * app" scenarios of `_apps.ts` instead (fetchkit, hono, elysia, fastify).
 *
 * Arguments: server, port[, group]. Prints "ready" when listening.
 *
 * @module
 */
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { formData, FormFields } from "@fetchkit/toolkit/form-data-middleware";
import { serve } from "@fetchkit/toolkit/serve";
import { Hono, type MiddlewareHandler } from "hono";
import {
  ajvOrderSchema,
  elysiaApp,
  fastifyApp,
  fetchkitApp,
  honoApp as honoRealApp,
} from "./_apps.ts";

const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);
const [name, portText, group = "hello"] = args;
const port = Number(portText);
const hostname = "127.0.0.1";

type Handler = (request: Request) => Response | Promise<Response>;
const bun = (globalThis as {
  Bun?: { serve(options: Record<string, unknown>): unknown };
}).Bun;
const deno = (globalThis as {
  Deno?: {
    serve(options: Record<string, unknown>, handler: Handler): unknown;
  };
}).Deno;
const ready = () => console.log("ready");

// Not analysable, so `deno bundle` leaves these to the runtime (they are
// installed in bench/runtimes/node_modules) and Deno never loads them.
// deno-lint-ignore no-explicit-any
const load = (specifier: string): Promise<any> => import(specifier);

/** With `formDataVariant`, the POST handler reads `get(FormData)`. */
function fetchkit(formDataVariant = false): void {
  const readsAccept: Middleware = (context, next) => {
    context.headers.get("accept");
    return next();
  };
  const readsAgent: Middleware = (context, next) => {
    context.headers.get("user-agent");
    return next();
  };
  // Staged, as Elysia's set.headers: applied once, the chain synchronous.
  const setsHeader: Middleware = (context, next) => {
    context.responseHeaders.set("x-bench", "1");
    return next();
  };
  const router = createRouter();
  router.get("/", () => new Response("home"));
  router.get(
    "/users/:userId/posts/:postId",
    ({ params }) =>
      Response.json({ userId: params.userId, postId: params.postId }),
  );
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
    formDataVariant
      ? ({ get }) => new Response(String(get(FormData).get("text") ?? ""))
      : ({ get }) => new Response(String(get(FormFields)?.text ?? "")),
  );
  serve(router.fetch, {
    hostname,
    port,
    handleSignals: false,
    onListen: ready,
  });
}

function honoApp(): Handler {
  const app = new Hono();
  app.get("/", (c) => c.text("home"));
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

/** Serves a Fetch handler on the runtime's own server. */
async function fetchServer(handler: Handler): Promise<void> {
  if (deno !== undefined) {
    deno.serve({ hostname, port, onListen: ready }, handler);
  } else if (bun !== undefined) {
    bun.serve({ hostname, port, fetch: handler });
    ready();
  } else {
    const { serve: nodeServe } = await load("@hono/node-server");
    nodeServe({ fetch: handler, port, hostname }, ready);
  }
}

async function bare(): Promise<void> {
  if (deno !== undefined || bun !== undefined) {
    return await fetchServer(() => new Response("home"));
  }
  const { createServer } = await import("node:http");
  createServer((_request, response) => {
    response.setHeader("Content-Type", "text/plain; charset=utf-8");
    response.end("home");
  }).listen(port, hostname, ready);
}

async function elysia(): Promise<void> {
  if (bun === undefined) throw new TypeError("elysia runs on Bun only here");
  const { Elysia } = await load("elysia");
  new Elysia()
    .get("/", () => "home")
    .get(
      "/users/:userId/posts/:postId",
      ({ params }: { params: Record<string, string> }) => ({
        userId: params.userId,
        postId: params.postId,
      }),
    )
    .get("/mw", () => "mw", {
      beforeHandle: [
        ({ request }: { request: Request }) => {
          request.headers.get("accept");
        },
        ({ request }: { request: Request }) => {
          request.headers.get("user-agent");
        },
      ],
      afterHandle: ({ set }: { set: { headers: Record<string, string> } }) => {
        set.headers["x-bench"] = "1";
      },
    })
    .post(
      "/echo",
      ({ body }: { body: Record<string, unknown> }) => String(body.text ?? ""),
    )
    .listen({ hostname, port });
  ready();
}

async function fastify(): Promise<void> {
  if (deno !== undefined || bun !== undefined) {
    throw new TypeError("fastify runs on Node only here");
  }
  const { default: Fastify } = await load("fastify");
  const { parse } = await import("node:querystring");
  const app = Fastify({ logger: false });
  // What @fastify/formbody does: urlencoded bodies as a plain object.
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (
      _request: unknown,
      body: string,
      done: (error: null, value: unknown) => void,
    ) => done(null, parse(body)),
  );
  app.get("/", () => "home");
  app.get(
    "/users/:userId/posts/:postId",
    (request: { params: Record<string, string> }) => ({
      userId: request.params.userId,
      postId: request.params.postId,
    }),
  );
  type Hook = (
    request: { headers: Record<string, string> },
    reply: { header(name: string, value: string): void },
    done: () => void,
  ) => void;
  const readsAccept: Hook = (request, _reply, done) => {
    request.headers["accept"];
    done();
  };
  const readsAgent: Hook = (request, _reply, done) => {
    request.headers["user-agent"];
    done();
  };
  app.get("/mw", {
    onRequest: [readsAccept, readsAgent],
    onSend: (
      _request: unknown,
      reply: { header(name: string, value: string): void },
      payload: unknown,
      done: (error: null, payload: unknown) => void,
    ) => {
      reply.header("x-bench", "1");
      done(null, payload);
    },
  }, () => "mw");
  app.post(
    "/echo",
    (request: { body: Record<string, unknown> }) =>
      String(request.body.text ?? ""),
  );
  await app.listen({ port, host: hostname });
  ready();
}

/** Node: @hono/node-server around a constant answer, the adapter's own cost. */
async function adapter(): Promise<void> {
  if (deno !== undefined || bun !== undefined) {
    throw new TypeError("adapter runs on Node only here");
  }
  await fetchServer(() => new Response("home"));
}

const where = { hostname, port, ready };
const apps: Record<string, () => unknown> = {
  fetchkit: () => fetchkitApp(where),
  "fetchkit-ajv": async () => fetchkitApp(where, await ajvOrderSchema(load)),
  hono: () => fetchServer(honoRealApp()),
  "hono-map": () => fetchServer(honoRealApp({ map: true })),
  elysia: () => elysiaApp(where, load),
  fastify: () => fastifyApp(where, load),
};
const servers: Record<string, () => unknown> = group === "app" ? apps : {
  adapter,
  bare,
  fetchkit: () => fetchkit(),
  "fetchkit-formdata": () => fetchkit(true),
  hono: () => fetchServer(honoApp()),
  elysia,
  fastify,
};
const start = servers[name!];
if (start === undefined) throw new TypeError(`unknown server ${name}`);
await start();
