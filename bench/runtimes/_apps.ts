/**
 * The "real app" scenarios of the runtime benchmark, one app per
 * framework, served by `_servers.ts` when started with the group `app`
 * (a process of its own, so the five hello-world scenarios keep their
 * apps as they were):
 *
 * - `GET /login`: starts a session `{ user: "ada", visits: 0 }` in a
 *   signed cookie (the benchmark reads its `Set-Cookie` once);
 * - `GET /page`: a signed-in page: the signed session cookie read and
 *   rolled (`visits` + 1, a new signed `Set-Cookie`), security headers
 *   with a fresh CSP nonce, a request log line to a discarding sink, and
 *   an HTML page of 30 escaped rows;
 * - `POST /api/orders`: about 1 KB of JSON validated by one schema
 *   (valibot as a Standard Schema; Fastify: the same as JSON Schema
 *   through Ajv) and answered as JSON;
 * - `GET /cached`: the page of 30 rows behind a response cache in memory,
 *   hit path (ours `cache()`; Hono's `cache()` on Deno, where the Cache
 *   API exists; elsewhere, and for Elysia and Fastify, which have no
 *   server-side cache middleware, a `Map` by URL in a hook).
 *
 * Each framework's own parts where it has them: Hono's `getSignedCookie`/
 * `setSignedCookie`, `secureHeaders()`, `logger()`, `html`,
 * `sValidator()`; Elysia's signed cookies and Standard Schema bodies;
 * Fastify's `@fastify/cookie` (signed), its own logger (pino) and Ajv.
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { Route } from "@fetchkit/toolkit/fetch-router/routes";
import { serve } from "@fetchkit/toolkit/serve";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import {
  CspNonce,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { html } from "@fetchkit/toolkit/html-template";
import { fromJsonSchema } from "@fetchkit/toolkit/validation";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import {
  cache,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { createContextKey } from "@fetchkit/toolkit/fetch-router";
import { Hono, type MiddlewareHandler } from "hono";
import { getSignedCookie, setSignedCookie } from "hono/cookie";
import { NONCE, secureHeaders as honoSecureHeaders } from "hono/secure-headers";
import { logger as honoLogger } from "hono/logger";
import { html as honoHtml } from "hono/html";
import { cache as honoCache } from "hono/cache";
import { sValidator } from "@hono/standard-validator";
import type { StandardSchemaV1 } from "../../form_validation/standard_schema.ts";
import {
  newNonce,
  type Order,
  ORDER_JSON_SCHEMA,
  orderAnswer,
  OrderSchema,
  policy,
  renderPage,
  ROWS,
  SECRET,
  SECURITY_HEADERS,
} from "./_app_data.ts";

type Handler = (request: Request) => Response | Promise<Response>;
interface Where {
  hostname: string;
  port: number;
  ready: () => void;
}
// deno-lint-ignore no-explicit-any
type Load = (specifier: string) => Promise<any>;

const MAX_AGE = 3600;
const discard = (_line: string) => {};
const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;

/**
 * Ours: `serve(router.fetch)`; `orderSchema` replaces the order's valibot
 * schema (`fetchkit-ajv`: Fastify's validator, see `ajvOrderSchema`).
 */
export function fetchkitApp(
  where: Where,
  orderSchema: OrderValidator = OrderSchema,
): void {
  serve(fetchkitFetch(orderSchema), {
    hostname: where.hostname,
    port: where.port,
    handleSignals: false,
    onListen: where.ready,
  });
}

/** Our app's `router.fetch` (also for in-process measurements). */
export function fetchkitFetch(
  orderSchema: OrderValidator = OrderSchema,
): Handler {
  const Session = createContextKey<
    Session<{ user: string; visits: number }>
  >();
  const storage = createCookieSessionStorage({
    cookie: {
      name: "session",
      secrets: [SECRET],
      httpOnly: true,
      sameSite: "lax",
      maxAge: MAX_AGE,
    },
  });
  // The same bytes as every peer's page (`renderPage`). Not formatted:
  // `deno fmt` indents HTML inside html`...`, and the page then sent 6,801
  // bytes where the others sent 3,864 (BENCHMARKS.md, "Fifth round: Node").
  // deno-fmt-ignore
  const page = (user: string, visits: number, nonce: string | undefined) =>
    html`<!doctype html><html><head><title>Orders</title><script nonce="${nonce}">window.ready=1</script></head><body><h1>Hello, ${user}</h1><p>Visit ${visits}</p><table>${
      ROWS.map((row) =>
        html`<tr><td>${row.id}</td><td>${row.name}</td><td>${row.note}</td></tr>`
      )
    }</table></body></html>`;

  const router = createRouter();
  router.get("/login", session(Session, storage), ({ get }) => {
    const current = get(Session)!;
    current.set("user", "ada");
    current.set("visits", 0);
    return new Response("signed in");
  });
  router.get(
    "/page",
    logger({ log: discard }),
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'nonce'"],
      },
    }),
    session(Session, storage),
    ({ get }) => {
      const current = get(Session)!;
      const user = current.get("user");
      if (user === undefined) return new Response(null, { status: 401 });
      const visits = (current.get("visits") ?? 0) + 1;
      current.set("visits", visits);
      return createHtmlResponse(page(user, visits, get(CspNonce)));
    },
  );
  router.post(
    new Route("POST", "/api/orders", { body: orderSchema }),
    ({ input }) => Response.json(orderAnswer(input.body)),
  );
  router.get(
    "/cached",
    cache({ store: createMemoryCacheStore() }),
    () => createHtmlResponse(page("guest", 0, "static")),
  );
  return router.fetch;
}

