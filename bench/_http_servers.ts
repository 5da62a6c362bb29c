/**
 * One small app on three routers, plus bare `Deno.serve`, for
 * `bench/http_load.ts`:
 * `deno run --unstable-kv -A bench/_http_servers.ts <bare|bare-url|fetchkit|hono|remix> <port>`.
 *
 * Routes (logging off everywhere):
 * - `GET /` static text; bare `Deno.serve` answers every request with it
 *   (a constant response: the physical limit), and `bare-url` does too
 *   after reading `request.url` and `request.method`, which every router
 *   must (in `Deno.serve` each is a call into the runtime).
 * - `GET /users/:id` and `GET /users/:userId/posts/:postId`: JSON of the params.
 * - `GET /mw`: behind three route middlewares (two read a request header,
 *   the third sets a response header after `next()`).
 * - any other path: the router's 404 (the miss scenario).
 * - `POST /login` starts a session (Deno KV `:memory:`) with `userId: 42`
 *   and `GET /session` reads it: ours with `createKvSessionStorage`; Remix
 *   with its session middleware over a Deno KV storage written here to its
 *   `SessionStorage` interface the way its own memory storage is (one
 *   `kv.get` per read). Hono's core has no session middleware.
 * - `GET /table`: a 50-row table through the `html` tag (ours, Hono's
 *   `hono/html`); Remix has no HTML template helper.
 * - `POST /echo`: echoes a urlencoded field.
 *
 * @module
 */
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { Hono } from "hono";
import { createRouter as createRemixRouter } from "@remix-run/fetch-router";
import { createCookie } from "@remix-run/cookie";
import {
  createSession as createRemixSession,
  Session as RemixSession,
  type SessionStorage as RemixSessionStorage,
} from "@remix-run/session";
import { session as remixSession } from "@remix-run/session-middleware";
import { makeRows, renderHono, renderOurs } from "./_html_table.ts";
import { serveNamed } from "./_load.ts";
import { addFetchkitRoutes, addHonoRoutes } from "./_bench_routes.ts";

const SECRET = "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const rows = makeRows(50);

function fetchkit(
  kv: Deno.Kv,
): (request: Request) => Response | Promise<Response> {
  const Session = createContextKey<Session>();
  const storage = createKvSessionStorage({
    client: kv,
    cookie: { name: "session", secrets: [SECRET], maxAge: 604800 },
  });
  const router = createRouter();
  addFetchkitRoutes(router, (data) => Response.json(data));
  const withSession = session(Session, storage);
  router.post("/login", withSession, (context) => {
    context.get(Session)!.set("userId", 42);
    return new Response("ok");
  });
  router.get(
    "/session",
    withSession,
    (context) => new Response(`user ${context.get(Session)!.get("userId")}`),
  );
  router.get("/table", () => createHtmlResponse(renderOurs(rows)));
  return router.fetch;
}

function hono(): (request: Request) => Response | Promise<Response> {
  const app = new Hono();
  addHonoRoutes(app);
  app.get("/table", (c) => c.html(renderHono(rows)));
  return app.fetch;
}

/** Remix's `SessionStorage` on Deno KV, shaped like its memory storage. */
function remixKvStorage(kv: Deno.Kv): RemixSessionStorage {
  return {
    async read(id) {
      if (id === null || id === "") return createRemixSession();
      const entry = await kv.get<Record<string, unknown>>(["sessions", id]);
      return entry.value === null
        ? createRemixSession()
        : createRemixSession(id, entry.value as never);
    },
    async save(current) {
      if (current.deleteId) await kv.delete(["sessions", current.deleteId]);
      if (current.destroyed) {
        await kv.delete(["sessions", current.id]);
        return "";
      }
      if (!current.dirty) return null;
      await kv.set(["sessions", current.id], current.data, {
        expireIn: 604800_000,
      });
      return current.id;
    },
  };
}

// Loosely typed: Remix's middleware and action types are generic over
// its context; the bench only needs the run-time shapes.
// deno-lint-ignore no-explicit-any
type Loose = any;

function remix(kv: Deno.Kv): (request: Request) => Promise<Response> {
  const router = createRemixRouter();
  router.get("/", () => new Response("home"));
  router.get("/users/:id", ({ params }) => Response.json({ id: params.id }));
  router.get(
    "/users/:userId/posts/:postId",
    ({ params }) =>
      Response.json({ userId: params.userId, postId: params.postId }),
  );
  const readsAccept = (context: Loose, next: Loose) => {
    context.headers.get("accept");
    return next();
  };
  const readsAgent = (context: Loose, next: Loose) => {
    context.headers.get("user-agent");
    return next();
  };
  const setsHeader = async (_context: Loose, next: Loose) => {
    const response = await next();
    response.headers.set("x-bench", "1");
    return response;
  };
  router.get("/mw", {
    middleware: [readsAccept, readsAgent, setsHeader],
    handler: () => new Response("mw"),
  } as Loose);
  const cookie = createCookie("session", {
    secrets: [SECRET],
    maxAge: 604800,
    httpOnly: true,
    sameSite: "Lax",
  });
  const withSession = remixSession(cookie, remixKvStorage(kv)) as Loose;
  router.post("/login", {
    middleware: [withSession],
    handler: (context: Loose) => {
      context.get(RemixSession).set("userId", 42);
      return new Response("ok");
    },
  } as Loose);
  router.get("/session", {
    middleware: [withSession],
    handler: (context: Loose) =>
      new Response(`user ${context.get(RemixSession).get("userId")}`),
  } as Loose);
  router.post(
    "/echo",
    async ({ request }) =>
      new Response(String((await request.formData()).get("text") ?? "")),
  );
  return (request) => router.fetch(request);
}

function bare(): (request: Request) => Response {
  return () => new Response("home");
}

/** Bare, but reading what every router must: the URL and the method. */
function bareRouting(): (request: Request) => Response {
  let seen = 0;
  return (request) => {
    seen += request.url.length + request.method.length;
    return new Response(seen < 0 ? "never" : "home");
  };
}

const [name, port] = Deno.args;
const kv = await Deno.openKv(":memory:");
serveNamed(
  {
    bare,
    "bare-url": bareRouting,
    fetchkit: () => fetchkit(kv),
    hono,
    remix: () => remix(kv),
  },
  name,
  port,
);
