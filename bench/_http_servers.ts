/**
 * One small app on three routers, served by `Deno.serve` on 127.0.0.1 for
 * `bench/http_load.ts`: `deno run -A bench/_http_servers.ts <fetchkit|hono|remix> <port>`.
 * Routes: `GET /` (static text), `GET /users/:id` (JSON with the param),
 * `POST /echo` (echoes a urlencoded field). Logging is off everywhere.
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { Hono } from "hono";
import { createRouter as createRemixRouter } from "@remix-run/fetch-router";
import { serveNamed } from "./_load.ts";

function fetchkit(): (request: Request) => Promise<Response> {
  const router = createRouter();
  router.get("/", () => new Response("home"));
  router.get("/users/:id", ({ params }) => Response.json({ id: params.id }));
  router.post(
    "/echo",
    formData(),
    (context) => new Response(String(context.get(FormData)?.get("text") ?? "")),
  );
  return router.fetch;
}

function hono(): (request: Request) => Response | Promise<Response> {
  const app = new Hono();
  app.get("/", (c) => c.text("home"));
  app.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
  app.post(
    "/echo",
    async (c) => c.text(String((await c.req.parseBody())["text"] ?? "")),
  );
  return app.fetch;
}

function remix(): (request: Request) => Promise<Response> {
  const router = createRemixRouter();
  router.get("/", () => new Response("home"));
  router.get("/users/:id", ({ params }) => Response.json({ id: params.id }));
  router.post(
    "/echo",
    async ({ request }) =>
      new Response(String((await request.formData()).get("text") ?? "")),
  );
  return (request) => router.fetch(request);
}

const [name, port] = Deno.args;
serveNamed({ fetchkit, hono, remix }, name, port);
