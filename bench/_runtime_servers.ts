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
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";
import { Hono } from "hono";
import { addFetchkitRoutes, addHonoRoutes } from "./_bench_routes.ts";

type Handler = (request: Request) => Response | Promise<Response>;

function fetchkit(json: (data: unknown) => Response): Handler {
  const router = createRouter();
  addFetchkitRoutes(router, json);
  return router.fetch;
}

function hono(): Handler {
  const app = new Hono();
  addHonoRoutes(app);
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
