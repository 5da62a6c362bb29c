/**
 * Per-request overhead of `logger()`: the same router with and without it,
 * `log` a no-op so that only the logger's own work is measured. Hono's
 * logger, on the same kind of app, runs in the same process as the peer.
 *
 * Run: deno bench --allow-all bench/logger_bench.ts
 * The overhead is the difference of the two means within a group.
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { Hono } from "hono";
import { logger as honoLogger } from "hono/logger";

const noop = (): void => {};
const handler = (): Response => new Response("ok");
const request = new Request("http://localhost/users/123?tab=posts", {
  headers: { "User-Agent": "bench" },
});

const plain = createRouter();
plain.get("/users/:id", handler);

const logged = createRouter({ middleware: [logger({ log: noop })] });
logged.get("/users/:id", handler);

// The cost of any router middleware, so the logger's own share shows.
const passThrough = createRouter({ middleware: [(_context, next) => next()] });
passThrough.get("/users/:id", handler);

const loggedFull = createRouter({
  middleware: [
    logger({
      format:
        '%hostname - - [%date] "%method %path" %status %contentLength "%referer" "%userAgent" %duration',
      log: noop,
    }),
  ],
});
loggedFull.get("/users/:id", handler);

const honoPlain = new Hono();
honoPlain.get("/users/:id", handler);

const honoLogged = new Hono();
honoLogged.use(honoLogger(noop));
honoLogged.get("/users/:id", handler);

// Answers must be right, or the numbers mean nothing.
for (
  const app of [plain, passThrough, logged, loggedFull, honoPlain, honoLogged]
) {
  const response = await app.fetch(request);
  if (response.status !== 200 || await response.text() !== "ok") {
    throw new Error("bench app does not answer 200 ok");
  }
}

Deno.bench({
  name: "fetchkit router",
  group: "fetchkit",
  baseline: true,
  async fn() {
    await plain.fetch(request);
  },
});

Deno.bench({
  name: "fetchkit router + pass-through middleware",
  group: "fetchkit",
  async fn() {
    await passThrough.fetch(request);
  },
});

Deno.bench({
  name: "fetchkit router + logger() default format",
  group: "fetchkit",
  async fn() {
    await logged.fetch(request);
  },
});

Deno.bench({
  name: "fetchkit router + logger() combined-style format",
  group: "fetchkit",
  async fn() {
    await loggedFull.fetch(request);
  },
});

Deno.bench({
  name: "hono",
  group: "hono",
  baseline: true,
  async fn() {
    await honoPlain.fetch(request);
  },
});

Deno.bench({
  name: "hono + hono/logger",
  group: "hono",
  async fn() {
    await honoLogged.fetch(request);
  },
});