/** A Standard Schema whose output is the order. */
export type OrderValidator = StandardSchemaV1<unknown, Order>;

/**
 * The order's schema as Fastify validates it: Ajv compiled from
 * `ORDER_JSON_SCHEMA` with Fastify's default Ajv options, handed to the
 * route as a Standard Schema by `fromJsonSchema` (as the validation
 * module's docs show). Measures ours against Fastify with the same validator.
 * Before valibot schemas were compiled, valibot's pipes cost some 70k
 * instructions a request more than Ajv's generated function on Node
 * (BENCHMARKS.md, "Fifth round: validated JSON"); compiled, a few thousand
 * ("Tenth round: valibot compiled per route").
 */
export async function ajvOrderSchema(load: Load): Promise<OrderValidator> {
  const { default: Ajv } = await load("ajv");
  const ajv = new Ajv({
    coerceTypes: "array",
    useDefaults: true,
    removeAdditional: true,
    allErrors: false,
  });
  return fromJsonSchema<Order>(ajv.compile(ORDER_JSON_SCHEMA));
}

/**
 * Hono's app; on Node and Bun its cache is a `Map` (no Cache API there),
 * and on Deno too with `map` (the `hono-map` server: the fastest cache a
 * Hono app can have, where Hono's own `cache()` is the Cache API's).
 */
export function honoApp(options: { map?: boolean } = {}): Handler {
  const app = new Hono<{ Variables: { secureHeadersNonce?: string } }>();
  const page = (user: string, visits: number, nonce: string) =>
    honoHtml`<!doctype html><html><head><title>Orders</title><script nonce="${nonce}">window.ready=1</script></head><body><h1>Hello, ${user}</h1><p>Visit ${visits}</p><table>${
      ROWS.map((row) =>
        honoHtml`<tr><td>${row.id}</td><td>${row.name}</td><td>${row.note}</td></tr>`
      )
    }</table></body></html>`;
  const cookieOptions = {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    maxAge: MAX_AGE,
  } as const;
  app.get("/login", async (c) => {
    await setSignedCookie(
      c,
      "session",
      JSON.stringify({ user: "ada", visits: 0 }),
      SECRET,
      cookieOptions,
    );
    return c.text("signed in");
  });
  app.get(
    "/page",
    honoLogger(discard),
    honoSecureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'self'"], scriptSrc: [NONCE] },
    }),
    async (c) => {
      const raw = await getSignedCookie(c, SECRET, "session");
      if (!raw) return c.body(null, 401);
      const data = JSON.parse(raw) as { user: string; visits: number };
      const visits = data.visits + 1;
      await setSignedCookie(
        c,
        "session",
        JSON.stringify({ user: data.user, visits }),
        SECRET,
        cookieOptions,
      );
      return c.html(page(data.user, visits, c.get("secureHeadersNonce")!));
    },
  );
  app.post(
    "/api/orders",
    sValidator("json", OrderSchema),
    (c) => c.json(orderAnswer(c.req.valid("json") as Order)),
  );
  const cached: MiddlewareHandler = isDeno && !options.map
    ? honoCache({
      cacheName: "bench",
      cacheControl: "max-age=60",
      wait: true,
    })
    : mapCache();
  app.get("/cached", cached, (c) => c.html(page("guest", 0, "static")));
  return app.fetch;
}

/** A response cache in a `Map`, as Hono middleware. */
function mapCache(): MiddlewareHandler {
  const store = new Map<
    string,
    { body: string; headers: [string, string][] }
  >();
  return async (c, next) => {
    const hit = store.get(c.req.url);
    if (hit !== undefined) {
      return new Response(hit.body, { headers: hit.headers });
    }
    await next();
    const headers = [...c.res.headers];
    store.set(c.req.url, { body: await c.res.clone().text(), headers });
  };
}

/** Elysia (Bun). */
export async function elysiaApp(where: Where, load: Load): Promise<void> {
  (await elysiaInstance(load))
    .listen({ hostname: where.hostname, port: where.port });
  where.ready();
}

/**
 * Elysia's app, not listening: its `handle(request)` answers in process
 * (bench/page/).
 */
