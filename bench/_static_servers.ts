/**
 * Static files from one folder on our `serveStatic` and Hono's `serveStatic`
 * for Deno, each `Deno.serve`d for `bench/static_load.ts`:
 * `deno run --allow-net=127.0.0.1 --allow-read bench/_static_servers.ts <fetchkit|hono> <root> <port>`.
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { Hono } from "hono";
import { serveStatic as honoServeStatic } from "hono/deno";

const [name, root, port] = Deno.args;

function fetchkit(): (request: Request) => Promise<Response> {
  return createRouter({ middleware: [serveStatic({ root })] }).fetch;
}

function hono(): (request: Request) => Response | Promise<Response> {
  const app = new Hono();
  app.use("/*", honoServeStatic({ root }));
  return app.fetch;
}

const handlers: Record<
  string,
  () => (request: Request) => Response | Promise<Response>
> = { fetchkit, hono };
const handler = handlers[name]?.();
if (handler === undefined) {
  throw new TypeError(`unknown server "${name}"; use fetchkit or hono`);
}
Deno.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  onListen: () => console.log("ready"),
}, handler);
