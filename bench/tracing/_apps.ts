/**
 * The apps of the tracing benchmarks: one route `/users/:id` answering
 * "ok", bare and behind each middleware measured, on our router and on
 * Hono. Checked to answer 200 "ok" when `check()` is called.
 */
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import { contextStorage } from "@fetchkit/toolkit/context-storage";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";
import { Hono } from "hono";
import { httpInstrumentationMiddleware } from "@hono/otel";
import { contextStorage as honoContextStorage } from "hono/context-storage";
import { timing } from "hono/timing";

const handler = (): Response => new Response("ok");

function ours(middleware: Middleware[]) {
  const router = createRouter({ middleware });
  router.get("/users/:id", handler);
  return router;
}

/** Made after an SDK (if any) is registered: tracers are looked up here. */
export function makeApps() {
  const honoPlain = new Hono();
  honoPlain.get("/users/:id", handler);
  const honoOtel = new Hono();
  honoOtel.use(httpInstrumentationMiddleware());
  honoOtel.get("/users/:id", handler);
  const honoPassThrough = new Hono();
  honoPassThrough.use((_c, next) => next());
  honoPassThrough.get("/users/:id", handler);
  const honoStorage = new Hono();
  honoStorage.use(honoContextStorage());
  honoStorage.get("/users/:id", handler);
  const honoTiming = new Hono();
  honoTiming.use(timing());
  honoTiming.get("/users/:id", handler);
  return {
    plain: ours([]),
    // The cost of any one router middleware that awaits next().
    passThrough: ours([(_context, next) => next()]),
    tracing: ours([tracing()]),
    contextStorage: ours([contextStorage()]),
    serverTiming: ours([serverTiming({ enabled: true })]),
    honoPlain,
    honoPassThrough,
    honoOtel,
    honoContextStorage: honoStorage,
    honoTiming,
  };
}

export type Apps = ReturnType<typeof makeApps>;

export const request: Request = new Request("http://localhost/users/123", {
  headers: { "User-Agent": "bench" },
});

/** Every app must answer 200 "ok", or the numbers mean nothing. */
export async function check(apps: Apps): Promise<void> {
  for (const [name, app] of Object.entries(apps)) {
    const response = await app.fetch(request);
    if (response.status !== 200 || await response.text() !== "ok") {
      throw new Error(`${name} does not answer 200 ok`);
    }
  }
}