// deno-lint-ignore no-explicit-any
export async function elysiaInstance(load: Load): Promise<any> {
  const { Elysia } = await load("elysia");
  const store = new Map<string, string>();
  const htmlType = "text/html; charset=utf-8";
  type Cookie = {
    value: { user?: string; visits?: number } | undefined;
    set(options: Record<string, unknown>): void;
  };
  type Ctx = {
    cookie: { session: Cookie };
    set: { status?: number; headers: Record<string, string> };
    request: Request;
    body: Order;
    path: string;
    store: Record<string, unknown>;
  };
  const cookieOptions = {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: MAX_AGE,
  };
  const started = new WeakMap<Request, number>();
  return new Elysia({ cookie: { secrets: SECRET, sign: ["session"] } })
    .get("/login", ({ cookie: { session } }: Ctx) => {
      session.set({ value: { user: "ada", visits: 0 }, ...cookieOptions });
      return "signed in";
    })
    .get("/page", ({ cookie: { session }, set }: Ctx) => {
      const data = session.value;
      if (data?.user === undefined) {
        set.status = 401;
        return "";
      }
      const visits = (data.visits ?? 0) + 1;
      session.set({ value: { user: data.user, visits }, ...cookieOptions });
      const nonce = newNonce();
      Object.assign(set.headers, SECURITY_HEADERS);
      set.headers["content-security-policy"] = policy(nonce);
      set.headers["content-type"] = htmlType;
      return renderPage(data.user, visits, nonce);
    }, {
      beforeHandle: ({ request }: Ctx) => {
        started.set(request, performance.now());
      },
      afterResponse: ({ request, path, set }: Ctx) => {
        const ms = performance.now() - (started.get(request) ?? 0);
        discard(`${request.method} ${path} ${set.status ?? 200} ${ms}ms`);
      },
    })
    .post("/api/orders", ({ body }: Ctx) => orderAnswer(body), {
      body: OrderSchema,
    })
    .get("/cached", ({ set }: Ctx) => {
      set.headers["content-type"] = htmlType;
      return renderPage("guest", 0, "static");
    }, {
      beforeHandle: ({ request, set }: Ctx) => {
        const hit = store.get(request.url);
        if (hit !== undefined) {
          set.headers["content-type"] = htmlType;
          set.headers["x-cache"] = "HIT";
          return hit;
        }
      },
      afterHandle: ({ request, response }: Ctx & { response: unknown }) => {
        if (typeof response === "string" && !store.has(request.url)) {
          store.set(request.url, response);
        }
      },
    });
}

/** Fastify (Node), with `@fastify/cookie` and its pino logger. */
export async function fastifyApp(where: Where, load: Load): Promise<void> {
  const { default: Fastify } = await load("fastify");
  const { default: fastifyCookie } = await load("@fastify/cookie");
  // Logging on for /page only (`logLevel`), to a sink that drops lines.
  const app = Fastify({
    logger: { level: "silent", stream: { write: discard } },
  });
  // No hook: the cookie header is parsed where a route reads it.
  await app.register(fastifyCookie, { secret: SECRET, hook: false });
  const cookieOptions = {
    signed: true,
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: MAX_AGE,
  };
  type Request = {
    url: string;
    headers: Record<string, string | undefined>;
    body: Order;
    unsignCookie(value: string): { valid: boolean; value: string | null };
  };
  type Reply = {
    setCookie(name: string, value: string, options: object): Reply;
    headers(values: Record<string, string>): Reply;
    header(name: string, value: string): Reply;
    type(value: string): Reply;
    code(status: number): Reply;
    send(payload?: unknown): Reply;
  };
  app.get("/login", (_request: Request, reply: Reply) => {
    reply.setCookie(
      "session",
      JSON.stringify({ user: "ada", visits: 0 }),
      cookieOptions,
    );
    return "signed in";
  });
  app.get("/page", { logLevel: "info" }, (request: Request, reply: Reply) => {
    const raw = app.parseCookie(request.headers.cookie ?? "").session;
    const unsigned = raw === undefined ? undefined : request.unsignCookie(raw);
    if (!unsigned?.valid) return reply.code(401).send();
    const data = JSON.parse(unsigned.value!) as {
      user: string;
      visits: number;
    };
    const visits = data.visits + 1;
    reply.setCookie(
      "session",
      JSON.stringify({ user: data.user, visits }),
      cookieOptions,
    );
    const nonce = newNonce();
    return reply
      .headers(SECURITY_HEADERS)
      .header("content-security-policy", policy(nonce))
      .type("text/html; charset=utf-8")
      .send(renderPage(data.user, visits, nonce));
  });
  app.post(
    "/api/orders",
    { schema: { body: ORDER_JSON_SCHEMA } },
    (request: Request) => orderAnswer(request.body),
  );
  const store = new Map<string, string>();
  app.get(
    "/cached",
    {
      onRequest: (request: Request, reply: Reply, done: () => void) => {
        const hit = store.get(request.url);
        if (hit === undefined) return done();
        reply.type("text/html; charset=utf-8").header("x-cache", "HIT").send(
          hit,
        );
      },
      onSend: (
        request: Request,
        _reply: Reply,
        payload: unknown,
        done: (error: null, payload: unknown) => void,
      ) => {
        if (typeof payload === "string" && !store.has(request.url)) {
          store.set(request.url, payload);
        }
        done(null, payload);
      },
    },
    (_request: Request, reply: Reply) =>
      reply.type("text/html; charset=utf-8").send(
        renderPage("guest", 0, "static"),
      ),
  );
  await app.listen({ port: where.port, host: where.hostname });
  where.ready();
}
